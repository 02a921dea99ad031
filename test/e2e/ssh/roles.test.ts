import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import { call, sshService, writeRole } from './setup';

let svc: TestService;
const dir = tempDir();

beforeAll(async () => {
  svc = await sshService();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const get = (path: string, token: string | undefined = svc.root) => call(svc.app, 'GET', `/v1/ssh/${path}`, token ? { token } : {});

describe('roles', () => {
  it('reads back each kind in its own shape, and lists names with key_info', async () => {
    expect((await call(svc.app, 'LIST', '/v1/ssh/roles', { token: svc.root })).status).toBe(404);
    const admin = keygen(dir, 'ed25519');
    expect((await call(svc.app, 'POST', '/v1/ssh/keys/admin', { token: svc.root, body: { key: admin.privText } })).status).toBe(204);
    await writeRole(svc, 'dyn', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'root',
      default_user: 'app',
      cidr_list: '10.0.0.0/8',
      port: 2200,
    });
    await writeRole(svc, 'otp', { key_type: 'otp', default_user: 'app', cidr_list: ['10.0.0.0/8', '192.168.0.0/16'] });
    await writeRole(svc, 'ca', {
      key_type: 'ca',
      allow_user_certificates: true,
      allowed_users: 'a,b',
      ttl: '1h',
      max_ttl: 7200,
      default_extensions: { 'permit-pty': '' },
      default_critical_options: 'force-command=/bin/date',
      allowed_user_key_lengths: { rsa: [2048, 4096], ed25519: 0 },
    });
    expect((await get('roles/dyn')).json!.data).toMatchObject({
      admin_user: 'root',
      cidr_list: '10.0.0.0/8',
      default_user: 'app',
      key: 'admin',
      key_type: 'dynamic',
      port: 2200,
      key_bits: 1024,
    });
    expect((await get('roles/otp')).json!.data).toMatchObject({
      cidr_list: '10.0.0.0/8,192.168.0.0/16',
      default_user: 'app',
      key_type: 'otp',
      port: 22,
    });
    const ca = (await get('roles/ca')).json!.data;
    expect(ca).toMatchObject({
      allow_bare_domains: false,
      allow_host_certificates: false,
      allow_subdomains: false,
      allow_user_key_ids: false,
      allow_user_certificates: true,
      allowed_critical_options: '',
      allowed_extensions: '',
      default_critical_options: { 'force-command': '/bin/date' },
      default_extensions: { 'permit-pty': '' },
      max_ttl: '2h0m0s',
      ttl: '1h0m0s',
      key_type: 'ca',
      allowed_user_key_lengths: { rsa: [2048, 4096], ed25519: [0] },
      algorithm_signer: 'default',
      not_before_duration: 30,
    });
    for (const verb of ['LIST', 'GET']) {
      const list = await call(svc.app, verb, `/v1/ssh/roles${verb === 'GET' ? '?list=true' : ''}`, { token: svc.root });
      expect(list.json!.data).toEqual({
        keys: ['ca', 'dyn', 'otp'],
        key_info: { ca: { key_type: 'ca' }, dyn: { key_type: 'dynamic' }, otp: { key_type: 'otp' } },
      });
    }
    expect((await call(svc.app, 'DELETE', '/v1/ssh/roles/otp', { token: svc.root })).status).toBe(204);
    expect((await get('roles/otp')).status).toBe(404);
    expect((await call(svc.app, 'DELETE', '/v1/ssh/roles/otp', { token: svc.root })).status).toBe(204);
  });

  it.each([
    ['no key_type', {}, /missing or invalid key_type/],
    ['an unknown key_type', { key_type: 'x509' }, /missing or invalid key_type/],
    [
      'a dynamic role whose key is not registered',
      { key_type: 'dynamic', key: 'ghost', admin_user: 'root', default_user: 'u', cidr_list: '10.0.0.0/8' },
      /key "ghost" is not registered/,
    ],
    [
      'an otp role with an admin_user',
      { key_type: 'otp', admin_user: 'root', default_user: 'u', cidr_list: '10.0.0.0/8' },
      /^admin_user is not allowed on otp roles/,
    ],
    [
      'a port of the wrong type',
      { key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8', port: 'twenty' },
      /field "port": expected an integer/,
    ],
    ['a port out of range', { key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8', port: 70000 }, /invalid port/],
    [
      'a boolean that is not one',
      { key_type: 'ca', allow_user_certificates: 'maybe' },
      /field "allow_user_certificates": expected a boolean/,
    ],
    [
      'a huge install script',
      { key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8', install_script: 'x'.repeat(70_000) },
      /install_script is too long/,
    ],
    [
      'allowed_user_key_lengths as a list',
      { key_type: 'ca', allow_user_certificates: true, allowed_user_key_lengths: [1, 2] },
      /expected an object/,
    ],
    [
      'default_extensions as a number',
      { key_type: 'ca', allow_user_certificates: true, default_extensions: 5 },
      /field "default_extensions"/,
    ],
  ])('refuses %s', async (_w, body, message) => {
    const r = await call(svc.app, 'POST', '/v1/ssh/roles/bad', { token: svc.root, body });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(message);
    expect((await get('roles/bad')).status).toBe(404);
  });

  it.each([['a%20space'], ['-dash-first'], ['x'.repeat(200)], ['dot.'], ['%C3%A9t%C3%A9']])('refuses the role name %s', async (name) => {
    const r = await call(svc.app, 'POST', `/v1/ssh/roles/${name}`, {
      token: svc.root,
      body: { key_type: 'ca', allow_user_certificates: true },
    });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/invalid role name/);
  });

  it('refuses a path with a control character, and bodies over the limit', async () => {
    expect((await call(svc.app, 'POST', '/v1/ssh/roles/a%0ab', { token: svc.root, body: {} })).status).toBe(400);
    const big = await call(svc.app, 'POST', '/v1/ssh/roles/big', {
      token: svc.root,
      raw: JSON.stringify({ key_type: 'ca', x: 'y'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
  });

  it('keeps the last of concurrent writes of one role whole', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        writeRole(svc, 'race', { key_type: 'ca', allow_user_certificates: true, allowed_users: `u${i}`, ttl: i + 1 }),
      ),
    );
    const r = (await get('roles/race')).json!.data;
    const i = Number(String(r.allowed_users).slice(1));
    expect(r.ttl).toBe(`${i + 1}s`);
  });

  it('needs a token for roles, keys, creds, lookup and sign', async () => {
    for (const [method, path] of [
      ['GET', 'roles/ca'],
      ['LIST', 'roles'],
      ['POST', 'keys/k'],
      ['POST', 'creds/otp'],
      ['POST', 'lookup'],
      ['POST', 'sign/ca'],
      ['POST', 'config/ca'],
    ] as const) {
      const r = await call(svc.app, method, `/v1/ssh/${path}`, method === 'POST' ? { body: {} } : {});
      expect([path, r.status]).toEqual([path, 403]);
    }
  });
});

describe('keys/<name>', () => {
  it.each([
    ['an OpenSSH ed25519 key', () => keygen(dir, 'ed25519').privText],
    ['an OpenSSH RSA key', () => keygen(dir, 'rsa', 2048).privText],
    ['an OpenSSH ECDSA key', () => keygen(dir, 'ecdsa', 256).privText],
  ])('registers %s', async (_w, key) => {
    expect((await call(svc.app, 'POST', '/v1/ssh/keys/k1', { token: svc.root, body: { key: key() } })).status).toBe(204);
  });

  it.each([
    ['no key', {}, /missing key/],
    ['a public key', { key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGn0' }, /not a valid/],
    ['garbage', { key: '-----BEGIN OPENSSH PRIVATE KEY-----\nzzzz\n-----END OPENSSH PRIVATE KEY-----' }, /not a valid/],
    ['a number', { key: 12 }, /not a valid/],
  ])('refuses %s', async (_w, body, message) => {
    const r = await call(svc.app, 'POST', '/v1/ssh/keys/k2', { token: svc.root, body });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(message);
  });

  it('refuses an encrypted key', async () => {
    const k = keygen(dir, 'ed25519');
    const { execFileSync } = await import('node:child_process');
    execFileSync('ssh-keygen', ['-p', '-P', '', '-N', 'secret-pass', '-f', k.priv], { stdio: 'pipe' });
    const { readFileSync } = await import('node:fs');
    const r = await call(svc.app, 'POST', '/v1/ssh/keys/k3', { token: svc.root, body: { key: readFileSync(k.priv, 'utf8') } });
    expect(r.status).toBe(400);
  });

  it('deletes a key', async () => {
    expect((await call(svc.app, 'DELETE', '/v1/ssh/keys/k1', { token: svc.root })).status).toBe(204);
  });
});

describe('secrets at rest', () => {
  it('a scan of the raw table finds no CA private key, admin key or private key material', async () => {
    const s = await sshService();
    const admin = keygen(dir, 'ed25519');
    await call(s.app, 'POST', '/v1/ssh/keys/admin', { token: s.root, body: { key: admin.privText } });
    const ca = keygen(dir, 'ecdsa', 256);
    await call(s.app, 'POST', '/v1/ssh/config/ca', { token: s.root, body: { private_key: ca.privText, public_key: ca.pubText } });
    const scan = JSON.stringify((await s.client.send(new ScanCommand({ TableName: s.table }))).Items);
    expect(scan).not.toMatch(/PRIVATE KEY/);
    const body = (pem: string) =>
      pem
        .split('\n')
        .filter((l) => l && !l.startsWith('-----'))
        .join('');
    for (const secret of [body(admin.privText), body(ca.privText)]) {
      expect(scan).not.toContain(secret.slice(40, 100));
    }
    expect(scan).toContain(ca.pubText.split(' ')[1]);
  });
});
