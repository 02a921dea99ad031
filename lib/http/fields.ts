/**
 * Request fields: each is a zod schema that coerces like the reference server (durations as
 * "1h" or seconds, lists as "a,b" or arrays, booleans as true or "true") plus what the OpenAPI
 * document needs. A wrong type is a 400 naming the field.
 */
import * as z from 'zod/mini';
import { parseBool } from '../booleans';
import { parseDuration } from '../duration';
import type { CompareAs } from '../types';

export type FieldKind = 'string' | 'int' | 'bool' | 'duration' | 'list' | 'map' | 'object' | 'any';

/** `Present` (a type only): the value is always there, being required or defaulted. */
export interface Field<T = unknown, Present extends boolean = boolean> {
  kind: FieldKind;
  schema: z.ZodMiniType<T>;
  required: boolean;
  readonly __present?: Present;
  default?: T;
  description: string;
  enum?: readonly string[];
  /** Where the value comes from: the URL path, or the body/query (default). */
  in?: 'path';
  /**
   * `foldCase` lower-cases the value before anything reads it (policy and role names the
   * reference stores lower-cased; for a path parameter, before authorization). `compareAs` tells
   * parameter constraints how the handler reads a value it keeps as sent: `lower-case` (DNS
   * names), `address` (IP addresses, CIDR blocks).
   */
  foldCase?: boolean;
  compareAs?: CompareAs;
  /** This field is an alias of another (`policies` of `token_policies`): rules on either name hold on it. */
  aliasOf?: string;
}

export type Fields = Record<string, Field>;

export type FieldValues<F extends Fields> = {
  [K in keyof F]: F[K] extends Field<infer T, infer P> ? (P extends true ? T : T | undefined) : never;
};

interface Opts<T, D extends T | undefined = T | undefined> {
  description?: string;
  default?: D;
  /** See Field. */
  compareAs?: CompareAs;
  aliasOf?: string;
}

/** Options of the string-valued kinds (string, list, path parameter). */
interface Folding {
  foldCase?: boolean;
}

type Present<R extends boolean, D> = R extends true ? true : D extends undefined ? false : true;

function make<T>(
  kind: FieldKind,
  schema: z.ZodMiniType<T>,
  o: {
    description?: string;
    default?: T | undefined;
    required?: boolean;
    enum?: readonly string[];
    foldCase?: boolean;
    compareAs?: CompareAs;
    aliasOf?: string;
  },
) {
  return {
    kind,
    schema: o.foldCase ? lowerCased(schema) : schema,
    required: o.required ?? false,
    description: o.description ?? '',
    ...(o.default !== undefined ? { default: o.default } : {}),
    ...(o.enum ? { enum: o.enum } : {}),
    ...(o.foldCase ? { foldCase: true } : {}),
    ...(o.compareAs ? { compareAs: o.compareAs } : {}),
    ...(o.aliasOf ? { aliasOf: o.aliasOf } : {}),
  };
}

/** A string or list schema whose values come out lower-cased. */
function lowerCased<T>(schema: z.ZodMiniType<T>): z.ZodMiniType<T> {
  const lower = (v: unknown): unknown =>
    typeof v === 'string' ? v.toLowerCase() : Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x.toLowerCase() : x)) : v;
  return z.pipe(
    schema,
    z.transform((v: T) => lower(v) as T),
  ) as unknown as z.ZodMiniType<T>;
}

const expect = (what: string) => ({ error: () => `expected ${what}` });

const str = z.pipe(z.number(), z.transform(String));
const boolStr = z.pipe(z.boolean(), z.transform(String));

const stringSchema = z.union([z.string(), str, boolStr], expect('a string'));

const intSchema = z
  .union([z.number(), z.pipe(z.string().check(z.regex(/^\s*-?\d+\s*$/)), z.transform(Number))], expect('an integer'))
  .check(z.refine((n) => Number.isSafeInteger(n), { message: 'expected an integer' }));

const boolSchema = z.union(
  [
    z.boolean(),
    z.pipe(
      z.union([z.number(), z.string()]).check(z.refine((v) => parseBool(v) !== undefined)),
      z.transform((v: number | string) => parseBool(v) === true),
    ),
  ],
  expect('a boolean'),
);

