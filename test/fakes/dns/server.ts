/**
 * A small authoritative DNS server for tests, speaking the real wire protocol on 127.0.0.1 over
 * UDP and TCP (one port for both): A, AAAA and TXT records (several per name), NXDOMAIN for a
 * name it does not know, NODATA for a known name without the type, the zone's SOA in negative
 * answers, REFUSED outside its zones. Records are set through the programmatic API or, for
 * other processes (certbot's --manual-auth-hook, lego's `--dns exec` program: see hook.mjs), an
 * HTTP control endpoint:
 *
 *   curl -X POST   <control>/records -d '{"name":"_acme-challenge.a.acme.test","type":"TXT","value":"..."}'
 *   curl -X DELETE <control>/records -d '{"name":"_acme-challenge.a.acme.test","type":"TXT","value":"..."}'
 *   curl           <control>/records        (every record, as JSON)
 *
 * A DELETE without `value` removes every value of the type at the name. TTLs are 0 (nothing is
 * cached between a change and the next question).
 */
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { encodeResponse, errorResponse, FormatError, idOf, parseQuery, RCODE, TYPES, type Query } from './wire';
import { nameTypeProblem, recordProblem, Zone, type DnsRecord, type RecordType } from './zone';

export type { DnsRecord, RecordType } from './zone';

export interface DnsQueryLog {
  name: string;
  /** the type's mnemonic when known (A, AAAA, TXT, SOA, ...), else its number */
  type: string;
  transport: 'udp' | 'tcp';
}

export interface DnsFakeOptions {
  /** The zones served (a name outside them is REFUSED); default the whole tree. */
  zones?: string[];
  /** Records to start with. */
  records?: DnsRecord[];
}

