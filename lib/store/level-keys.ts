/**
 * The embedded store's layout in LevelDB (lib/store/level-store.ts): pure functions, no I/O.
 *
 * Keys are UTF-8 bytes; LevelDB orders them bytewise, as DynamoDB orders string keys.
 *   h <partition> 00 00 <key>                                  an item (its "head")
 *   x <partition> 00 00 <index> 00 00 <sort> 00 00 <key>       an index entry (empty value)
 *   m <name>                                                   the store's own records
 * Every component but the last has its 00 bytes written as 00 01, so 00 00 ends it and the
 * order of the escaped bytes is the order of the strings.
 *
 * An item's value: a one-line JSON header {"ver":N,"n"?:counter,"ix"?:[index,sort]}, then, when
 * the item has a JSON value (put), a newline and the value's JSON text. A counter made only by
 * `increment` has no value text.
 */

export const HEAD = 0x68; // 'h'
export const INDEX = 0x78; // 'x'
export const META = 0x6d; // 'm'
const END = Buffer.from([0, 0]);
const TOP = Buffer.from([0xff]); // never in UTF-8: above every continuation of a prefix

const escape = (s: string) => (s.includes('\0') ? s.replaceAll('\0', '\0\x01') : s);
const unescape = (s: string) => (s.includes('\0') ? s.replaceAll('\0\x01', '\0') : s);

/** The bytes that start every head key of a partition. */
export function headBase(partition: string): Buffer {
  return Buffer.concat([Buffer.from([HEAD]), Buffer.from(escape(partition)), END]);
}

/** The bytes that start every entry of one index of a partition. */
export function indexBase(partition: string, index: string): Buffer {
  return Buffer.concat([Buffer.from([INDEX]), Buffer.from(escape(partition)), END, Buffer.from(escape(index)), END]);
}

export const headKey = (base: Buffer, key: string) => Buffer.concat([base, Buffer.from(key)]);

export function indexKey(base: Buffer, sort: string, key: string): Buffer {
  return Buffer.concat([base, Buffer.from(escape(sort)), END, Buffer.from(key)]);
}

export const metaKey = (name: string) => Buffer.concat([Buffer.from([META]), Buffer.from(name)]);

/** Range bounds of the keys that start with `prefix`. */
export function prefixRange(prefix: Buffer): { gte: Buffer; lt: Buffer } {
  return { gte: prefix, lt: Buffer.concat([prefix, TOP]) };
}

/** Bounds of an index's entries whose sort value is in [from, to] (inclusive, each optional). */
export function indexRange(base: Buffer, from?: string, to?: string): { gte: Buffer; lt: Buffer } {
  return {
    gte: from === undefined ? base : Buffer.concat([base, Buffer.from(escape(from)), END]),
    lt: Buffer.concat(to === undefined ? [base, TOP] : [base, Buffer.from(escape(to)), END, TOP]),
  };
}

/** The item key of a head key. */
export const keyOfHead = (raw: Buffer, base: Buffer) => raw.subarray(base.length).toString('utf8');

/** The sort value and item key of an index entry. */
export function parseIndexKey(raw: Buffer, base: Buffer): { sort: string; key: string } {
  const rest = raw.subarray(base.length);
  const end = rest.indexOf(END);
  if (end < 0) throw new Error('malformed index entry');
  return { sort: unescape(rest.subarray(0, end).toString('utf8')), key: rest.subarray(end + 2).toString('utf8') };
}

/** Partition, kind and the rest of a raw key (for integrity checks and migration). */
export function splitRaw(raw: Buffer): { kind: number; partition: string; rest: Buffer } | undefined {
  const end = raw.indexOf(END, 1);
  if ((raw[0] !== HEAD && raw[0] !== INDEX) || end < 0) return undefined;
  return { kind: raw[0], partition: unescape(raw.subarray(1, end).toString('utf8')), rest: raw.subarray(end + 2) };
}

export interface ItemRecord {
  ver: number;
  /** Counter value (increment). */
  n?: number;
  /** The index entry the item has, [index name, sort]. */
  ix?: [string, string];
  /** JSON text of the value. */
  v?: string;
}

export function encodeRecord(r: ItemRecord): Buffer {
  let head = `{"ver":${r.ver}`;
  if (r.n !== undefined) head += `,"n":${r.n}`;
  if (r.ix) head += `,"ix":${JSON.stringify(r.ix)}`;
  head += '}';
  return Buffer.from(r.v === undefined ? head : `${head}\n${r.v}`);
}

export function decodeRecord(raw: Buffer): ItemRecord {
  const nl = raw.indexOf(0x0a);
  const head = JSON.parse(raw.toString('utf8', 0, nl < 0 ? raw.length : nl)) as ItemRecord;
  if (nl >= 0) head.v = raw.toString('utf8', nl + 1);
  return head;
}

/** The value a record reads as: its JSON value, else its counter. */
export function valueOf<T>(r: ItemRecord): T {
  if (r.v === undefined && r.n !== undefined) return r.n as T;
  return JSON.parse(r.v ?? 'null') as T;
}
