/**
 * The shape every decoded request input must keep, on every surface: the engine and sys bodies
 * (JSON or form) and queries (input.ts), the catalog's JSON bodies (catalog/decode.ts), the ACME
 * JWS and its parts (pki/acme/jws.ts), and the JSON held in string fields
 * (cloud-common/json-text.ts). JSON.parse itself copes with any nesting, but much of what runs
 * after it recurses (JSON.stringify in the audit log, in handlers, in stores): a 10,000-level
 * body overflowed the stack there. So input nesting deeper than `depth`, or holding more than
 * `values` values in all, is refused with a 400 naming the limit, before any handler or audit
 * record sees it. The value count bounds what a 1 MiB body (BODY_LIMIT) can cost downstream: the
 * audit log hashes every string, and a 1 MiB body of empty strings is slow to hash into a huge
 * record. No legitimate client comes near either limit: the deepest documented inputs (policy
 * documents, inline cloud policies, catalog registrations) nest under 10 levels, and requests
 * hold tens of values, a large secret thousands. The checker is cheap next to JSON.parse
 * (bench/json-limits.ts; figures in BENCHMARKS.md).
 */
import { BadRequest } from '../errors';

export interface JsonLimits {
  /** Nesting levels of objects and arrays: `{}` is 1, `{"a":[]}` is 2. */
  depth: number;
  /** Values in all (objects, arrays, strings, numbers, booleans, nulls), the top one included. */
  values: number;
}

export const JSON_LIMITS: JsonLimits = { depth: 64, values: 100_000 };

/**
 * Why `value` is outside `limits` ("nests deeper than 64 levels"), or undefined when it is not.
 * An iterative walk (no recursion to overflow), stopping at the first limit passed; scalars are
 * counted, never visited.
 */
export function jsonLimitExceeded(value: unknown, limits: JsonLimits = JSON_LIMITS): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const open: object[] = [value];
  const levels: number[] = [1];
  let values = 1;
  let level = 1;
  const visit = (x: unknown) => {
    if (typeof x === 'object' && x !== null) {
      open.push(x);
      levels.push(level + 1);
    }
  };
  while (open.length) {
    const v = open.pop()!;
    level = levels.pop()!;
    if (level > limits.depth) return `nests deeper than ${limits.depth} levels`;
    if (Array.isArray(v)) {
      values += v.length;
      if (values > limits.values) break;
      for (const x of v as unknown[]) visit(x);
    } else {
      // Own keys, as JSON.parse makes them (Object.keys walks a large object fastest).
      const keys = Object.keys(v);
      values += keys.length;
      if (values > limits.values) break;
      for (const k of keys) visit((v as Record<string, unknown>)[k]);
    }
  }
  return values > limits.values ? `holds more than ${limits.values} values` : undefined;
}

/** A 400 `<what> nests deeper than 64 levels` when `value` is outside the limits. */
export function checkJsonLimits(value: unknown, what: string): void {
  const exceeded = jsonLimitExceeded(value);
  if (exceeded) throw new BadRequest(`${what} ${exceeded}`);
}
