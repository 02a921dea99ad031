/**
 * TransactWriteItems for dynalite (4.0.0 has none), for the tests and the embedded server.
 *
 * The request is checked item by item with dynalite's own validations of PutItem, DeleteItem and
 * UpdateItem (a ConditionCheck as a DeleteItem that must have a condition). Then, holding
 * dynalite's own item locks on every item of the transaction (so no single-item write of
 * dynalite interleaves), every condition is evaluated with dynalite's `checkConditional` before
 * anything is written. If one fails, nothing is written and the answer is DynamoDB's
 * TransactionCanceledException with a reason per item, in the shape DynamoDB Local gives. If all
 * hold, dynalite's own putItem, deleteItem and updateItem actions run against a staging view of
 * its store (same table, the items read under the locks, writes recorded instead of made), and
 * what they staged, items and index entries, is written as ONE LevelDB batch: all or nothing.
 * ClientRequestToken (which the AWS SDK always sends) is honoured as DynamoDB does: a repeat of a
 * request that succeeded, with the same token and the same items, within 10 minutes, answers success
 * without writing again; the same token with other items is an IdempotentParameterMismatchException.
 * ReturnConsumedCapacity / ReturnItemCollectionMetrics other than NONE are not supported: refused
 * with a ValidationException naming the parameter, never answered as if honoured.
 */
import { createRequire } from 'node:module';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

const require = createRequire(import.meta.url);

type Json = Record<string, unknown>;
type Callback<T = unknown> = (err: DynaliteError | null | undefined, value?: T) => void;
interface DynaliteError extends Error {
  statusCode?: number;
  body?: Json;
  name: string;
}
interface Table {
  TableName: string;
}
interface LevelLike {
  get(key: string, cb: Callback<Json>): void;
  put(key: string, value: Json, cb: Callback): void;
  del(key: string, cb: Callback): void;
  batch(ops: BatchOp[], cb: Callback): void;
}
interface ItemDb extends LevelLike {
  lock(keys: string[], exec: (release: (done: () => void) => () => void) => void): void;
}
interface DynaliteStore {
  options: { maxItemSize: number };
  db: LevelLike;
  getTable(name: string, checkStatus: boolean | Callback<Table>, cb?: Callback<Table>): void;
  getItemDb(table: string): ItemDb;
  getIndexDb(type: string, table: string, index: string): LevelLike;
}
type BatchOp = { type: 'put'; key: string; value: Json } | { type: 'del'; key: string };
type Action = (store: unknown, data: Json, cb: Callback<Json>) => void;
interface Validation {
  types: Json;
  custom: unknown;
}

const db = require('dynalite/db') as {
  create(options: object): DynaliteStore;
  validateKey(key: unknown, table: Table): DynaliteError | null | undefined;
  validateItem(item: unknown, table: Table): DynaliteError | null | undefined;
  validateUpdates(a: unknown, u: unknown, table: Table): DynaliteError | null | undefined;
  createKey(item: unknown, table: Table): string;
  checkConditional(data: Json, existing: Json | undefined): DynaliteError | null | undefined;
  validationError(message: string): DynaliteError;
};
const validations = require('dynalite/validations') as {
  checkTypes(data: Json, types: Json): Json;
  checkValidations(data: Json, types: Json, custom: unknown, store: DynaliteStore): void;
};
const dynalite = require('dynalite') as (o: object) => Server;

/** The kinds of item, with the single-item action and validation each borrows. */
const KINDS = {
  Put: { action: 'putItem', keyOf: 'Item' },
  Delete: { action: 'deleteItem', keyOf: 'Key' },
  Update: { action: 'updateItem', keyOf: 'Key' },
  ConditionCheck: { action: 'deleteItem', keyOf: 'Key' },
} as const;
type Kind = keyof typeof KINDS;
const TARGET = 'DynamoDB_20120810.TransactWriteItems';

interface Op {
  kind: Kind;
  data: Json;
  table?: Table;
  key?: string;
  returnOld: boolean;
}

