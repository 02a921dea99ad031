/**
 * Pure builders of DynamoDB request parameters. Nothing here does I/O; dynamo-store.ts sends.
 */
import type {
  AttributeValue,
  DeleteItemCommandInput,
  GetItemCommandInput,
  QueryCommandInput,
  UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { InvalidInput } from '../domain-errors';
import { INDEX_NAME } from './table';
import type { IndexEntry, IndexRange, ListOptions } from './store';

/** Largest JSON text kept inline in one item; larger values are split into chunk items. */
export const INLINE_LIMIT = 300_000;
export const CHUNK_SIZE = 300_000;
/** Chunks live in a sibling partition so prefix listings never see them. */
export const chunkPartition = (partition: string) => `${partition}\u0001chunks`;
export const chunkKey = (key: string, gen: string, i: number) => `${key}\u0000${gen}\u0000${String(i).padStart(6, '0')}`;
export const chunkPrefix = (key: string, gen: string) => `${key}\u0000${gen}\u0000`;
export const indexPartition = (partition: string, name: string) => `${partition}\u0001${name}`;

const S = (s: string): AttributeValue => ({ S: s });
const N = (n: number): AttributeValue => ({ N: String(n) });

export function getParams(table: string, pk: string, sk: string): GetItemCommandInput {
  return { TableName: table, Key: { pk: S(pk), sk: S(sk) }, ConsistentRead: true };
}

export interface HeadWrite {
  /** Inline JSON text, or undefined when the value is chunked. */
  inline?: string;
  chunks?: { count: number; gen: string };
  ifAbsent?: boolean;
  ifVersion?: number;
  index?: IndexEntry | null;
}

/** One UpdateItem that writes the head item, bumps `ver` and applies the condition. */
export function putParams(table: string, pk: string, sk: string, w: HeadWrite): UpdateItemCommandInput {
  const set = ['ver = if_not_exists(ver, :zero) + :one'];
  const remove: string[] = [];
  const values: Record<string, AttributeValue> = { ':zero': N(0), ':one': N(1) };
  if (w.inline !== undefined) {
    set.push('v = :v');
    values[':v'] = S(w.inline);
    remove.push('nch', 'gen');
  } else if (w.chunks) {
    set.push('nch = :nch', 'gen = :gen');
    values[':nch'] = N(w.chunks.count);
    values[':gen'] = S(w.chunks.gen);
    remove.push('v');
  }
  if (w.index) {
    set.push('ipk = :ipk', 'isk = :isk');
    values[':ipk'] = S(indexPartition(pk, w.index.name));
    values[':isk'] = S(w.index.sort);
  } else if (w.index === null) {
    remove.push('ipk', 'isk');
  }
  let condition: string | undefined;
  if (w.ifAbsent) condition = 'attribute_not_exists(pk)';
  else if (w.ifVersion !== undefined) {
    condition = 'ver = :expected';
    values[':expected'] = N(w.ifVersion);
  }
  return {
    TableName: table,
    Key: { pk: S(pk), sk: S(sk) },
    UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
    ExpressionAttributeValues: values,
    ...(condition ? { ConditionExpression: condition } : {}),
    ReturnValues: 'ALL_OLD',
  };
}

export function deleteParams(table: string, pk: string, sk: string, ifVersion?: number): DeleteItemCommandInput {
  return {
    TableName: table,
    Key: { pk: S(pk), sk: S(sk) },
    ReturnValues: 'ALL_OLD',
    ...(ifVersion !== undefined
      ? { ConditionExpression: 'ver = :expected', ExpressionAttributeValues: { ':expected': N(ifVersion) } }
      : {}),
  };
}

export function incrementParams(table: string, pk: string, sk: string, by: number): UpdateItemCommandInput {
  return {
    TableName: table,
    Key: { pk: S(pk), sk: S(sk) },
    UpdateExpression: 'ADD n :by, ver :one',
    ExpressionAttributeValues: { ':by': N(by), ':one': N(1) },
    ReturnValues: 'UPDATED_NEW',
  };
}

export function prefixQueryParams(
  table: string,
  pk: string,
  prefix: string,
  limit: number,
  startKey?: Record<string, AttributeValue>,
  keysOnly = false,
): QueryCommandInput {
  const values: Record<string, AttributeValue> = { ':pk': S(pk) };
  let cond = 'pk = :pk';
  if (prefix) {
    cond += ' AND begins_with(sk, :prefix)';
    values[':prefix'] = S(prefix);
  }
  return {
    TableName: table,
    KeyConditionExpression: cond,
    ExpressionAttributeValues: values,
    ConsistentRead: true,
    Limit: limit,
    ...(keysOnly ? { ProjectionExpression: 'sk' } : {}),
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

export function indexQueryParams(
  table: string,
  ipk: string,
  range: IndexRange,
  limit: number,
  startKey?: Record<string, AttributeValue>,
): QueryCommandInput {
  const values: Record<string, AttributeValue> = { ':ipk': S(ipk) };
  let cond = 'ipk = :ipk';
  if (range.from !== undefined && range.to !== undefined) {
    cond += ' AND isk BETWEEN :from AND :to';
    values[':from'] = S(range.from);
    values[':to'] = S(range.to);
  } else if (range.from !== undefined) {
    cond += ' AND isk >= :from';
    values[':from'] = S(range.from);
  } else if (range.to !== undefined) {
    cond += ' AND isk <= :to';
    values[':to'] = S(range.to);
  }
  return {
    TableName: table,
    IndexName: INDEX_NAME,
    KeyConditionExpression: cond,
    ExpressionAttributeValues: values,
    Limit: limit,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

export function encodeCursor(key: Record<string, AttributeValue> | undefined): string | undefined {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : undefined;
}

export function decodeCursor(cursor: string | undefined): Record<string, AttributeValue> | undefined {
  if (!cursor) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, AttributeValue>;
  } catch {
    // fall through
  }
  throw new Error('invalid cursor');
}

/** The string values of exactly the attributes `names`, or undefined when `key` has any other shape. */
function stringKey(key: Record<string, AttributeValue>, names: string[]): Record<string, string> | undefined {
  if (Object.keys(key).length !== names.length) return undefined;
  const out: Record<string, string> = {};
  for (const name of names) {
    const value: unknown = key[name];
    if (!value || typeof value !== 'object' || Object.keys(value).length !== 1) return undefined;
    const s: unknown = (value as { S?: unknown }).S;
    if (typeof s !== 'string') return undefined;
    out[name] = s;
  }
  return out;
}

/** DynamoDB orders strings by their UTF-8 bytes. */
const byteCompare = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Whether a decoded cursor is a start key that the prefix query over partition `pk` can continue from. */
export function isPrefixStartKey(key: Record<string, AttributeValue>, pk: string, prefix: string): boolean {
  const k = stringKey(key, ['pk', 'sk']);
  return k !== undefined && k.pk === pk && k.sk!.startsWith(prefix);
}

/** Whether a decoded cursor is a start key that the index query over `ipk` and `range` can continue from. */
export function isIndexStartKey(key: Record<string, AttributeValue>, pk: string, ipk: string, range: IndexRange): boolean {
  const k = stringKey(key, ['pk', 'sk', 'ipk', 'isk']);
  if (k === undefined || k.pk !== pk || k.ipk !== ipk) return false;
  if (range.from !== undefined && byteCompare(k.isk!, range.from) < 0) return false;
  return range.to === undefined || byteCompare(k.isk!, range.to) <= 0;
}

/** Items per page: what the caller asks, at most 1,000 (both stores page the same). */
const MAX_PAGE = 1000;

export function pageSize(o: ListOptions): number {
  return Math.max(1, Math.min(MAX_PAGE, o.limit ?? MAX_PAGE));
}

/** A list cursor's start key, refused unless it is a start key of this very query (as on DynamoDB). */
export function startKeyOf(
  cursor: string | undefined,
  fits: (key: Record<string, AttributeValue>) => boolean,
): Record<string, AttributeValue> | undefined {
  let key: Record<string, AttributeValue> | undefined;
  try {
    key = decodeCursor(cursor);
  } catch {
    throw new InvalidInput('invalid list cursor');
  }
  if (key && !fits(key)) throw new InvalidInput('invalid list cursor');
  return key;
}
