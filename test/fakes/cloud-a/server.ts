/**
 * A local fake of the cloud-A APIs over HTTPS, speaking their wire formats: the OAuth2
 * client-credentials token endpoint (`/{tenant}/oauth2/v2.0/token` plus the OpenID metadata an
 * identity SDK reads), the directory graph (`/v1.0/applications`, `servicePrincipals`, `groups`)
 * and the resource manager's role definitions and assignments. It keeps state, checks bearer
 * tokens and their audience, and injects faults per operation.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { DirectoryState } from './state';
import { graphRoute } from './graph-routes';
import { armRoute } from './arm-routes';
import { bearerOk, identityRoute, type Tokens } from './identity-routes';

export interface Fault {
  /** operation name, e.g. "createApplication", "token"; "*" for any */
  op: string;
  status?: number;
  code?: string;
  message?: string;
  count?: number;
  /** run the operation, then answer with the error (the client never learns it succeeded) */
  after?: boolean;
}

export interface Reply {
  status: number;
  body?: unknown;
}

export interface Ctx {
  state: DirectoryState;
  method: string;
  url: URL;
  body: Record<string, unknown>;
  origin: string;
}

export interface CloudAFake {
  url: string;
  state: DirectoryState;
  root: { objectId: string; clientId: string; clientSecret: string };
  calls: { op: string; status: number }[];
  inject(f: Fault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

export const graphError = (status: number, code: string, message: string): Reply => ({
  status,
  body: { error: { code, message, innerError: { date: new Date().toISOString() } } },
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parse(text: string, type: string | undefined): Record<string, unknown> {
  if (!text) return {};
  if (type?.includes('x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export async function startCloudAFake(
  tls: { key: string; cert: string },
  o: { tenantId?: string; subscriptionId?: string } = {},
): Promise<CloudAFake> {
  const state = new DirectoryState(
    o.tenantId ?? 'a1b2c3d4-0000-4000-8000-00000000aaaa',
    o.subscriptionId ?? 'b1b2c3d4-0000-4000-8000-00000000bbbb',
  );
  const rootApp = state.createApplication('latchkey-root');
  const rootPw = state.addPassword(rootApp, 'initial', undefined, 0);
  state.servicePrincipals.set('root-sp', { id: 'root-sp', appId: rootApp.appId, displayName: 'latchkey-root' });
  const tokens: Tokens = new Map();
  const faults: (Fault & { left: number })[] = [];
  const calls: { op: string; status: number }[] = [];

  function route(req: IncomingMessage, ctx: Ctx): { op: string; run: () => Reply } {
    const id = identityRoute(ctx, tokens);
    if (id) return id;
    const unauth = { status: 401, body: { error: { code: 'InvalidAuthenticationToken', message: 'Access token is missing or invalid.' } } };
    const api = ctx.url.pathname.startsWith('/v1.0/') ? 'graph' : 'arm';
    const r = api === 'graph' ? graphRoute(ctx) : armRoute(ctx);
    return { op: r.op, run: () => (bearerOk(req, tokens, api) ? r.run() : unauth) };
  }

  function answer(op: string, run: () => Reply): Reply {
    const fault = faults.find((f) => (f.op === op || f.op === '*') && f.left > 0);
    if (!fault) return run();
    fault.left--;
    if (fault.after) run();
    const status = fault.status ?? 500;
    if (op === 'token')
      return { status, body: { error: fault.code ?? 'temporarily_unavailable', error_description: fault.message ?? 'injected' } };
    return graphError(status, fault.code ?? 'InjectedFault', fault.message ?? 'injected fault');
  }

  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res: ServerResponse) => {
    void (async () => {
      const text = await readBody(req);
      const url = new URL('https://fake' + (req.url ?? '/').replace(/^\/+/, '/'));
      const ctx: Ctx = {
        state,
        method: req.method ?? 'GET',
        url,
        body: parse(text, req.headers['content-type']),
        origin: `https://${req.headers.host}`,
      };
      const { op, run } = route(req, ctx);
      const reply = answer(op, run);
      calls.push({ op, status: reply.status });
      const json = reply.body === undefined ? '' : JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.status === 429 ? { 'retry-after': '1' } : {}) });
      res.end(json);
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    state,
    root: { objectId: rootApp.id, clientId: rootApp.appId, clientSecret: rootPw.secret },
    calls,
    inject: (f) => faults.push({ ...f, left: f.count ?? 1 }),
    clearFaults: () => (faults.length = 0),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
