/**
 * Declarations the OpenAPI document reads that the path declarations do not carry: the raw
 * content types a read answers, and the fields of a catalog path whose write takes its body as
 * sent. Dependency-free (types only), so that path files can use it without an import circle.
 */
import type { Fields } from './fields';
import type { PathSpec } from './path';

const rawAnswers = new WeakMap<PathSpec, readonly string[]>();
const rawBodyFields = new WeakSet<Fields>();

/** Declares that a read of `spec` answers the bytes themselves, in one of `contentTypes`. */
export function answersRaw(spec: PathSpec, ...contentTypes: string[]): PathSpec {
  rawAnswers.set(spec, contentTypes);
  return spec;
}

/** The content types a read of `spec` answers raw, if declared. */
export function rawAnswerOf(spec: PathSpec): readonly string[] | undefined {
  return rawAnswers.get(spec);
}

/**
 * Declares that a catalog path with these fields takes a write's body as sent (a KV value):
 * every field other than a path parameter is a query parameter, on every method.
 */
export function withRawBody<F extends Fields>(fields: F): F {
  rawBodyFields.add(fields);
  return fields;
}

export function takesRawBody(fields: Fields): boolean {
  return rawBodyFields.has(fields);
}