/** dynalite's server, answering TransactWriteItems too. */
export function dynaliteWithTransactions(options: object): Server {
  // dynalite keeps its store to itself: catch it as dynalite creates it.
  const create = db.create;
  let store: DynaliteStore | undefined;
  db.create = (o) => (store = create(o));
  let server: Server;
  try {
    server = dynalite(options);
  } finally {
    db.create = create;
  }
  const [inner] = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  const done = new Map<string, { items: string; until: number }>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.headers['x-amz-target'] !== TARGET) return inner!(req, res);
    readBody(req)
      .then((body) => answer(store!, req, body, done))
      .then(
        ([status, out]) => send(req, res, status, out),
        (e: unknown) => send(req, res, 500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: String(e) }),
      );
  });
  return server;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function send(req: IncomingMessage, res: ServerResponse, status: number, body: Json): void {
  const text = JSON.stringify(body);
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
  res.statusCode = status;
  res.setHeader('x-amzn-RequestId', randomBytes(39).toString('base64').toUpperCase().replace(/\+|\//g, '0'));
  res.setHeader('Content-Type', type === 'application/x-amz-json-1.0' ? type : 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

const fail = (e: DynaliteError): [number, Json] => [e.statusCode ?? 400, e.body ?? { message: e.message }];
const isDynaliteError = (e: unknown): e is DynaliteError => e instanceof Error && 'statusCode' in e && 'body' in e;

/** Successful requests by ClientRequestToken (their items as JSON), for DynamoDB's 10-minute idempotency window. */
type Done = Map<string, { items: string; until: number }>;
const IDEMPOTENCY_MS = 10 * 60_000;

async function answer(store: DynaliteStore, req: IncomingMessage, body: string, done: Done): Promise<[number, Json]> {
  const auth = req.headers.authorization;
  if (!auth || !auth.trim().startsWith('AWS4-'))
    return [
      400,
      { __type: 'com.amazon.coral.service#MissingAuthenticationTokenException', message: 'Request is missing Authentication Token' },
    ];
  let data: Json;
  try {
    data = JSON.parse(body) as Json;
  } catch {
    return [400, { __type: 'com.amazon.coral.service#SerializationException' }];
  }
  try {
    refuseUnsupported(data);
    const repeat = idempotentRepeat(data, done);
    if (repeat) return repeat;
    const ops = parse(store, data.TransactItems);
    await resolveTables(store, ops);
    const out = await run(store, ops);
    if (out[0] === 200 && typeof data.ClientRequestToken === 'string') remember(data, done);
    return out;
  } catch (e) {
    if (isDynaliteError(e)) return fail(e);
    throw e;
  }
}

/** The answer to a repeat of a request that succeeded (the same token and items, in the window); a mismatch is refused. */
function idempotentRepeat(data: Json, done: Done): [number, Json] | undefined {
  const token = data.ClientRequestToken;
  if (token === undefined) return undefined;
  if (typeof token !== 'string' || token.length < 1 || token.length > 36)
    throw db.validationError('ClientRequestToken must be a string of 1 to 36 characters');
  const seen = done.get(token);
  if (!seen || seen.until <= Date.now()) return undefined;
  if (seen.items !== JSON.stringify(data.TransactItems))
    return [
      400,
      {
        __type: 'com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException',
        message: 'The request uses the same client token as a previous, but non-identical request.',
      },
    ];
  return [200, {}];
}

function remember(data: Json, done: Done): void {
  const now = Date.now();
  if (done.size >= 10_000) for (const [k, v] of done) if (v.until <= now || done.size >= 10_000) done.delete(k);
  done.set(data.ClientRequestToken as string, { items: JSON.stringify(data.TransactItems), until: now + IDEMPOTENCY_MS });
}

/** Parameters this emulation does not honour: refused by name rather than ignored. */
function refuseUnsupported(data: Json): void {
  for (const name of ['ReturnConsumedCapacity', 'ReturnItemCollectionMetrics'] as const) {
    if (data[name] !== undefined && data[name] !== 'NONE')
      throw db.validationError(`${name} other than NONE is not supported by this dynalite`);
  }
}

/** Each item checked as its single-item request would be. */
function parse(store: DynaliteStore, items: unknown): Op[] {
  const length = (m: string) => db.validationError(m);
  if (!Array.isArray(items)) throw length("Value null at 'transactItems' failed to satisfy constraint: Member must not be null");
  if (!items.length)
    throw length("Value [] at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1");
  if (items.length > 100) throw length('Member must have length less than or equal to 100');
  return items.map((item: unknown, i) => {
    const kinds = Object.keys((item ?? {}) as Json).filter((k): k is Kind => k in KINDS);
    if (kinds.length !== 1) throw db.validationError('TransactItems can only contain one of Check, Put, Update or Delete');
    const kind = kinds[0]!;
    const raw = { ...((item as Json)[kind] as Json) };
    if (kind === 'ConditionCheck' && raw.ConditionExpression == null)
      throw db.validationError(
        `Value null at 'transactItems.${i + 1}.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null`,
      );
    const returnOld = raw.ReturnValuesOnConditionCheckFailure === 'ALL_OLD';
    const v = require(`dynalite/validations/${KINDS[kind].action}`) as Validation;
    const data = validations.checkTypes(raw, v.types);
    validations.checkValidations(data, v.types, v.custom, store);
    return { kind, data, returnOld };
  });
}

const getTable = (store: DynaliteStore, name: string) =>
  new Promise<Table>((resolve, reject) => store.getTable(name, false, (err, table) => (err ? reject(err) : resolve(table!))));

/** Finds each item's table, checks its key (or item, or updates) and refuses two ops on one item. */
async function resolveTables(store: DynaliteStore, ops: Op[]): Promise<void> {
  const tables = new Map<string, Table>();
  for (const op of ops) {
    const name = String(op.data.TableName);
    if (!tables.has(name)) tables.set(name, await getTable(store, name));
    op.table = tables.get(name)!;
  }
  const seen = new Set<string>();
  for (const op of ops) {
    const t = op.table!;
    const invalid =
      op.kind === 'Put'
        ? db.validateItem(op.data.Item, t)
        : (db.validateKey(op.data.Key, t) ?? (op.kind === 'Update' ? db.validateUpdates(undefined, op.data._updates, t) : null));
    if (invalid) throw invalid;
    op.key = db.createKey(op.data[KINDS[op.kind].keyOf], t);
    const id = `${t.TableName}\u0000${op.key}`;
    if (seen.has(id)) throw db.validationError('Transaction request cannot include multiple operations on one item');
    seen.add(id);
  }
}

/** Takes dynalite's item locks on every item, table by table in name order; resolves to a release. */
async function lockAll(store: DynaliteStore, ops: Op[]): Promise<() => void> {
  const byTable = new Map<string, string[]>();
  for (const op of ops) byTable.set(op.table!.TableName, [...(byTable.get(op.table!.TableName) ?? []), op.key!]);
  const releases: (() => void)[] = [];
  for (const name of [...byTable.keys()].sort()) {
    const itemDb = store.getItemDb(name);
    releases.push(await new Promise<() => void>((resolve) => itemDb.lock(byTable.get(name)!, (release) => resolve(release(() => {})))));
  }
  return () => releases.reverse().forEach((r) => r());
}

const getItem = (itemDb: ItemDb, key: string) =>
  new Promise<Json | undefined>((resolve, reject) =>
    itemDb.get(key, (err, value) => (err && err.name !== 'NotFoundError' ? reject(err) : resolve(err ? undefined : value))),
  );

async function run(store: DynaliteStore, ops: Op[]): Promise<[number, Json]> {
  const release = await lockAll(store, ops);
  try {
    const existing = await Promise.all(ops.map((op) => getItem(store.getItemDb(op.table!.TableName), op.key!)));
    const reasons = ops.map((op, i) => {
      if (!db.checkConditional(op.data, existing[i])) return { Code: 'None' };
      const item = op.returnOld && existing[i] ? { Item: existing[i] } : {};
      return { ...item, Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };
    });
    if (reasons.some((r) => r.Code !== 'None')) return [400, cancelled(reasons)];
    const staged: BatchOp[] = [];
    for (const [i, op] of ops.entries()) if (op.kind !== 'ConditionCheck') await stage(store, op, existing[i], staged);
    await new Promise<void>((resolve, reject) => store.db.batch(staged, (err) => (err ? reject(err) : resolve())));
    return [200, {}];
  } finally {
    release();
  }
}

function cancelled(reasons: { Code: string }[]): Json {
  return {
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    CancellationReasons: reasons,
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
  };
}

/**
 * Runs dynalite's own single-item action for `op` against a view of the store in which the item
 * reads as `existing`, locks are already held and writes are recorded into `staged` (as keys of
 * dynalite's one LevelDB: its sub-databases are key prefixes). The condition was checked already.
 */
function stage(store: DynaliteStore, op: Op, existing: Json | undefined, staged: BatchOp[]): Promise<void> {
  const later = (cb: Callback) => queueMicrotask(() => cb(null));
  const recorder = (prefix: string) => ({
    put: (key: string, value: Json, cb: Callback) => (staged.push({ type: 'put', key: prefix + key, value }), later(cb)),
    del: (key: string, cb: Callback) => (staged.push({ type: 'del', key: prefix + key }), later(cb)),
  });
  const table = op.table!;
  const view = {
    options: store.options,
    getTable: (_name: string, cb: Callback<Table>) => queueMicrotask(() => cb(null, table)),
    getItemDb: () => ({
      ...recorder(`item-${table.TableName}~`),
      lock: (_key: string, exec: (release: (cb: Callback) => Callback) => void) => exec((cb) => cb),
      get: (_key: string, cb: Callback<Json>) => queueMicrotask(() => cb(null, existing)),
    }),
    getIndexDb: (type: string, tableName: string, index: string) => recorder(`index-${type.toLowerCase()}~${tableName}~${index}~`),
  };
  const data = { ...op.data };
  delete data._condition;
  const action = require(`dynalite/actions/${KINDS[op.kind].action}`) as Action;
  return new Promise((resolve, reject) => action(view, data, (err) => (err ? reject(err) : resolve())));
}