export interface DnsFake {
  host: string;
  port: number;
  /** `127.0.0.1:<port>`, as config/acme dns_resolver and lego's --dns.resolvers take it. */
  address: string;
  /** Base URL of the HTTP control endpoint (`<control>/records`). */
  controlUrl: string;
  /** Every question answered, in order; clear with `queries.length = 0`. */
  queries: DnsQueryLog[];
  add(name: string, type: RecordType, value: string): void;
  /** Removes one value, or every value of the type when `value` is omitted. */
  remove(name: string, type: RecordType, value?: string): void;
  /** Replaces every value of the type at the name. */
  set(name: string, type: RecordType, values: string[]): void;
  records(): DnsRecord[];
  clear(): void;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const UDP_LIMIT = 512;
const MAX_CONTROL_BODY = 16 * 1024;
const TYPE_NAMES = new Map<number, string>(Object.entries(TYPES).map(([k, v]) => [v, k]));

export async function startDnsFake(options: DnsFakeOptions = {}): Promise<DnsFake> {
  const zone = new Zone(options.zones ?? ['']);
  for (const r of options.records ?? []) zone.add(r);
  const queries: DnsQueryLog[] = [];

  /** The response bytes for a query message (undefined: drop it, as for a response sent to us). */
  const respond = (msg: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined => {
    let q: Query;
    try {
      q = parseQuery(msg);
    } catch (e) {
      if (!(e instanceof FormatError) || msg.length < 12 || msg.readUInt16BE(2) & 0x8000) return undefined;
      return errorResponse(idOf(msg), RCODE.FORMERR);
    }
    queries.push({ name: q.name, type: TYPE_NAMES.get(q.type) ?? String(q.type), transport });
    const limit = transport === 'tcp' ? 65_535 : Math.max(UDP_LIMIT, Math.min(q.ednsSize ?? 0, 1232));
    if (q.opcode !== 0) return encodeResponse(q, { rcode: RCODE.NOTIMP, answers: [], authority: [] }, limit);
    if (q.qclass !== 1) return encodeResponse(q, { rcode: RCODE.REFUSED, answers: [], authority: [] }, limit);
    return encodeResponse(q, zone.answer(q.name, q.type), limit);
  };

  const { udp, tcp } = await listenBoth(respond);
  const port = (udp.address() as AddressInfo).port;
  const control = await listenControl(zone);
  const controlPort = (control.address() as AddressInfo).port;

  return {
    host: HOST,
    port,
    address: `${HOST}:${port}`,
    controlUrl: `http://${HOST}:${controlPort}`,
    queries,
    add: (name, type, value) => zone.add({ name, type, value }),
    remove: (name, type, value) => void zone.remove(name, type, value),
    set: (name, type, values) => zone.set(name, type, values),
    records: () => zone.records(),
    clear: () => zone.clear(),
    close: async () => {
      await Promise.all([
        new Promise<void>((r) => udp.close(() => r())),
        new Promise<void>((r) => tcp.close(() => r())),
        new Promise<void>((r) => {
          control.closeAllConnections();
          control.close(() => r());
        }),
      ]);
    },
  };
}

type Respond = (msg: Buffer, transport: 'udp' | 'tcp') => Buffer | undefined;

/** UDP on a free port, then TCP on the same port number (a few tries if TCP finds it taken). */
async function listenBoth(respond: Respond): Promise<{ udp: UdpSocket; tcp: TcpServer }> {
  for (let attempt = 0; ; attempt++) {
    const udp = createSocket('udp4');
    udp.on('message', (msg: Buffer, from: RemoteInfo) => {
      const out = respond(msg, 'udp');
      if (out) udp.send(out, from.port, from.address);
    });
    await new Promise<void>((res, rej) => {
      udp.once('error', rej);
      udp.bind(0, HOST, () => res());
    });
    const port = (udp.address() as AddressInfo).port;
    const tcp = createTcpServer((socket) => serveTcp(socket, respond));
    try {
      await new Promise<void>((res, rej) => {
        tcp.once('error', rej);
        tcp.listen(port, HOST, () => res());
      });
      return { udp, tcp };
    } catch (e) {
      await new Promise<void>((r) => udp.close(() => r()));
      if (attempt >= 5) throw e;
    }
  }
}

/** DNS over TCP: each message is preceded by its 2-byte length; several may come on one connection. */
function serveTcp(socket: Socket, respond: Respond): void {
  let buffered = Buffer.alloc(0);
  socket.on('error', () => socket.destroy());
  socket.setTimeout(10_000, () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 2) {
      const len = buffered.readUInt16BE(0);
      if (buffered.length < 2 + len) break;
      const msg = buffered.subarray(2, 2 + len);
      buffered = buffered.subarray(2 + len);
      const out = respond(msg, 'tcp');
      if (!out) continue;
      const head = Buffer.alloc(2);
      head.writeUInt16BE(out.length);
      socket.write(Buffer.concat([head, out]));
    }
  });
}

async function listenControl(zone: Zone): Promise<HttpServer> {
  const server = createHttpServer((req, res) => {
    handleControl(zone, req, res).catch(() => reply(res, 500, { error: 'internal error' }));
  });
  await new Promise<void>((res) => server.listen(0, HOST, () => res()));
  return server;
}

function reply(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CONTROL_BODY) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function handleControl(zone: Zone, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (new URL(req.url ?? '/', 'http://x').pathname !== '/records') return reply(res, 404, { error: 'only /records is served' });
  if (req.method === 'GET') return reply(res, 200, zone.records());
  if (req.method !== 'POST' && req.method !== 'DELETE') return reply(res, 405, { error: 'GET, POST or DELETE' });
  const text = await readBody(req);
  if (text === undefined) return reply(res, 413, { error: `body over ${MAX_CONTROL_BODY} bytes` });
  let body: { name?: unknown; type?: unknown; value?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return reply(res, 400, { error: 'body is not JSON' });
  }
  if (typeof body !== 'object' || body === null) return reply(res, 400, { error: 'body must be a JSON object' });
  if (req.method === 'DELETE' && body.value === undefined) {
    const problem = nameTypeProblem(body);
    if (problem) return reply(res, 400, { error: problem });
    return reply(res, 200, { removed: zone.remove(body.name as string, body.type as RecordType) });
  }
  const problem = recordProblem(body);
  if (problem) return reply(res, 400, { error: problem });
  const r = body as DnsRecord;
  if (req.method === 'POST') {
    zone.add(r);
    return reply(res, 204);
  }
  return reply(res, 200, { removed: zone.remove(r.name, r.type, r.value) });
}
