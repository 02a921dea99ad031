/**
 * Access control as a security reviewer tries it: each case uses a token holding only the
 * policy under test, against real engine paths (PKI) and sys itself.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;
let n = 0;
const asRoot = (method: string, path: string, body?: unknown) => call(svc.app, method, `/v1/${path}`, { token: svc.root, body });

/** A token holding only `doc` (a policy document, object or HCL text). */
async function holder(doc: unknown): Promise<string> {
  const name = `p${++n}`;
  const w = await asRoot('PUT', `sys/policy/${name}`, { policy: typeof doc === 'string' ? doc : JSON.stringify(doc) });
  expect(w.status, w.text).toBe(204);
  return tokenWith(svc, [name], { no_default_policy: true });
}

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  expect((await asRoot('POST', 'pki/root/generate/internal', { common_name: 'AC Root', ttl: '8760h', key_type: 'ec' })).status).toBe(200);
  expect((await asRoot('POST', 'pki/roles/plain', { allow_any_name: true, key_type: 'ec', ttl: '1h' })).status).toBe(200);
});

describe('parameter constraints are enforced, not stored and ignored', () => {
  it('allowed_parameters: the value outside the list is refused, the listed one issued', async () => {
    const t = await holder({
      path: { 'pki/issue/plain': { capabilities: ['create', 'update'], allowed_parameters: { common_name: ['ok.example.com'] } } },
    });
    const evil = await call(svc.app, 'POST', '/v1/pki/issue/plain', { token: t, body: { common_name: 'evil.example.com' } });
    expect(evil.status).toBe(403);
    const ok = await call(svc.app, 'POST', '/v1/pki/issue/plain', { token: t, body: { common_name: 'ok.example.com' } });
    expect(ok.status, ok.text).toBe(200);
    const extra = await call(svc.app, 'POST', '/v1/pki/issue/plain', { token: t, body: { common_name: 'ok.example.com', ttl: '30m' } });
    expect(extra.status).toBe(403);
  });

  it('denied_parameters and required_parameters, in HCL, form bodies included', async () => {
    const t = await holder(`
      path "pki/issue/plain" {
        capabilities = ["update"]
        denied_parameters = { "alt_names" = [] }
        required_parameters = ["common_name"]
      }`);
    expect(
      (await call(svc.app, 'POST', '/v1/pki/issue/plain', { token: t, body: { common_name: 'a.example.com', alt_names: 'b.example.com' } }))
        .status,
    ).toBe(403);
    expect((await call(svc.app, 'POST', '/v1/pki/issue/plain', { token: t, body: { ttl: '5m' } })).status).toBe(403);
    const form = await call(svc.app, 'POST', '/v1/pki/issue/plain', {
      token: t,
      raw: 'common_name=a.example.com&alt_names=b.example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(403);
    expect((await call(svc.app, 'POST', '/v1/pki/issue/plain', { token: t, body: { common_name: 'a.example.com' } })).status).toBe(200);
  });

  it('apply to sys itself: token create limited to one policy', async () => {
    await asRoot('PUT', 'sys/policy/reader', { policy: JSON.stringify({ path: { 'sys/mounts': { capabilities: ['read'] } } }) });
    const t = await holder({
      path: {
        'auth/token/create': { capabilities: ['create', 'update'], allowed_parameters: { policies: [['reader']], ttl: ['1h', '30m'] } },
        'sys/policy/*': { capabilities: ['read'] },
      },
    });
    // The maker does not hold "reader" itself, so even the allowed request fails the subset rule;
    // the point here is which refusal comes first: the parameter check (403) before anything.
    expect((await call(svc.app, 'POST', '/v1/auth/token/create', { token: t, body: { policies: ['reader'], ttl: '48h' } })).status).toBe(
      403,
    );
    expect((await call(svc.app, 'POST', '/v1/auth/token/create', { token: t, body: { policies: ['root'], ttl: '1h' } })).status).toBe(403);
    expect((await call(svc.app, 'GET', '/v1/sys/policy/reader', { token: t })).status).toBe(200);
  });
});

describe('policy documents', () => {
  it('refuse unknown keys with 400 naming them, and accept the legacy policy word', async () => {
    const typo = await asRoot('PUT', 'sys/policy/typo', { policy: JSON.stringify({ paths: { 'pki/*': { capabilities: ['read'] } } }) });
    expect(typo.status).toBe(400);
    expect(typo.json!.errors[0]).toMatch(/unknown key "paths"/);
    expect((await asRoot('GET', 'sys/policy/typo')).status).toBe(404);
    const inner = await asRoot('PUT', 'sys/policy/typo', { policy: 'path "pki/*" { capabilites = ["read"] }' });
    expect(inner.json!.errors[0]).toMatch(/unknown key "capabilites"/);
    const t = await holder('path "pki/roles/*" { policy = "read" }');
    expect((await call(svc.app, 'GET', '/v1/pki/roles/plain', { token: t })).status).toBe(200);
    expect((await call(svc.app, 'LIST', '/v1/pki/roles', { token: t })).status).toBe(200);
    expect((await call(svc.app, 'DELETE', '/v1/pki/roles/plain', { token: t })).status).toBe(403);
  });

  it('keep the text as written, so HCL reads back as HCL', async () => {
    const text = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';
    expect((await asRoot('PUT', 'sys/policy/hcl', { policy: text })).status).toBe(204);
    expect((await asRoot('GET', 'sys/policy/hcl')).json!.data.rules).toBe(text);
  });
});

describe('create and update by existence', () => {
  it('create alone makes a new role but cannot overwrite an existing one; update alone the reverse', async () => {
    const creator = await holder({ path: { 'pki/roles/*': { capabilities: ['create'] } } });
    const updater = await holder({ path: { 'pki/roles/*': { capabilities: ['update'] } } });
    const body = { allow_any_name: true, key_type: 'ec' };
    expect((await call(svc.app, 'POST', '/v1/pki/roles/fresh', { token: updater, body })).status).toBe(403);
    expect((await call(svc.app, 'POST', '/v1/pki/roles/fresh', { token: creator, body })).status).toBe(200);
    expect((await call(svc.app, 'POST', '/v1/pki/roles/fresh', { token: creator, body: { ...body, ttl: '9h' } })).status).toBe(403);
    expect((await call(svc.app, 'POST', '/v1/pki/roles/fresh', { token: updater, body: { ...body, ttl: '2h' } })).status).toBe(200);
    expect((await asRoot('GET', 'pki/roles/fresh')).json!.data.ttl).toBe('2h0m0s');
  });

  it('a path without an existence check needs update, as the reference server decides', async () => {
    const creator = await holder({ path: { 'pki/issue/plain': { capabilities: ['create'] } } });
    expect((await call(svc.app, 'POST', '/v1/pki/issue/plain', { token: creator, body: { common_name: 'a.example.com' } })).status).toBe(
      403,
    );
  });
});

describe('list is checked on the path with its trailing slash', () => {
  it('list on pki/roles/* lists pki/roles, LIST and ?list=true alike', async () => {
    const t = await holder({ path: { 'pki/roles/*': { capabilities: ['list'] } } });
    expect((await call(svc.app, 'LIST', '/v1/pki/roles', { token: t })).status).toBe(200);
    expect((await call(svc.app, 'GET', '/v1/pki/roles?list=true', { token: t })).status).toBe(200);
    expect((await call(svc.app, 'LIST', '/v1/pki/roles/', { token: t })).status).toBe(200);
    expect((await call(svc.app, 'GET', '/v1/pki/roles/plain', { token: t })).status).toBe(403);
  });

  it('read on pki/roles/* does not grant list', async () => {
    const t = await holder({ path: { 'pki/roles/*': { capabilities: ['read'] } } });
    expect((await call(svc.app, 'LIST', '/v1/pki/roles', { token: t })).status).toBe(403);
  });
});
