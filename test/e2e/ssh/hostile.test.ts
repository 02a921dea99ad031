/**
 * Hostile input against a configured mount (CA, roles of every kind, a registered key): every
 * field of every SSH endpoint gets odd values; the answer is always a 2xx or a 4xx naming the
 * problem, never a 5xx. Deterministic (seeded).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import { call, generateCa, sshService, writeRole } from './setup';

let svc: TestService;
const dir = tempDir();
let pub = '';
let priv = '';

let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;

const ODD: unknown[] = [
  '',
  ' ',
  'a',
  '*',
  '..',
  '../../etc/passwd',
  '%00',
  '\u0000',
  '\n',
  'é',
  '😀',
  'x'.repeat(5000),
  -1,
  0,
  1.5,
  2 ** 53,
  true,
  false,
  null,
  [],
  [''],
  ['a', 1],
  {},
  { a: 'b' },
  { a: { b: 1 } },
  '10.0.0.1',
  '::1',
  '10.0.0.0/8',
  '999.1.1.1',
  '1h',
  '-5s',
  '99999999h',
  'ssh-ed25519 AAAA',
  'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ',
  '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----',
  'permit-pty',
  'source-address',
  '{{identity.entity.name}}',
  'a,b,,c',
  'rsa=2048',
  '{"rsa": [2048]}',
];

const ENDPOINTS: [string, string[]][] = [
  ['sign/users', ['public_key', 'ttl', 'valid_principals', 'cert_type', 'key_id', 'critical_options', 'extensions']],
  ['sign/hosts', ['public_key', 'ttl', 'valid_principals', 'cert_type', 'key_id', 'critical_options', 'extensions']],
  ['issue/users', ['key_type', 'key_bits', 'ttl', 'valid_principals', 'cert_type', 'key_id', 'critical_options', 'extensions']],
  ['creds/otp', ['ip', 'username']],
  ['creds/dyn', ['ip', 'username']],
  ['lookup', ['ip']],
  ['verify', ['otp']],
  ['config/zeroaddress', ['roles']],
  ['keys/k', ['key']],
  [
    'roles/fuzz',
    [
      'key_type',
      'key',
      'admin_user',
      'default_user',
      'cidr_list',
      'exclude_cidr_list',
      'port',
      'key_bits',
      'install_script',
      'allowed_users',
      'allowed_users_template',
      'allowed_domains',
      'key_option_specs',
      'ttl',
      'max_ttl',
      'allowed_critical_options',
      'allowed_extensions',
      'default_critical_options',
      'default_extensions',
      'allow_user_certificates',
      'allow_host_certificates',
      'allow_bare_domains',
      'allow_subdomains',
      'allow_user_key_ids',
      'key_id_format',
      'allowed_user_key_lengths',
      'algorithm_signer',
      'not_before_duration',
    ],
  ],
];

beforeAll(async () => {
  svc = await sshService();
  await generateCa(svc, { key_type: 'ed25519' });
  const k = keygen(dir, 'ed25519');
  pub = k.pubText;
  priv = k.privText;
  await call(svc.app, 'POST', '/v1/ssh/keys/admin', { token: svc.root, body: { key: priv } });
  await writeRole(svc, 'users', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', allowed_extensions: '*' });
  await writeRole(svc, 'hosts', { key_type: 'ca', allow_host_certificates: true, allowed_domains: '*' });
  await writeRole(svc, 'otp', { key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8' });
  // A dynamic role pointing at a closed port: creds fail fast and cleanly.
  await writeRole(svc, 'dyn', {
    key_type: 'dynamic',
    key: 'admin',
    admin_user: 'root',
    default_user: 'u',
    cidr_list: '127.0.0.0/8',
    port: 1,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function body(fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const r = rand();
    if (r < 0.3) continue;
    out[f] = r < 0.45 && f === 'public_key' ? pub : pick(ODD);
  }
  if (rand() < 0.2) out[`unknown_${Math.floor(rand() * 10)}`] = pick(ODD);
  return out;
}

describe('hostile input to every SSH endpoint', () => {
  it('answers 600 odd requests with 2xx or a 4xx that names the problem, never a 5xx', async () => {
    const seen: Record<string, number> = {};
    for (let i = 0; i < 600; i++) {
      const [path, fields] = pick(ENDPOINTS);
      const b = body(fields);
      const r =
        rand() < 0.1
          ? await call(svc.app, 'POST', `/v1/ssh/${path}`, {
              token: svc.root,
              raw: pick(['{', 'null', '[]', '"x"', 'a=b&c', '\u0000']),
              headers: { 'content-type': pick(['application/json', 'application/x-www-form-urlencoded', 'text/plain']) },
            })
          : await call(svc.app, 'POST', `/v1/ssh/${path}`, { token: svc.root, body: b });
      seen[r.status] = (seen[r.status] ?? 0) + 1;
      if (r.status >= 500) throw new Error(`${path} ${JSON.stringify(b).slice(0, 300)} -> ${r.status} ${r.text}`);
      if (r.status >= 400) expect(r.json!.errors.length).toBeGreaterThan(0);
      if (!(path.startsWith('issue/') && r.status === 200)) expect(r.text).not.toContain('PRIVATE KEY');
    }
    expect(Object.keys(seen).some((s) => s.startsWith('2'))).toBe(true);
    expect(seen['400']).toBeGreaterThan(100);
  }, 120_000);

  it('odd path segments for roles, keys, sign and creds answer 4xx', async () => {
    for (const seg of ['%2e%2e', '%C3%A9', 'a'.repeat(1200), '%20', 'x%2Fy', '*', 'roles']) {
      for (const [method, path] of [
        ['GET', `roles/${seg}`],
        ['DELETE', `roles/${seg}`],
        ['POST', `sign/${seg}`],
        ['POST', `issue/${seg}`],
        ['POST', `creds/${seg}`],
        ['DELETE', `keys/${seg}`],
      ] as const) {
        const r = await call(svc.app, method, `/v1/ssh/${path}`, {
          token: svc.root,
          ...(method === 'POST' ? { body: { public_key: pub, ip: '10.0.0.1' } } : {}),
        });
        expect([path.slice(0, 40), r.status < 500]).toEqual([path.slice(0, 40), true]);
      }
    }
  });
});
