/**
 * What identities are for: a workload logged in through an auth method gets certificates and
 * SSH principals for its own names only, through the reference's identity templates in PKI and
 * SSH roles; a token without a login identity (auth/token) gets nothing from a templated rule.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import { loadEngines } from '../../../lib/engines';
import { call, createTestService, type TestService } from '../../helpers/service';

let svc: TestService;
let accessor: string;

const root = (method: string, path: string, body?: unknown) =>
  call(svc.app, method, `/v1/${path}`, { token: svc.root, ...(body !== undefined ? { body } : {}) });

async function loginAs(roleName: string): Promise<string> {
  expect([200, 204]).toContain((await root('POST', `auth/approle/role/${roleName}`, { token_policies: 'workload' })).status);
  const roleId = (await root('GET', `auth/approle/role/${roleName}/role-id`)).json!.data.role_id as string;
  const secretId = (await root('POST', `auth/approle/role/${roleName}/secret-id`)).json!.data.secret_id as string;
  const r = await call(svc.app, 'POST', '/v1/auth/approle/login', { body: { role_id: roleId, secret_id: secretId } });
  expect(r.status, r.text).toBe(200);
  expect(r.json!.auth.metadata).toMatchObject({ role_name: roleName });
  return r.json!.auth.client_token as string;
}

beforeAll(async () => {
  svc = await createTestService({ engines: await loadEngines() });
  accessor = (await root('GET', 'sys/auth')).json!.data['approle/'].accessor as string;
  expect(accessor).toMatch(/^auth_approle_[0-9a-f]{8}$/);
  await root('PUT', 'sys/policy/workload', {
    policy: 'path "pki/issue/*" { capabilities = ["update"] }\npath "ssh/sign/*" { capabilities = ["update"] }',
  });
  await root('POST', 'pki/root/generate/internal', { common_name: 'Templates Root', key_type: 'ec', key_bits: 256 });
  expect([200, 204]).toContain(
    (
      await root('POST', 'pki/roles/svc', {
        allowed_domains: `{{identity.entity.aliases.${accessor}.metadata.role_name}}.svc.example.com`,
        allowed_domains_template: true,
        allow_bare_domains: true,
        key_type: 'ec',
        key_bits: 256,
        no_store: true,
      })
    ).status,
  );
  await root('POST', 'ssh/config/ca', { generate_signing_key: true, key_type: 'ed25519' });
  const ssh = await root('POST', 'ssh/roles/self', {
    key_type: 'ca',
    allow_user_certificates: true,
    allowed_users_template: true,
    default_user_template: true,
    allowed_users: `{{identity.entity.aliases.${accessor}.metadata.role_name}}`,
    default_user: `{{identity.entity.aliases.${accessor}.metadata.role_name}}`,
  });
  expect([200, 204], ssh.text).toContain(ssh.status);
});

describe('identity templates after a login', () => {
  it('PKI: each workload gets a certificate for its own name, not for another', async () => {
    const web = await loginAs('web');
    const mine = await call(svc.app, 'POST', '/v1/pki/issue/svc', { token: web, body: { common_name: 'web.svc.example.com' } });
    expect(mine.status, mine.text).toBe(200);
    const theirs = await call(svc.app, 'POST', '/v1/pki/issue/svc', { token: web, body: { common_name: 'db.svc.example.com' } });
    expect(theirs.status).toBe(400);
    expect(theirs.json!.errors.join(' ')).toMatch(/not allowed/);
  });

  it('PKI: a token without a login identity resolves nothing', async () => {
    const r = await root('POST', 'pki/issue/svc', { common_name: 'web.svc.example.com' });
    expect(r.status).toBe(400);
  });

  it("SSH: the default user and the allowed users are the workload's own", async () => {
    const db = await loginAs('db');
    const key = sshpk
      .parseKey(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'pem')
      .toString('ssh');
    const signed = await call(svc.app, 'POST', '/v1/ssh/sign/self', { token: db, body: { public_key: key } });
    expect(signed.status, signed.text).toBe(200);
    const cert = sshpk.parseCertificate(signed.json!.data.signed_key as string, 'openssh');
    expect(cert.subjects.map((s) => s.uid)).toEqual(['db']);
    const other = await call(svc.app, 'POST', '/v1/ssh/sign/self', { token: db, body: { public_key: key, valid_principals: 'web' } });
    expect(other.status).toBe(400);
  });

  it('refuses a role whose template Latchkey cannot evaluate, when it is written', async () => {
    const r = await root('POST', 'pki/roles/bad', {
      allowed_domains: '{{identity.entity.name}}.example.com',
      allowed_domains_template: true,
    });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/unsupported template/);
  });
});
