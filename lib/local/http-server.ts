/**
 * The local HTTP server: `listen` serves a fetch handler on loopback (or a given host) for the
 * local service and tests. A TCP server whose connections reach a node HTTP server through a
 * rewriting stream that accepts the LIST method (list-method.ts). The rewriting is in process:
 * each accepted socket is wrapped in a duplex that feeds the HTTP parser the socket's bytes,
 * framed and rewritten as they arrive, and writes answers straight to the socket, an answer's
 * parts in one write (node's HTTP server takes any duplex as a connection), with no second
 * socket or stream in between.
 */
import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { ListMethodFramer } from './list-method';

export interface Served {
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
}

type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Listens on `host` (default 127.0.0.1) and `port` (default any free one) and serves `fetch` there. */
export async function listen(fetch: FetchHandler, options: { port?: number; host?: string } = {}): Promise<Served> {
  const host = options.host ?? '127.0.0.1';
  const http = createAdaptorServer({ fetch }) as Server;
  const sockets = new Set<Socket>();
  const front = createTcpServer((client) => {
    // No Nagle: an answer written in parts would otherwise wait for a delayed ACK (~40 ms).
    client.setNoDelay(true);
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    http.emit('connection', rewritingConnection(client));
  });
  await new Promise<void>((ok, fail) => {
    front.once('error', fail);
    front.listen(options.port ?? 0, host, () => ok());
  });
  const { port, address } = front.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    port,
    host: address,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => front.close(() => r()));
      http.closeAllConnections();
    },
  };
}

/**
 * The connection the HTTP server sees: reads are the client's bytes with LIST rewritten, writes
 * go to the client socket; the socket's addresses (the audit log's remote address) and its
 * timeout and keep-alive settings are the client's.
 */
function rewritingConnection(client: Socket): Duplex {
  const conn = writingTo(client);
  feedRewritten(client, conn);
  actAsSocket(conn, client);
  return conn;
}

/** A duplex whose writes go to the client socket (an answer's parts in one write) and whose reads resume it. */
function writingTo(client: Socket): Duplex {
  return new Duplex({
    read() {
      client.resume();
    },
    write(chunk: Buffer, _enc, done) {
      if (client.destroyed) return done(new Error('the client socket is closed'));
      client.write(chunk, done);
    },
    // node:http corks the connection and writes an answer's head and body as separate chunks:
    // one write (one syscall, one TCP segment) for them all instead of one each.
    writev(chunks: { chunk: Buffer }[], done) {
      if (client.destroyed) return done(new Error('the client socket is closed'));
      client.write(chunks.length === 1 ? chunks[0]!.chunk : Buffer.concat(chunks.map((c) => c.chunk)), done);
    },
    final(done) {
      client.end();
      done();
    },
    destroy(err, done) {
      client.destroy();
      done(err);
    },
  });
}

/** Pushes the client's bytes, framed and with LIST rewritten, into `conn`; its end, errors and close follow the client's. */
function feedRewritten(client: Socket, conn: Duplex): void {
  const framer = new ListMethodFramer();
  // The parser reads what the framer passes on; the socket waits while the parser is behind.
  const pass = (parts: Buffer[]) => parts.reduce((more, part) => conn.push(part) && more, true);
  client.on('data', (d: Buffer) => {
    if (!pass(framer.feed(d))) client.pause();
  });
  client.on('end', () => {
    pass(framer.flush());
    conn.push(null);
  });
  client.on('error', (e) => conn.destroy(e));
  client.on('close', () => conn.destroy());
}

/** What node's HTTP server asks of a socket, answered by the client's: its addresses, timeout, no-delay and keep-alive. */
function actAsSocket(conn: Duplex, client: Socket): void {
  const socketLike = conn as Duplex & Record<string, unknown>;
  for (const name of ['remoteAddress', 'remotePort', 'remoteFamily', 'localAddress', 'localPort'] as const) {
    Object.defineProperty(socketLike, name, { get: () => client[name] });
  }
  socketLike.setTimeout = (ms: number, cb?: () => void) => {
    client.setTimeout(ms, cb);
    return conn;
  };
  socketLike.setNoDelay = (on?: boolean) => {
    client.setNoDelay(on);
    return conn;
  };
  socketLike.setKeepAlive = (on?: boolean, delay?: number) => {
    client.setKeepAlive(on, delay);
    return conn;
  };
  client.on('timeout', () => conn.emit('timeout'));
}
