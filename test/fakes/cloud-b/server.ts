/**
 * A local fake of the cloud-B RPC APIs (RAM `Version=2015-05-01`, STS `2015-04-01`) and the
 * instance metadata service, over HTTP or HTTPS. Every RPC request's HMAC-SHA1 signature,
 * timestamp and nonce are checked against the fake's keys, as the real service does; state is
 * kept so a test can see what was created and left behind. Faults are injected per action.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttp } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ACTIONS, rpcError, type Reply } from './actions';
import { RamState } from './state';
import { signatureMatches } from './verify';

export interface Fault {
  /** action name ("CreateUser") or "*" */
  action: string;
  status?: number;
  code?: string;
  count?: number;
  /** run the action, then answer with the error */
  after?: boolean;
}

export interface CloudBFake {
  url: string;
  state: RamState;
  /** answered at /latest/meta-data/ram/security-credentials/ (undefined: no role) */
  metadataRole?: string;
  calls: { action: string; status: number; code?: string }[];
  inject(f: Fault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function authenticate(s: RamState, method: string, p: Record<string, string>): Reply | ReturnType<RamState['keys']['get']> {
  const key = s.keys.get(p.AccessKeyId ?? '');
  if (!key || (key.expiration !== undefined && key.expiration < Date.now()))
    return rpcError(404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.');
  if (p.SignatureMethod !== 'HMAC-SHA1' || p.SignatureVersion !== '1.0')
    return rpcError(400, 'InvalidParameter.SignatureMethod', 'Only HMAC-SHA1 signature version 1.0 is supported here.');
  if (!signatureMatches(method, p, key.secret))
    return rpcError(400, 'SignatureDoesNotMatch', 'Specified signature is not matched with our calculation.');
  const t = Date.parse(p.Timestamp ?? '');
  if (Number.isNaN(t) || Math.abs(t - Date.now()) > 15 * 60_000)
    return rpcError(400, 'InvalidTimeStamp.Expired', 'Specified time stamp or date value is expired.');
  if (!p.SignatureNonce || s.nonces.has(p.SignatureNonce))
    return rpcError(400, 'SignatureNonceUsed', 'Specified signature nonce was used already.');
  s.nonces.add(p.SignatureNonce);
  if (key.securityToken && p.SecurityToken !== key.securityToken)
    return rpcError(400, 'InvalidSecurityToken.Mismatch', 'Specified SecurityToken mismatch.');
  return key;
}

export async function startCloudBFake(tls?: { key: string; cert: string }): Promise<CloudBFake> {
  const state = new RamState();
  const faults: (Fault & { left: number })[] = [];
  const fake: CloudBFake = {
    url: '',
    state,
    calls: [],
    inject: (f) => faults.push({ ...f, left: f.count ?? 1 }),
    clearFaults: () => (faults.length = 0),
    close: async () => undefined,
  };

  function metadata(path: string): { status: number; text: string } {
    const base = '/latest/meta-data/ram/security-credentials/';
    if (!path.startsWith(base) || !fake.metadataRole) return { status: 404, text: 'Not Found' };
    const role = path.slice(base.length);
    if (role === '') return { status: 200, text: fake.metadataRole };
    if (role !== fake.metadataRole) return { status: 404, text: 'Not Found' };
    const expiration = Date.now() + 3600_000;
    const k = state.newKey('', { token: 'CAIS' + Math.random().toString(36).slice(2), expiration });
    const body = {
      AccessKeyId: k.id,
      AccessKeySecret: k.secret,
      SecurityToken: k.securityToken,
      Expiration: new Date(expiration).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      LastUpdated: new Date().toISOString(),
      Code: 'Success',
    };
    return { status: 200, text: JSON.stringify(body) };
  }

  function rpc(method: string, p: Record<string, string>): { action: string; reply: Reply } {
    const action = p.Action ?? '';
    const impl = ACTIONS[p.Version ?? '']?.[action];
    if (p.Format && p.Format.toUpperCase() !== 'JSON')
      return { action, reply: rpcError(400, 'InvalidParameter.Format', 'Only JSON is served here.') };
    const who = authenticate(state, method, p);
    if (!who || !('secret' in who)) return { action, reply: who as Reply };
    if (!impl)
      return { action, reply: rpcError(404, 'InvalidAction.NotFound', `Specified api is not found, please check your url and method.`) };
    const fault = faults.find((f) => (f.action === action || f.action === '*') && f.left > 0);
    if (fault) {
      fault.left--;
      if (fault.after) impl(state, p, who);
      const code = fault.code ?? 'InternalError';
      return { action, reply: rpcError(fault.status ?? 500, code, 'injected fault') };
    }
    return { action, reply: impl(state, p, who) };
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const text = await readBody(req);
      if (url.pathname.startsWith('/latest/')) {
        const m = metadata(url.pathname);
        res.writeHead(m.status, { 'content-type': 'text/plain' });
        res.end(m.text);
        return;
      }
      const params: Record<string, string> = Object.fromEntries(url.searchParams);
      if (text && (req.headers['content-type'] ?? '').includes('x-www-form-urlencoded'))
        Object.assign(params, Object.fromEntries(new URLSearchParams(text)));
      const { action, reply } = rpc(req.method ?? 'GET', params);
      fake.calls.push({ action, status: reply.status, ...(typeof reply.body.Code === 'string' ? { code: reply.body.Code } : {}) });
      res.writeHead(reply.status, { 'content-type': 'application/json;charset=utf-8' });
      res.end(JSON.stringify(reply.body));
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  };
  const server = tls ? createHttps({ key: tls.key, cert: tls.cert }, handler) : createHttp(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}
