/**
 * Parameter constraints hold on the values the handler uses (issue 23, item 2), through the app,
 * on the list fields of every engine and of sys: a token whose policy denies (or allows only)
 * some values tries them under every spelling — a JSON array, a comma string, spaces, empty
 * elements, another case where the handler ignores case, an alias field. Each is refused with
 * 403 and changes nothing; the permitted spelling works. The SSH certificate's principals are
 * read back with ssh-keygen -L, as sshd would read them.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { sshEngine } from '../../../lib/ssh/engine';
import { call, createTestService, type TestService } from '../../helpers/service';
import { makeCsr } from '../../helpers/openssl';
import { certInfo, keygen, section, tempDir } from '../../helpers/ssh-keys';

let svc: TestService;
let n = 0;
const dir = tempDir();
let userKey: string;

const asRoot = (method: string, path: string, body?: unknown) => call(svc.app, method, `/v1/${path}`, { token: svc.root, body });

/** A token holding only `rule` on `path` (no default policy). */
async function holder(path: string, rule: Record<string, unknown>, caps = ['create', 'update']): Promise<string> {
  const name = `pc${++n}`;
  const w = await asRoot('PUT', `sys/policy/${name}`, { policy: JSON.stringify({ path: { [path]: { capabilities: caps, ...rule } } }) });
  expect(w.status, w.text).toBe(204);
  const t = await asRoot('POST', 'auth/token/create', { policies: [name], no_default_policy: true });
  return t.json!.auth.client_token as string;
}

