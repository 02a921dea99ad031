/**
 * Request fields: each is a zod schema that coerces like the reference server (durations as
 * "1h" or seconds, lists as "a,b" or arrays, booleans as true or "true") plus what the OpenAPI
 * document needs. A wrong type is a 400 naming the field.
 */
import { z } from 'zod';
import { parseDuration } from '../duration';

export type FieldKind = 'string' | 'int' | 'bool' | 'duration' | 'list' | 'map' | 'object' | 'any';

/** `Present` (a type only): the value is always there, being required or defaulted. */
export interface Field<T = unknown, Present extends boolean = boolean> {
  kind: FieldKind;
  schema: z.ZodType<T>;
  required: boolean;
  readonly __present?: Present;
  default?: T;
  description: string;
  enum?: readonly string[];
  /** Where the value comes from: the URL path, or the body/query (default). */
  in?: 'path';
}

export type Fields = Record<string, Field>;

export type FieldValues<F extends Fields> = {
  [K in keyof F]: F[K] extends Field<infer T, infer P> ? (P extends true ? T : T | undefined) : never;
};

interface Opts<T, D extends T | undefined = T | undefined> {
  description?: string;
  default?: D;
}

type Present<R extends boolean, D> = R extends true ? true : D extends undefined ? false : true;

function make<T>(kind: FieldKind, schema: z.ZodType<T>, o: { description?: string; default?: T | undefined; required?: boolean; enum?: readonly string[] }) {
  return {
    kind,
    schema,
    required: o.required ?? false,
    description: o.description ?? '',
    ...(o.default !== undefined ? { default: o.default } : {}),
    ...(o.enum ? { enum: o.enum } : {}),
  };
}

const expect = (what: string) => ({ error: () => `expected ${what}` });

const stringSchema = z.union([z.string(), z.number().transform(String), z.boolean().transform(String)], expect('a string'));

const intSchema = z
  .union([z.number(), z.string().regex(/^\s*-?\d+\s*$/).transform(Number)], expect('an integer'))
  .refine((n) => Number.isSafeInteger(n), { message: 'expected an integer' });

const TRUE = new Set(['true', '1', 't', 'T', 'TRUE', 'True']);
const FALSE = new Set(['false', '0', 'f', 'F', 'FALSE', 'False', '']);
const boolSchema = z.union(
  [
    z.boolean(),
    z.number().refine((n) => n === 0 || n === 1).transform((n) => n === 1),
    z.string().refine((s) => TRUE.has(s) || FALSE.has(s)).transform((s) => TRUE.has(s)),
  ],
  expect('a boolean'),
);

const durationSchema = z.unknown().transform((v, ctx) => {
  const s = parseDuration(v);
  if (s === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected a duration such as "1h", "30m" or a number of seconds' });
    return z.NEVER;
  }
  return s;
});

const listSchema = z.union(
  [
    z.array(z.union([z.string(), z.number().transform(String)])),
    z.string().transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== ''),
    ),
  ],
  expect('a list of strings or a comma-separated string'),
);

const mapSchema = z.union(
  [
    z.record(z.string(), z.union([z.string(), z.number().transform(String), z.boolean().transform(String)])),
    z.string().transform((s, ctx) => {
      const out: Record<string, string> = {};
      for (const pair of s.split(',').filter((p) => p.trim())) {
        const i = pair.indexOf('=');
        if (i <= 0) {
          ctx.addIssue({ code: 'custom', message: 'expected key=value pairs' });
          return z.NEVER;
        }
        out[pair.slice(0, i).trim()] = pair.slice(i + 1).trim();
      }
      return out;
    }),
  ],
  expect('an object of strings or key=value pairs'),
);

export const f = {
  string: <R extends boolean = false, D extends string | undefined = undefined>(o: Opts<string, D> & { required?: R; enum?: readonly string[] } = {}) =>
    make('string', o.enum ? stringSchema.refine((s) => o.enum!.includes(s), { message: `expected one of: ${o.enum.join(', ')}` }) : stringSchema, o) as Field<string, Present<R, D>>,
  int: <R extends boolean = false, D extends number | undefined = undefined>(o: Opts<number, D> & { required?: R; min?: number; max?: number } = {}) =>
    make(
      'int',
      intSchema.refine((n) => (o.min === undefined || n >= o.min) && (o.max === undefined || n <= o.max), {
        message: `expected an integer${o.min !== undefined ? ` >= ${o.min}` : ''}${o.max !== undefined ? ` <= ${o.max}` : ''}`,
      }),
      o,
    ) as Field<number, Present<R, D>>,
  bool: <R extends boolean = false, D extends boolean | undefined = undefined>(o: Opts<boolean, D> & { required?: R } = {}) =>
    make('bool', boolSchema, o) as Field<boolean, Present<R, D>>,
  /** Seconds. */
  duration: <R extends boolean = false, D extends number | undefined = undefined>(o: Opts<number, D> & { required?: R } = {}) =>
    make('duration', durationSchema, o) as Field<number, Present<R, D>>,
  list: <R extends boolean = false, D extends string[] | undefined = undefined>(o: Opts<string[], D> & { required?: R } = {}) =>
    make('list', listSchema, o) as Field<string[], Present<R, D>>,
  map: <R extends boolean = false, D extends Record<string, string> | undefined = undefined>(
    o: Opts<Record<string, string>, D> & { required?: R } = {},
  ) => make('map', mapSchema, o) as Field<Record<string, string>, Present<R, D>>,
  /** A path segment (always present when the route matched). */
  pathParam: (o: { description?: string } = {}) => ({ ...make('string', z.string(), { ...o, required: true }), in: 'path' as const }) as Field<string, true>,
  /** Any JSON value (validated by the handler). */
  any: <R extends boolean = false>(o: Opts<unknown> & { required?: R } = {}) => make('any', z.unknown(), o) as Field<unknown, R>,
};
