/**
 * What bench/round-trips.ts times, set up through the packaged functions as a client would
 * (root token; none of this is timed): the policies and a token per request holding only what
 * its request needs, a PKI root and a role that stores certificates, an SSH CA and a user-cert
 * role, a catalog key, a KV v2 secret, an AppRole role with an unlimited secret id, and a stored
 * certificate to ask OCSP about.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSerial } from '../lib/pki/serial';
import { httpEvent, type HttpApiEventV2 } from '../test/helpers/apigw';
import type { Instance } from './_fn-runner';
import { ocspRequest } from './_ocsp-request';

export interface TimedRequest {
  label: string;
  /** The function that serves it (infra/functions.cjs). */
  fn: string;
  /** Issue 30's targets, sequential round trips with the auth cache off / on. */
  target: { off: number; on: number };
  /** The i-th request's event: a fresh nonce where the request carries one. */
  event: (i: number) => HttpApiEventV2;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const vault = (t: string) => ({ 'x-vault-token': t });
const READ = { off: 2, on: 1 };
const WRITE = { off: 3, on: 1 };
export const KV_VALUE = JSON.stringify({ url: 'postgres://db.internal:5432/app', pool: 20, timeout_ms: 1500, feature_flags: ['a', 'b'] });

/** A setup request through `fn`'s instance, which must answer 2xx; its JSON body. */
async function call(fn: Instance, method: string, path: string, headers: Record<string, string>, body?: object | string): Promise<Json> {
  const r = await fn.invoke(httpEvent(method, `/v1/${path}`, { headers, ...(body !== undefined ? { body } : {}) }));
  if (r.status >= 300) throw new Error(`setup ${method} ${path} answered ${r.status}: ${r.body}`);
  return r.body ? (JSON.parse(r.body) as Json) : {};
}

/** A policy named `name` with `rules`, and a token holding it (and `default`, as every token does unless asked otherwise). */
async function tokenFor(sys: Instance, root: string, name: string, rules: string): Promise<string> {
  await call(sys, 'PUT', `sys/policy/${name}`, vault(root), { policy: rules });
  return (await call(sys, 'POST', 'auth/token/create', vault(root), { policies: [name], ttl: '24h' })).auth.client_token as string;
}

async function pkiSetup(pki: Instance, root: string): Promise<{ caPem: string; serial: Buffer }> {
  const ca = await call(pki, 'POST', 'pki/root/generate/internal', vault(root), {
    common_name: 'Bench Root CA',
    key_type: 'ec',
    key_bits: 256,
    ttl: '87600h',
  });
  const role = { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', key_bits: 256, ttl: '72h', no_store: false };
  await call(pki, 'POST', 'pki/roles/bench', vault(root), role);
  const leaf = await call(pki, 'POST', 'pki/issue/bench', vault(root), { common_name: 'ocsp.example.com' });
  return { caPem: ca.data.certificate as string, serial: parseSerial(leaf.data.serial_number as string) };
}

async function sshSetup(ssh: Instance, root: string, dir: string): Promise<string> {
  await call(ssh, 'POST', 'ssh/config/ca', vault(root), { key_type: 'ed25519' });
  const role = { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', default_extensions: { 'permit-pty': '' }, ttl: '30m' };
  await call(ssh, 'POST', 'ssh/roles/bench', vault(root), role);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'user')]);
  return readFileSync(join(dir, 'user.pub'), 'utf8');
}

async function appRoleSetup(sys: Instance, root: string): Promise<{ roleId: string; secretId: string }> {
  await call(sys, 'PUT', 'sys/policy/rt-login', vault(root), { policy: 'path "secret/data/bench" { capabilities = ["read"] }' });
  await call(sys, 'POST', 'auth/approle/role/bench', vault(root), { token_policies: 'rt-login', token_ttl: '1h', secret_id_num_uses: 0 });
  const roleId = (await call(sys, 'GET', 'auth/approle/role/bench/role-id', vault(root))).data.role_id as string;
  const secretId = (await call(sys, 'POST', 'auth/approle/role/bench/secret-id', vault(root), {})).data.secret_id as string;
  return { roleId, secretId };
}

