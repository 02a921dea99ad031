/**
 * python3-hvac (the reference server's Python client) drives auth/approle unmodified: role CRUD,
 * role id, secret ids (generated with metadata and cidr_list, custom, looked up, listed,
 * destroyed), `auth.approle.login` and the token it gets, a wrapped secret id unwrapped with
 * `sys.unwrap` (hvac's test_unwrap); node-vault's approle calls and `approleLogin`.
 */
import nodeVault from 'node-vault';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../../lib/local/http-server';
import { runHvac } from '../../helpers/hvac';
import { createTestService, type TestService } from '../../helpers/service';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let svc: TestService;
let out: Json;

beforeAll(async () => {
  svc = await createTestService();
  out = await runHvac(svc, join(import.meta.dirname, 'approle_hvac.py'));
}, 120_000);

describe('python3-hvac: auth/approle', () => {
  it('creates, reads and lists a role', () => {
    expect(out.role).toMatchObject({
      bind_secret_id: true,
      secret_id_ttl: 3600,
      secret_id_bound_cidrs: ['127.0.0.0/8'],
      token_policies: ['approle-reader'],
      token_ttl: 600,
    });
    expect(out.roles).toEqual(['hvac-role']);
  });

  it('generates a secret id with metadata and cidr_list; looks it up by value and accessor; lists accessors', () => {
    expect(out.generated).toMatchObject({ secret_id: '<secret>', secret_id_ttl: 3600, secret_id_num_uses: 0 });
    expect(out.generated.secret_id_accessor).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.lookup).toMatchObject({
      secret_id_accessor: out.generated.secret_id_accessor,
      metadata: { team: 'blue' },
      cidr_list: ['127.0.0.1/32'],
      secret_id_ttl: 3600,
    });
    expect(out.accessor_lookup.secret_id_accessor).toBe(out.generated.secret_id_accessor);
    expect(out.accessors).toEqual([out.generated.secret_id_accessor]);
  });

  it('auth.approle.login gives a token the client uses: its policy, meta role_name, display name approle', () => {
    expect(out.auth).toMatchObject({
      client_token: '<token>',
      policies: ['approle-reader', 'default'],
      lease_duration: 600,
      metadata: { role_name: 'hvac-role', team: 'blue' },
    });
    expect(out.client_uses_token).toBe(true);
    expect(out.lookup_self).toMatchObject({
      display_name: 'approle',
      meta: { role_name: 'hvac-role', team: 'blue' },
      path: 'auth/approle/login',
    });
    expect(out.allowed_read).toBe(true);
    expect(out.forbidden_write).toMatchObject({ error: 'Forbidden' });
  });

  it('refuses a wrong secret id and a wrong role id (hvac InvalidRequest "invalid role or secret ID")', () => {
    expect(out.wrong_secret).toEqual({ error: 'InvalidRequest', message: 'invalid role or secret ID' });
    expect(out.wrong_role).toEqual({ error: 'InvalidRequest', message: 'invalid role or secret ID' });
  });

  it('custom secret ids log in until destroyed; a secret id destroyed by accessor no longer logs in', () => {
    expect(out.custom).toMatchObject({ secret_id: '<secret>' });
    expect(out.custom_login).toBe(true);
    expect(out.custom_destroyed).toMatchObject({ error: 'InvalidRequest' });
    expect(out.accessor_destroyed).toMatchObject({ error: 'InvalidRequest' });
  });

  it('update_role_id sets a custom role id', () => {
    expect(out.role_id_after_update).toBe('hvac-custom-role-id');
  });

  it("hvac's test_unwrap: a secret id generated with wrap_ttl, unwrapped with sys.unwrap, logs in", () => {
    expect(out.wrap_info).toMatchObject({ token: '<token>', ttl: 60, creation_path: 'auth/approle/role/hvac-role/secret-id' });
    expect(out.wrapped_has_no_data).toBe(true);
    expect(out.unwrapped_keys).toEqual(['secret_id', 'secret_id_accessor', 'secret_id_num_uses', 'secret_id_ttl']);
    expect(out.unwrapped_login).toBe(true);
  });

  it('delete_role: the role is gone (InvalidPath)', () => {
    expect(out.deleted_read).toMatchObject({ error: 'InvalidPath' });
  });
});

describe('node-vault: auth/approle', () => {
  let server: Served;
  beforeAll(async () => {
    server = await listen(svc.app.fetch, { port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('addApproleRole, getApproleRoleId, getApproleRoleSecret, approleSecretLookup, approleLogin', async () => {
    const root = nodeVault({ endpoint: server.url, token: svc.root });
    await root.addApproleRole({ role_name: 'nv-role', policies: 'nv', token_ttl: 900 });
    const role: Json = await root.getApproleRole({ role_name: 'nv-role' });
    expect(role.data).toMatchObject({ token_policies: ['nv'], token_ttl: 900 });
    const roleId = ((await root.getApproleRoleId({ role_name: 'nv-role' })) as Json).data.role_id as string;
    const secret: Json = await root.getApproleRoleSecret({ role_name: 'nv-role', metadata: '{"via":"node-vault"}' });
    const secretId = secret.data.secret_id as string;
    const looked: Json = await root.approleSecretLookup({ role_name: 'nv-role', secret_id: secretId });
    expect(looked.data).toMatchObject({ secret_id_accessor: secret.data.secret_id_accessor, metadata: { via: 'node-vault' } });
    const app = nodeVault({ endpoint: server.url });
    const login: Json = await app.approleLogin({ role_id: roleId, secret_id: secretId });
    expect(login.auth).toMatchObject({
      policies: ['default', 'nv'],
      lease_duration: 900,
      metadata: { role_name: 'nv-role', via: 'node-vault' },
    });
    expect(app.token).toBe(login.auth.client_token);
    expect(((await app.tokenLookupSelf()) as Json).data).toMatchObject({ display_name: 'approle', meta: { role_name: 'nv-role' } });
    await expect(nodeVault({ endpoint: server.url }).approleLogin({ role_id: roleId, secret_id: 'wrong' })).rejects.toThrow(
      /invalid role or secret ID/,
    );
  });
});
