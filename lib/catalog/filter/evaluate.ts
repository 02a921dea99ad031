/**
 * A parsed `?filter` checked against an endpoint's fields (schema.ts) and turned into a
 * predicate over the answer's wire shapes. Every selector, operator and value is checked
 * before anything is read: an unknown selector, an operator the field's type cannot take, a
 * value that is not of the field's type or a bad regular expression (regex.ts) is a 400 naming it.
 * Missing map keys follow the reference: `==`, `in`, `matches`, `is not empty` are false,
 * their negations (and `is empty`) true.
 */
import { filterError, parseFilter, type Expr, type MatchOp } from './parse';
import { Patterns } from './regex';
import type { FieldType } from './schema';

export type Predicate = (item: unknown) => boolean;
type Leaf = (v: unknown) => boolean;

const NEGATED: Partial<Record<MatchOp, MatchOp>> = {
  '!=': '==',
  'not in': 'in',
  'is not empty': 'is empty',
  'not matches': 'matches',
  'is not nil': 'is nil',
};
const TRUE_WHEN_MISSING = new Set<MatchOp>(['!=', 'not in', 'is empty', 'not matches', 'is nil']);

const isList = (t: FieldType): t is { list: FieldType } => typeof t === 'object' && 'list' in t;
const isMap = (t: FieldType): t is { map: FieldType } => typeof t === 'object' && 'map' in t;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const typeName = (t: FieldType) => (typeof t === 'string' ? t : isList(t) ? 'list' : isMap(t) ? 'map' : 'object');

/** The type a selector reaches; a 400 when it names no field. */
function resolve(path: string[], t: FieldType, shown: string): FieldType {
  let cur = t;
  for (const seg of path) {
    if (isList(cur)) {
      cur = cur.list;
      if (/^\d+$/.test(seg)) continue;
    }
    if (isMap(cur)) cur = cur.map;
    else if (typeof cur === 'object' && !isList(cur) && Object.hasOwn(cur.struct, seg)) cur = cur.struct[seg] as FieldType;
    else throw filterError(`Selector "${shown}" is not valid`);
  }
  return cur;
}

function coerce(raw: string, t: FieldType, shown: string): string | number | boolean {
  if (t === 'int') {
    if (!/^-?\d{1,15}$/.test(raw)) throw filterError(`value "${raw.slice(0, 64)}" for selector "${shown}" is not an integer`);
    return Number(raw);
  }
  if (t === 'bool') {
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(raw)) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(raw)) return false;
    throw filterError(`value "${raw.slice(0, 64)}" for selector "${shown}" is not a boolean`);
  }
  return raw;
}

/** The test of a positive operator on the selected value. */
function leafFor(op: MatchOp, t: FieldType, raw: string, shown: string, patterns: Patterns): Leaf {
  const refuse = (what: string): never => {
    throw filterError(`cannot perform ${what} operations on type ${typeName(t)} for selector "${shown}"`);
  };
  if (op === '==') {
    if (typeof t === 'object') refuse('equality');
    const want = coerce(raw, t, shown);
    return (v) => v === want;
  }
  if (op === 'in') {
    if (t === 'string') return (v) => typeof v === 'string' && v.includes(raw);
    if (isMap(t)) return (v) => isObj(v) && Object.hasOwn(v, raw);
    if (isList(t) && typeof t.list === 'string') {
      const want = coerce(raw, t.list, shown);
      return (v) => Array.isArray(v) && v.includes(want);
    }
    return refuse('in/contains');
  }
  if (op === 'is empty') {
    if (t !== 'string' && !isList(t) && !isMap(t)) refuse('is-empty');
    return (v) =>
      v === null ||
      v === undefined ||
      (typeof v === 'string' || Array.isArray(v) ? v.length === 0 : isObj(v) && Object.keys(v).length === 0);
  }
  if (op === 'is nil') {
    if (typeof t !== 'object') refuse('is-nil');
    return (v) => v === null || v === undefined;
  }
  if (t !== 'string') refuse('matches');
  const matches = patterns.compile(raw);
  return (v) => typeof v === 'string' && matches(v);
}

/** Walks `path` from `v`: through lists (any element, or the numbered one) and maps. */
function walk(v: unknown, t: FieldType, path: string[], i: number, leaf: Leaf, missing: boolean): boolean {
  if (i === path.length) return leaf(v);
  const seg = path[i] as string;
  if (isList(t)) {
    const items = Array.isArray(v) ? v : [];
    if (!/^\d+$/.test(seg)) return items.some((x) => walk(x, t.list, path, i, leaf, missing));
    const n = Number(seg);
    return n < items.length ? walk(items[n], t.list, path, i + 1, leaf, missing) : missing;
  }
  if (!isObj(v) || !Object.hasOwn(v, seg)) return missing;
  const next = isMap(t) ? t.map : typeof t === 'object' ? (t.struct[seg] as FieldType) : t;
  return walk(v[seg], next, path, i + 1, leaf, missing);
}

function compile(e: Expr, schema: FieldType, patterns: Patterns): Predicate {
  if (e.kind === 'not') {
    const p = compile(e.operand, schema, patterns);
    return (x) => !p(x);
  }
  if (e.kind !== 'match') {
    const [l, r] = [compile(e.left, schema, patterns), compile(e.right, schema, patterns)];
    return e.kind === 'and' ? (x) => l(x) && r(x) : (x) => l(x) || r(x);
  }
  const shown = e.selector.join('.');
  const t = resolve(e.selector, schema, shown);
  const positive = NEGATED[e.op] ?? e.op;
  const leaf = leafFor(positive, t, e.value ?? '', shown, patterns);
  const test: Leaf = positive === e.op ? leaf : (v) => !leaf(v);
  const missing = TRUE_WHEN_MISSING.has(e.op);
  return (x) => walk(x, schema, e.selector, 0, test, missing);
}

/** Keeps the items whose shape the expression accepts; the identity without an expression. */
export type ItemFilter = <T>(items: T[], shape?: (item: T) => unknown) => T[];

export function compileFilter(text: string | null, schema: FieldType | undefined, where: string): ItemFilter {
  if (text === null) return (items) => items;
  if (!schema) throw filterError(`filtering is not supported on ${where}`);
  const expr = parseFilter(text);
  const patterns = new Patterns();
  const predicate = compile(expr, schema, patterns);
  return (items, shape = (x) => x) => {
    patterns.startEvaluation();
    return items.filter((x) => predicate(shape(x)));
  };
}