/** A coercion written as a plain function: returns the value, or undefined with `message`. */
function coercion<T>(fn: (v: unknown) => T | undefined, message: string): z.ZodMiniType<T> {
  return z.pipe(
    z.unknown(),
    z.transform((v: unknown, ctx) => {
      const out = fn(v);
      if (out === undefined) {
        ctx.issues.push({ code: 'custom', message, input: v });
        return z.NEVER;
      }
      return out;
    }),
    // zod/mini types a pipe by its input (unknown) too; its output is T, which callers need.
  ) as unknown as z.ZodMiniType<T>;
}

const durationSchema = coercion(parseDuration, 'expected a duration such as "1h", "30m" or a number of seconds');

/** Elements trimmed and empty ones dropped, whether sent as an array or as "a, b". */
const tidy = (items: string[]) => items.map((x) => x.trim()).filter((x) => x !== '');

const listSchema = z.union(
  [
    z.pipe(z.array(z.union([z.string(), str])), z.transform(tidy)),
    z.pipe(
      z.string(),
      z.transform((v: string) => tidy(v.split(','))),
    ),
  ],
  expect('a list of strings or a comma-separated string'),
);

/**
 * Maps keep every key as given, `__proto__` and `constructor` included: they are built as
 * null-prototype objects, so no key can reach a prototype, and they serialise as plain JSON.
 */
function stringMap(v: unknown): Record<string, string> | undefined {
  if (typeof v === 'string') return keyValues(v);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out = Object.create(null) as Record<string, string>;
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === 'string') out[k] = x;
    else if ((typeof x === 'number' && Number.isFinite(x)) || typeof x === 'boolean') out[k] = String(x);
    else return undefined;
  }
  return out;
}

function keyValues(v: string): Record<string, string> | undefined {
  const out = Object.create(null) as Record<string, string>;
  for (const pair of v.split(',').filter((p) => p.trim())) {
    const i = pair.indexOf('=');
    if (i <= 0) return undefined;
    out[pair.slice(0, i).trim()] = pair.slice(i + 1).trim();
  }
  return out;
}

const mapSchema = coercion(stringMap, 'expected an object of strings or key=value pairs');

export const f = {
  string: <R extends boolean = false, D extends string | undefined = undefined>(
    o: Opts<string, D> & Folding & { required?: R; enum?: readonly string[] } = {},
  ) =>
    make(
      'string',
      o.enum
        ? stringSchema.check(z.refine((v: string) => o.enum!.includes(v), { message: `expected one of: ${o.enum.join(', ')}` }))
        : stringSchema,
      o,
    ) as Field<string, Present<R, D>>,
  int: <R extends boolean = false, D extends number | undefined = undefined>(
    o: Opts<number, D> & { required?: R; min?: number; max?: number } = {},
  ) =>
    make(
      'int',
      intSchema.check(
        z.refine((n: number) => (o.min === undefined || n >= o.min) && (o.max === undefined || n <= o.max), {
          message: `expected an integer${o.min !== undefined ? ` >= ${o.min}` : ''}${o.max !== undefined ? ` <= ${o.max}` : ''}`,
        }),
      ),
      o,
    ) as Field<number, Present<R, D>>,
  bool: <R extends boolean = false, D extends boolean | undefined = undefined>(o: Opts<boolean, D> & { required?: R } = {}) =>
    make('bool', boolSchema, o) as Field<boolean, Present<R, D>>,
  /** Seconds. */
  duration: <R extends boolean = false, D extends number | undefined = undefined>(o: Opts<number, D> & { required?: R } = {}) =>
    make('duration', durationSchema, o) as Field<number, Present<R, D>>,
  list: <R extends boolean = false, D extends string[] | undefined = undefined>(o: Opts<string[], D> & Folding & { required?: R } = {}) =>
    make('list', listSchema, o) as Field<string[], Present<R, D>>,
  map: <R extends boolean = false, D extends Record<string, string> | undefined = undefined>(
    o: Opts<Record<string, string>, D> & { required?: R } = {},
  ) => make('map', mapSchema, o) as Field<Record<string, string>, Present<R, D>>,
  /** A path segment (always present when the route matched). */
  pathParam: (o: { description?: string } & Folding = {}) =>
    ({ ...make('string', z.string(), { ...o, required: true }), in: 'path' as const }) as Field<string, true>,
  /** Any JSON value (validated by the handler). */
  any: <R extends boolean = false>(o: Opts<unknown> & { required?: R } = {}) => make('any', z.unknown(), o) as Field<unknown, R>,
};
