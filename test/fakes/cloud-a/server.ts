/**
 * A local fake of the cloud-A APIs over HTTPS, speaking their wire formats: the OAuth2
 * client-credentials token endpoint (`/{tenant}/oauth2/v2.0/token` plus the OpenID metadata an
 * identity SDK reads), the directory graph (`/v1.0/applications`, `servicePrincipals`, `groups`)
 * and the resource manager's role definitions and assignments. It keeps state, checks bearer
 * tokens and their audience, and injects faults per operation.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { DirectoryState } from './state';
import { graphRoute } from './graph-routes';
import { armRoute } from './arm-routes';

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

export const graphError = (status: number, code: string, message: string): Reply => ({ status, body: { error: { code, message, innerError: { date: new Date().toISOString() } } } });

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

export async function startCloudAFake(tls: { key: string; cert: string }, o: { tenantId?: string; subscriptionId?: string } = {}): Promise<CloudAFake> {
  const state = new DirectoryState(o.tenantId ?? 'a1b2c3d4-0000-4000-8000-00000000aaaa', o.subscriptionId ?? 'b1b2c3d4-0000-4000-8000-00000000bbbb');
  const rootApp = state.createApplication('latchkey-root');
  const rootPw = state.addPassword(rootApp, 'initial', undefined, 0);
  state.servicePrincipals.set('root-sp', { id: 'root-sp', appId: rootApp.appId, displayName: 'latchkey-root' });
  const tokens = new Map<string, { appId: string; audience: string }>();
  const faults: (Fault & { left: number })[] = [];
  const calls: { op: string; status: number }[] = [];

  function token(ctx: Ctx): Reply {
    const b = ctx.body;
    if (b.grant_type !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'AADSTS70003: grant type not supported' } };
    const who = state.authenticate(String(b.client_id ?? ''), String(b.client_secret ?? ''));
    if (who === 'unknown-client') return { status: 400, body: { error: 'unauthorized_client', error_description: `AADSTS700016: Application with identifier '${String(b.client_id)}' was not found in the directory.` } };
    if (who === 'bad-secret') return { status: 401, body: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' } };
    const access = randomBytes(24).toString('base64url');
    tokens.set(access, { appId: who.appId, audience: String(b.scope ?? '').replace(/\/\.default$/, '') });
    return { status: 200, body: { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: access } };
  }

  function openid(ctx: Ctx, tenant: string): Reply {
    const base = `${ctx.origin}/${tenant}`;
    return {
      status: 200,
      body: {
        token_endpoint: `${base}/oauth2/v2.0/token`,
        authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
        device_authorization_endpoint: `${base}/oauth2/v2.0/devicecode`,
        end_session_endpoint: `${base}/oauth2/v2.0/logout`,
        issuer: `${base}/v2.0`,
        jwks_uri: `${base}/discovery/v2.0/keys`,
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        tenant_region_scope: null,
      },
    };
  }

  function authorized(req: IncomingMessage, audience: 'graph' | 'arm'): boolean {
    const t = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const who = t ? tokens.get(t) : undefined;
    if (!who) return false;
    return audience === 'graph' ? who.audience.includes('graph') : who.audience.includes('management');
  }

  function route(req: IncomingMessage, ctx: Ctx): { op: string; run: () => Reply } {
    const p = ctx.url.pathname;
    const tok = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(p);
    if (tok && ctx.method === 'POST') return { op: 'token', run: () => token(ctx) };
    const oid = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(p);
    if (oid) return { op: 'openid', run: () => openid(ctx, oid[1]!) };
    const unauth = { status: 401, body: { error: { code: 'InvalidAuthenticationToken', message: 'Access token is missing or invalid.' } } };
    if (p.startsWith('/v1.0/')) {
      const g = graphRoute(ctx);
      return { op: g.op, run: () => (authorized(req, 'graph') ? g.run() : unauth) };
    }
    const a = armRoute(ctx);
    return { op: a.op, run: () => (authorized(req, 'arm') ? a.run() : unauth) };
  }

  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res: ServerResponse) => {
    void (async () => {
      const text = await readBody(req);
      const url = new URL('https://fake' + (req.url ?? '/').replace(/^\/+/, '/'));
      const ctx: Ctx = { state, method: req.method ?? 'GET', url, body: parse(text, req.headers['content-type']), origin: `https://${req.headers.host}` };
      const { op, run } = route(req, ctx);
      const fault = faults.find((f) => (f.op === op || f.op === '*') && f.left > 0);
      let reply: Reply;
      if (fault) {
        fault.left--;
        if (fault.after) run();
        const status = fault.status ?? 500;
        reply = op === 'token' ? { status, body: { error: fault.code ?? 'temporarily_unavailable', error_description: fault.message ?? 'injected' } } : graphError(status, fault.code ?? 'InjectedFault', fault.message ?? 'injected fault');
      } else reply = run();
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
