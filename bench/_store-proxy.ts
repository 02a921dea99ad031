/**
 * A DynamoDB-compatible store with a fixed delay per call: the embedded dynalite
 * (lib/store/embedded.ts, with the operations Latchkey adds to it) behind a small HTTP proxy
 * that holds every JSON call (X-Amz-Target) for `delayMs` before forwarding it, and records
 * each call's operation, the keys it names, and when it arrived and when its answer was sent
 * (performance.timeOrigin + now, comparable with the same clock in other processes on this
 * machine). The delay stands in for DynamoDB's network round trip, so that calls made one after
 * another and calls made together differ in time as they do on Lambda.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmbeddedDynamo } from '../lib/store/embedded';

export interface StoreCall {
  /** The operation: X-Amz-Target without its `DynamoDB_20120810.` prefix. */
  op: string;
  /** The keys the call names, `pk | sk` (a query: its partition and sort prefix or range). */
  keys: string[];
  /** A write's condition, when it has one. */
  condition?: string;
  start: number;
  end: number;
  status: number;
}

export interface StoreProxy {
  endpoint: string;
  /** Calls that arrived since the last `take()`, once every one has been answered; forgotten here. */
  take(): Promise<StoreCall[]>;
  close(): Promise<void>;
}

const now = () => performance.timeOrigin + performance.now();

type Attr = Record<string, { S?: string; N?: string }>;
/** A key of the table's shape as `pk | sk`, control characters shown. */
const keyText = (k: Attr | undefined): string => [k?.pk?.S ?? k?.ipk?.S ?? '?', k?.sk?.S ?? k?.isk?.S ?? ''].map(visible).join(' | ');
/** Control characters shown; hashes and random ids cut to their first 12 characters (enough to tell them apart in a trace). */
const visible = (s: string) =>
  s
    .replace(/\u0000/g, '\\0')
    .replace(/\u0001/g, '\\1')
    .replace(/[0-9a-f]{32,}/g, (h) => `${h.slice(0, 12)}…`);

interface Body {
  Key?: Attr;
  Item?: Attr;
  ConditionExpression?: string;
  KeyConditionExpression?: string;
  ExpressionAttributeValues?: Attr;
  RequestItems?: Record<string, { Keys?: Attr[] } | { PutRequest?: { Item: Attr }; DeleteRequest?: { Key: Attr } }[]>;
  TransactItems?: Record<string, { Key?: Attr; Item?: Attr; ConditionExpression?: string }>[];
}

/** A query's key condition with its values in place: `pk = x AND begins_with(sk, y)`. */
function queryText(b: Body): string {
  const values = b.ExpressionAttributeValues ?? {};
  return (b.KeyConditionExpression ?? '').replace(/:[A-Za-z0-9_]+/g, (name) => JSON.stringify(visible(values[name]?.S ?? name)));
}

function batchKeys(items: NonNullable<Body['RequestItems']>): string[] {
  return Object.values(items).flatMap((v) =>
    Array.isArray(v)
      ? v.map((r) => (r.PutRequest ? `put ${keyText(r.PutRequest.Item)}` : `delete ${keyText(r.DeleteRequest?.Key)}`))
      : (v.Keys ?? []).map(keyText),
  );
}

/** What a call's body names, by the shape of its operation. */
export function describeCall(op: string, raw: string): { keys: string[]; condition?: string } {
  let b: Body;
  try {
    b = JSON.parse(raw || '{}') as Body;
  } catch {
    return { keys: [] };
  }
  const condition = b.ConditionExpression;
  if (b.Key || b.Item) return { keys: [keyText(b.Key ?? b.Item)], condition };
  if (b.KeyConditionExpression) return { keys: [queryText(b)] };
  if (b.RequestItems) return { keys: batchKeys(b.RequestItems) };
  if (b.TransactItems) {
    const keys = b.TransactItems.flatMap((t) =>
      Object.entries(t).map(
        ([kind, x]) => `${kind} ${keyText(x.Key ?? x.Item)}${x.ConditionExpression ? ` if ${x.ConditionExpression}` : ''}`,
      ),
    );
    return { keys };
  }
  return { keys: op === 'DescribeTable' || op === 'ListTables' ? [] : ['(no key)'] };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Sends the call on to dynalite and its answer back; `done` runs just before the answer is
 * written, so a call's end is never later than the moment its caller can see the answer (a call
 * sent after this one's answer always starts after this one's end).
 */
function forward(target: { port: number }, req: IncomingMessage, body: Buffer, res: ServerResponse, done: (status: number) => void) {
  const out = request({ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    void readBody(answer).then((payload) => {
      const status = answer.statusCode ?? 500;
      done(status);
      res.writeHead(status, answer.headers).end(payload);
    });
  });
  out.on('error', () => (done(502), res.writeHead(502).end()));
  out.end(body);
}

export async function startStoreProxy(delayMs: number): Promise<StoreProxy> {
  const store = await startEmbeddedDynamo();
  const target = { port: Number(new URL(store.endpoint).port) };
  let calls: StoreCall[] = [];
  let inFlight = 0;
  const proxy = createServer((req, res) => {
    const call: StoreCall = { op: '', keys: [], start: now(), end: NaN, status: 0 };
    const amzTarget = String(req.headers['x-amz-target'] ?? '');
    call.op = amzTarget.slice(amzTarget.indexOf('.') + 1);
    calls.push(call);
    inFlight++;
    void readBody(req).then((body) => {
      Object.assign(call, describeCall(call.op, body.toString('utf8')));
      setTimeout(
        () =>
          forward(target, req, body, res, (status) => {
            Object.assign(call, { end: now(), status });
            inFlight--;
          }),
        delayMs,
      );
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  const close = (s: Server) => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    take: async () => {
      // A call sent just before the handler returned may still be on its way back.
      for (let i = 0; inFlight > 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 5));
      const out = calls;
      calls = [];
      return out;
    },
    close: async () => (await close(proxy), await store.close()),
  };
}