const as = (token: string, method: string, path: string, body?: unknown) => call(svc.app, method, `/v1/${path}`, { token, body });

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine, sshEngine] });
  expect((await asRoot('POST', 'pki/root/generate/internal', { common_name: 'PC Root', ttl: '8760h', key_type: 'ec' })).status).toBe(200);
  expect(
    (
      await asRoot('POST', 'pki/roles/any', {
        allow_any_name: true,
        allow_ip_sans: true,
        allowed_uri_sans: '*',
        allowed_other_sans: '*',
        key_type: 'ec',
        max_ttl: '4h',
      })
    ).status,
  ).toBe(200);
  expect((await asRoot('POST', 'ssh/config/ca', { key_type: 'ed25519' })).status).toBeLessThan(300);
  expect(
    (await asRoot('POST', 'ssh/roles/ops', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', default_user: 'deploy-a' }))
      .status,
  ).toBeLessThan(300);
  userKey = keygen(dir, 'ed25519').pubText;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ssh sign: valid_principals', () => {
  it('denied root: every spelling that yields root is refused; the certificate never names root', async () => {
    const t = await holder('ssh/sign/ops', { denied_parameters: { valid_principals: ['root'] } });
    for (const sent of [['root'], 'root', ' root', 'root,', ',root', 'deploy-a,root', 'deploy-a, root ,', ['deploy-a', ' root ']]) {
      const r = await as(t, 'POST', 'ssh/sign/ops', { public_key: userKey, valid_principals: sent });
      expect(r.status, JSON.stringify(sent)).toBe(403);
    }
    const ok = await as(t, 'POST', 'ssh/sign/ops', { public_key: userKey, valid_principals: 'deploy-a, deploy-b' });
    expect(ok.status, ok.text).toBe(200);
    expect(section(certInfo(ok.json!.data.signed_key as string), 'Principals')).toEqual(['deploy-a', 'deploy-b']);
  });

  it('allowed deploy-*: a second principal smuggled in a comma string is refused', async () => {
    const t = await holder('ssh/sign/ops', { allowed_parameters: { valid_principals: ['deploy-*'], public_key: [] } });
    for (const sent of ['deploy-a,root', 'deploy-a, root', ['deploy-a', 'root'], 'deploy-a,,root']) {
      const r = await as(t, 'POST', 'ssh/sign/ops', { public_key: userKey, valid_principals: sent });
      expect(r.status, JSON.stringify(sent)).toBe(403);
    }
    const ok = await as(t, 'POST', 'ssh/sign/ops', { public_key: userKey, valid_principals: 'deploy-a,deploy-b' });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('pki issue: alt_names, ip_sans, uri_sans, other_sans, common_name, ttl', () => {
  const cases: [string, Record<string, unknown[]>, Record<string, unknown>[], Record<string, unknown>][] = [
    [
      'alt_names',
      { alt_names: ['evil.example.com'] },
      [
        { alt_names: 'ok.example.com,evil.example.com' },
        { alt_names: ['ok.example.com', ' evil.example.com'] },
        { alt_names: 'EVIL.example.com' },
      ],
      { alt_names: 'ok.example.com' },
    ],
    [
      'ip_sans',
      { ip_sans: ['10.0.0.1', '::1'] },
      [{ ip_sans: '10.0.0.2, 10.0.0.1' }, { ip_sans: ['0:0:0:0:0:0:0:1'] }, { ip_sans: '10.0.0.2,,::0:1' }],
      { ip_sans: '10.0.0.2' },
    ],
    [
      'uri_sans',
      { uri_sans: ['spiffe://example.org/admin'] },
      [{ uri_sans: 'spiffe://example.org/ok,spiffe://example.org/admin' }, { uri_sans: [' spiffe://example.org/admin'] }],
      { uri_sans: 'spiffe://example.org/ok' },
    ],
    [
      'other_sans',
      { other_sans: ['1.3.6.1.4.1.311.20.2.3;UTF8:admin@example.com'] },
      [{ other_sans: '1.3.6.1.4.1.311.20.2.3;UTF8:ok@example.com,1.3.6.1.4.1.311.20.2.3;UTF8:admin@example.com' }],
      { other_sans: '1.3.6.1.4.1.311.20.2.3;UTF8:ok@example.com' },
    ],
    ['common_name', { common_name: ['root.example.com'] }, [{ common_name: 'ROOT.Example.com' }], { common_name: 'ok.example.com' }],
    ['ttl (a duration)', { ttl: ['4h'] }, [{ ttl: '240m' }, { ttl: 14400 }, { ttl: '14400' }], { ttl: '1h' }],
  ];

  it.each(cases)('%s: denied values refused under every spelling', async (_label, denied, bad, good) => {
    const t = await holder('pki/issue/any', { denied_parameters: denied });
    for (const extra of bad) {
      const r = await as(t, 'POST', 'pki/issue/any', { common_name: 'ok.example.com', ...extra });
      expect(r.status, JSON.stringify(extra)).toBe(403);
    }
    const ok = await as(t, 'POST', 'pki/issue/any', { common_name: 'ok.example.com', ...good });
    expect(ok.status, ok.text).toBe(200);
  });

  it('alt_names allowed *.example.com: one outside name in a list is refused', async () => {
    const t = await holder('pki/issue/any', { allowed_parameters: { alt_names: ['*.example.com'], common_name: [] } });
    expect((await as(t, 'POST', 'pki/issue/any', { common_name: 'a.example.com', alt_names: 'b.example.com,evil.com' })).status).toBe(403);
    expect(
      (await as(t, 'POST', 'pki/issue/any', { common_name: 'a.example.com', alt_names: ['b.example.com', 'c.example.com'] })).status,
    ).toBe(200);
  });
});

describe('pki sign: the names a CSR asks for are held to the rules on common_name and alt_names', () => {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  const evilCn = () => makeCsr('/CN=Evil.Example.com', ec);
  const evilSan = () => makeCsr('/CN=ok.example.com', ec, ['-addext', 'subjectAltName=DNS:ok.example.com,DNS:evil.example.com']);
  const good = () => makeCsr('/CN=ok.example.com', ec);

  it.each(['sign/any', 'sign-verbatim', 'sign-verbatim/any'])('%s: a denied name in the CSR is refused, as if sent', async (path) => {
    const t = await holder(`pki/${path}`, { denied_parameters: { common_name: ['evil.example.com'], alt_names: ['evil.example.com'] } });
    expect((await as(t, 'POST', `pki/${path}`, { csr: evilCn() })).status).toBe(403);
    expect((await as(t, 'POST', `pki/${path}`, { csr: evilSan() })).status).toBe(403);
    const ok = await as(t, 'POST', `pki/${path}`, { csr: good() });
    expect(ok.status, ok.text).toBe(200);
  });

  it('an allowed list on common_name holds on the CSR, while csr itself is an allowed parameter', async () => {
    const t = await holder('pki/sign/any', { allowed_parameters: { csr: [], common_name: ['*.example.com'] } });
    expect((await as(t, 'POST', 'pki/sign/any', { csr: makeCsr('/CN=www.evil.com', ec) })).status).toBe(403);
    expect((await as(t, 'POST', 'pki/sign/any', { csr: good() })).status).toBe(200);
  });
});

describe('sys and auth: policies, token_policies, cidr_list, allowed_domains', () => {
  it('auth/token/create policies: a denied policy under any case, list spelling or in a comma string is refused', async () => {
    expect((await asRoot('PUT', 'sys/policy/dev', { policy: '{"path":{"x/*":{"capabilities":["read"]}}}' })).status).toBe(204);
    const name = `pc${++n}`;
    await asRoot('PUT', `sys/policy/${name}`, {
      policy: JSON.stringify({
        path: { 'auth/token/create': { capabilities: ['update', 'sudo'], denied_parameters: { policies: ['admin'] } } },
      }),
    });
    const t = (await asRoot('POST', 'auth/token/create', { policies: [name, 'dev'], no_default_policy: true })).json!.auth
      .client_token as string;
    for (const policies of ['dev,admin', ['ADMIN'], ' Admin', ['dev', ' admin ']]) {
      expect((await as(t, 'POST', 'auth/token/create', { policies })).status, JSON.stringify(policies)).toBe(403);
    }
    expect((await as(t, 'POST', 'auth/token/create', { policies: 'dev' })).status).toBe(200);
  });

  it('auth/approle/role token_policies: denied admin holds on the policies alias and any case', async () => {
    const t = await holder('auth/approle/role/*', { denied_parameters: { token_policies: ['admin'] } });
    for (const body of [{ token_policies: 'dev,Admin' }, { policies: 'dev, admin' }, { policies: ['ADMIN'] }]) {
      expect((await as(t, 'POST', 'auth/approle/role/app', body)).status, JSON.stringify(body)).toBe(403);
    }
    expect((await asRoot('GET', 'auth/approle/role/app')).status).toBe(404);
    expect((await as(t, 'POST', 'auth/approle/role/app', { token_policies: 'dev' })).status).toBe(204);
  });

  it('ssh roles cidr_list: a denied block among others, or spelled otherwise, is refused', async () => {
    const t = await holder('ssh/roles/*', { denied_parameters: { cidr_list: ['10.0.0.0/8'] } });
    for (const cidr_list of ['192.168.0.0/16, 10.0.0.0/8', ['10.0.0.0/08'], '192.168.0.0/16,,10.0.0.0/8']) {
      const r = await as(t, 'POST', 'ssh/roles/otp1', { key_type: 'otp', default_user: 'u', cidr_list });
      expect(r.status, JSON.stringify(cidr_list)).toBe(403);
    }
    expect((await as(t, 'POST', 'ssh/roles/otp1', { key_type: 'otp', default_user: 'u', cidr_list: '192.168.0.0/16' })).status).toBe(204);
  });

  it('pki roles allowed_domains: a denied domain in another case or a list is refused', async () => {
    const t = await holder('pki/roles/*', { denied_parameters: { allowed_domains: ['example.com'] } });
    for (const allowed_domains of ['foo.com,EXAMPLE.com', ['foo.com', ' example.com']]) {
      expect((await as(t, 'POST', 'pki/roles/web', { allowed_domains })).status, JSON.stringify(allowed_domains)).toBe(403);
    }
    expect((await as(t, 'POST', 'pki/roles/web', { allowed_domains: 'foo.com' })).status).toBe(200);
  });
});
