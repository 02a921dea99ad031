/**
 * Serves a fetch handler on loopback for the local service and tests: a node HTTP server on an
 * internal port behind a TCP front that accepts the LIST method (list-method.ts).
 */
import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import { createServer as createTcpServer, connect, type AddressInfo, type Socket } from 'node:net';
import { ListMethodRewriter } from './list-method';

export interface Served {
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
}

type FetchHandler = (request: Request) => Response | Promise<Response>;

export async function serve(fetch: FetchHandler, options: { port?: number; host?: string } = {}): Promise<Served> {
  const host = options.host ?? '127.0.0.1';
  const http = createAdaptorServer({ fetch }) as Server;
  await new Promise<void>((ok, fail) => {
    http.once('error', fail);
    http.listen(0, '127.0.0.1', () => ok());
  });
  const inner = (http.address() as AddressInfo).port;
  const sockets = new Set<Socket>();
  const front = createTcpServer((client) => {
    const upstream = connect(inner, '127.0.0.1');
    // No Nagle on the relay: a request with a body would otherwise wait for a delayed ACK (~40 ms).
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(new ListMethodRewriter()).pipe(upstream);
    upstream.pipe(client);
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
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