export async function setUp(fns: Record<string, Instance>, root: string, dir: string): Promise<TimedRequest[]> {
  const sys = fns.sys!;
  const policy = (path: string, caps: string[]) => `path "${path}" { capabilities = ${JSON.stringify(caps)} }`;
  const t = {
    issue: await tokenFor(sys, root, 'rt-issue', policy('pki/issue/bench', ['update'])),
    sign: await tokenFor(sys, root, 'rt-sign', policy('ssh/sign/bench', ['update'])),
    kvRead: await tokenFor(sys, root, 'rt-catalog-read', policy('catalog/kv/*', ['read'])),
    kvWrite: await tokenFor(sys, root, 'rt-catalog-write', policy('catalog/kv/*', ['create', 'update'])),
    secretRead: await tokenFor(sys, root, 'rt-secret-read', policy('secret/data/bench', ['read'])),
    secretWrite: await tokenFor(sys, root, 'rt-secret-write', policy('secret/data/bench', ['create', 'update'])),
    self: (await call(sys, 'POST', 'auth/token/create', vault(root), { policies: ['default'], ttl: '24h' })).auth.client_token as string,
  };
  const { caPem, serial } = await pkiSetup(fns.pki!, root);
  const userKey = await sshSetup(fns.ssh!, root, dir);
  const { roleId, secretId } = await appRoleSetup(sys, root);
  await call(fns.catalog!, 'PUT', 'kv/bench/app/config', { 'x-consul-token': root }, KV_VALUE);
  await call(fns.kv!, 'POST', 'secret/data/bench', vault(root), { data: JSON.parse(KV_VALUE) as Json });
  const ocspGet = encodeURIComponent(ocspRequest(caPem, serial, false).toString('base64'));
  const ev = (method: string, path: string, headers: Record<string, string>, body?: object | string) => () =>
    httpEvent(method, `/v1/${path}`, { headers, ...(body !== undefined ? { body } : {}) });
  return [
    {
      label: 'POST pki/issue/<role> (stored)',
      fn: 'pki',
      target: WRITE,
      event: ev('POST', 'pki/issue/bench', vault(t.issue), { common_name: 'svc.example.com' }),
    },
    {
      label: 'POST ssh/sign/<role>',
      fn: 'ssh',
      target: WRITE,
      event: ev('POST', 'ssh/sign/bench', vault(t.sign), { public_key: userKey, valid_principals: 'alice' }),
    },
    {
      label: 'GET kv/<key> (catalog, ACL token)',
      fn: 'catalog',
      target: READ,
      event: ev('GET', 'kv/bench/app/config', { 'x-consul-token': t.kvRead }),
    },
    {
      label: 'PUT kv/<key> (catalog, ACL token)',
      fn: 'catalog',
      target: WRITE,
      event: ev('PUT', 'kv/bench/app/config', { 'x-consul-token': t.kvWrite }, KV_VALUE),
    },
    {
      label: 'POST auth/approle/login',
      fn: 'sys',
      target: { off: 3, on: 3 },
      event: ev('POST', 'auth/approle/login', {}, { role_id: roleId, secret_id: secretId }),
    },
    {
      label: 'GET auth/token/lookup-self',
      fn: 'sys',
      target: { off: 2, on: 0 },
      event: ev('GET', 'auth/token/lookup-self', vault(t.self)),
    },
    { label: 'GET secret/data/<k> (KV v2)', fn: 'kv', target: READ, event: ev('GET', 'secret/data/bench', vault(t.secretRead)) },
    {
      label: 'POST secret/data/<k> (KV v2)',
      fn: 'kv',
      target: WRITE,
      event: ev('POST', 'secret/data/bench', vault(t.secretWrite), { data: JSON.parse(KV_VALUE) as Json }),
    },
    { label: 'GET pki/ocsp/<base64> (no nonce)', fn: 'pki', target: READ, event: ev('GET', `pki/ocsp/${ocspGet}`, {}) },
    {
      label: 'POST pki/ocsp (nonce)',
      fn: 'pki',
      target: READ,
      event: () =>
        httpEvent('POST', '/v1/pki/ocsp', {
          headers: { 'content-type': 'application/ocsp-request' },
          body: ocspRequest(caPem, serial, true),
        }),
    },
  ];
}
