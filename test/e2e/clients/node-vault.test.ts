/**
 * node-vault (npm) drives tokens, token roles, policies, leases, wrapping and the status paths
 * against listen() (lib/local/http-server.ts), as the reference server's users do. node-vault
 * rejects non-2xx answers with an ApiResponseError carrying `response.statusCode` and the first
 * error message.
 */
import nodeVault from 'node-vault';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crlSerials, failure, normSerial, startClientService, type ClientService, type Json } from './harness';

let cs: ClientService;
const vault = (token?: string) => nodeVault({ endpoint: cs.url, ...(token ? { token } : {}) });

beforeAll(async () => {
  cs = await startClientService();
});

afterAll(async () => {
  await cs.server.close();
});

describe('node-vault: tokens', () => {
  it('tokenCreate, tokenLookup, tokenLookupSelf, tokenLookupAccessor, tokenRenew, tokenRenewSelf', async () => {
    const root = vault(cs.root);
    const created: Json = await root.tokenCreate({ policies: ['issuer'], ttl: '1h', meta: { app: 'web' }, display_name: 'nv' });
    const { client_token: token, accessor } = created.auth;
    expect(root.token).toBe(token); // node-vault adopts the token it created
    root.token = cs.root;
    expect(created.auth).toMatchObject({
      policies: ['default', 'issuer'],
      lease_duration: 3600,
      renewable: true,
      metadata: { app: 'web' },
    });
    const looked: Json = await root.tokenLookup({ token });
    expect(looked.data).toMatchObject({ accessor, display_name: 'token-nv', meta: { app: 'web' }, path: 'auth/token/create' });
    expect(looked.data.id === token).toBe(true);
    const mine = vault(token);
    expect(((await mine.tokenLookupSelf()) as Json).data.accessor).toBe(accessor);
    expect(((await root.tokenLookupAccessor({ accessor })) as Json).data).toMatchObject({ id: '', accessor });
    expect(((await root.tokenRenew({ token, increment: '2h' })) as Json).auth.lease_duration).toBe(7200);
    expect(((await mine.tokenRenewSelf({ increment: '30m' })) as Json).auth.lease_duration).toBe(1800);
  });

  it('tokenRevoke, tokenRevokeAccessor, tokenRevokeSelf; a revoked token is refused', async () => {
    const root = vault(cs.root);
    const make = async () => ((await vault(cs.root).tokenCreate({ policies: ['issuer'] })) as Json).auth as Json;
    const [a, b, c] = [await make(), await make(), await make()];
    await root.tokenRevoke({ token: a.client_token });
    await root.tokenRevokeAccessor({ accessor: b.accessor });
    await vault(c.client_token).tokenRevokeSelf();
    for (const t of [a, b, c]) {
      const f = await failure(vault(t.client_token).tokenLookupSelf());
      expect(f).toMatchObject({ status: 403 });
    }
    expect(await failure(root.tokenLookupAccessor({ accessor: b.accessor }))).toEqual({
      status: 400,
      message: expect.stringMatching(/invalid accessor/),
    });
    expect(await failure(root.tokenLookup({ token: a.client_token }))).toEqual({
      status: 403,
      message: expect.stringMatching(/bad token/),
    });
  });

  it('tokenCreateOrphan and tokenRevokeOrphan (children survive as orphans)', async () => {
    const root = vault(cs.root);
    const parent = ((await vault(cs.root).tokenCreate({ policies: ['issuer', 'maker'] })) as Json).auth as Json;
    const child = ((await vault(parent.client_token).tokenCreate({ policies: ['issuer'] })) as Json).auth as Json;
    const orphan = ((await vault(cs.root).tokenCreateOrphan({ policies: ['issuer'] })) as Json).auth as Json;
    expect(orphan.orphan).toBe(true);
    await root.tokenRevokeOrphan({ token: parent.client_token });
    expect(await failure(vault(parent.client_token).tokenLookupSelf())).toMatchObject({ status: 403 });
    expect(((await root.tokenLookup({ token: child.client_token })) as Json).data.orphan).toBe(true);
  });

  it('token roles: addTokenRole, getTokenRole, tokenRoles, tokenCreateRole, removeTokenRole', async () => {
    const root = vault(cs.root);
    expect(await failure(root.tokenRoles())).toMatchObject({ status: 404 });
    await root.addTokenRole({ role_name: 'nv-role', allowed_policies: 'issuer', period: 3600, renewable: true });
    expect(((await root.getTokenRole({ role_name: 'nv-role' })) as Json).data).toMatchObject({
      allowed_policies: ['issuer'],
      period: 3600,
    });
    expect(((await root.tokenRoles()) as Json).data.keys).toEqual(['nv-role']);
    const made: Json = await vault(cs.root).tokenCreateRole({ role_name: 'nv-role' });
    expect(made.auth).toMatchObject({ policies: ['default', 'issuer'], lease_duration: 3600 });
    await root.removeTokenRole({ role_name: 'nv-role' });
    expect(await failure(root.getTokenRole({ role_name: 'nv-role' }))).toMatchObject({ status: 404 });
  });
});

describe('node-vault: policies', () => {
  it('addPolicy sends `rules`; getPolicy, policies, removePolicy; sys/policies/acl through read/write/list/delete', async () => {
    const root = vault(cs.root);
    const doc = { path: { 'secret/*': { capabilities: ['read'] } } };
    await root.addPolicy({ name: 'nv-pol', rules: JSON.stringify(doc) });
    expect(JSON.parse(((await root.getPolicy({ name: 'nv-pol' })) as Json).data.rules)).toEqual(doc);
    expect(((await root.policies()) as Json).data.policies).toEqual(expect.arrayContaining(['default', 'nv-pol', 'root']));
    await root.removePolicy({ name: 'nv-pol' });
    expect(await failure(root.getPolicy({ name: 'nv-pol' }))).toMatchObject({ status: 404 });
    await root.write('sys/policies/acl/nv-acl', { policy: JSON.stringify(doc) });
    expect(((await root.read('sys/policies/acl/nv-acl')) as Json).data).toMatchObject({ name: 'nv-acl' });
    expect(((await root.list('sys/policies/acl')) as Json).data.keys).toContain('nv-acl');
    await root.delete('sys/policies/acl/nv-acl');
    expect(await failure(root.read('sys/policies/acl/nv-acl'))).toMatchObject({ status: 404 });
  });

  it('a mixed-case name (addPolicy MyPolicy, approle role MyRole) is folded to lower case, as Vault folds it', async () => {
    const root = vault(cs.root);
    await root.addPolicy({ name: 'NvMixed', rules: JSON.stringify({ path: { 'x/*': { capabilities: ['read'] } } }) });
    expect(((await root.getPolicy({ name: 'nvmixed' })) as Json).data.name).toBe('nvmixed');
    expect(((await root.getPolicy({ name: 'NVMIXED' })) as Json).data.name).toBe('nvmixed');
    expect(((await root.policies()) as Json).data.policies).toContain('nvmixed');
    await root.write('auth/approle/role/NvRole', { token_policies: 'NvMixed' });
    expect(((await root.getApproleRoleId({ role_name: 'nvrole' })) as Json).data.role_id).toEqual(expect.any(String));
    expect(((await root.read('auth/approle/role/NVROLE')) as Json).data.token_policies).toEqual(['nvmixed']);
    await root.removePolicy({ name: 'NvMixed' });
    expect(await failure(root.getPolicy({ name: 'nvmixed' }))).toMatchObject({ status: 404 });
  });

  it('getPolicy().rules and policies().policies at the top level, as the reference answers sys/ reads', async () => {
    const root = vault(cs.root);
    await root.addPolicy({ name: 'nv-top', rules: JSON.stringify({ path: { 'a/*': { capabilities: ['read'] } } }) });
    expect(((await root.getPolicy({ name: 'nv-top' })) as Json).rules).toEqual(expect.any(String));
    expect(((await root.policies()) as Json).policies).toContain('nv-top');
    expect(((await root.mounts()) as Json)['pki/']).toMatchObject({ type: 'pki' });
  });

  it('a token without the capability gets 403', async () => {
    const token = ((await vault(cs.root).tokenCreate({ policies: ['issuer'] })) as Json).auth.client_token as string;
    expect(await failure(vault(token).policies())).toMatchObject({ status: 403 });
    expect(await failure(vault(token).addPolicy({ name: 'x', rules: '{}' }))).toMatchObject({ status: 403 });
  });
});

describe('node-vault: leases, wrapping, status', () => {
  const issue = async (cn: string): Promise<Json> => vault(cs.root).write('pki/issue/leased', { common_name: cn, ttl: '1h' });

  it('renew refuses a certificate lease (not renewable); revoke ends it and the certificate is on the CRL', async () => {
    const root = vault(cs.root);
    const cert = await issue('nv1.example.com');
    expect(await failure(root.renew({ lease_id: cert.lease_id, increment: 60 }))).toEqual({
      status: 400,
      message: expect.stringMatching(/lease is not renewable/),
    });
    await root.revoke({ lease_id: cert.lease_id });
    expect(await failure(root.write('sys/leases/lookup', { lease_id: cert.lease_id }))).toEqual({
      status: 400,
      message: expect.stringMatching(/invalid lease/),
    });
    expect((await crlSerials(cs)).has(normSerial(cert.data.serial_number))).toBe(true);
  });

  it('revokePrefix (legacy sys/revoke-prefix) revokes every lease under the prefix', async () => {
    const root = vault(cs.root);
    const certs = [await issue('nv2.example.com'), await issue('nv3.example.com')];
    await root.revokePrefix({ path_prefix: 'pki/issue/leased' });
    for (const c of certs) expect(await failure(root.write('sys/leases/lookup', { lease_id: c.lease_id }))).toMatchObject({ status: 400 });
  });

  it('X-Vault-Wrap-TTL on tokenCreate answers wrap_info; unwrap gives the token once', async () => {
    const root = vault(cs.root);
    const wrapped: Json = await root.tokenCreate({ policies: ['issuer'], requestOptions: { headers: { 'X-Vault-Wrap-TTL': '5m' } } });
    expect(wrapped.auth).toBeNull();
    expect(wrapped.wrap_info).toMatchObject({ ttl: 300, creation_path: 'auth/token/create' });
    const unwrapped: Json = await vault(cs.root).unwrap({ token: wrapped.wrap_info.token });
    expect(unwrapped.auth.policies).toEqual(['default', 'issuer']);
    expect(await failure(vault(cs.root).unwrap({ token: wrapped.wrap_info.token }))).toMatchObject({ status: 400 });
  });

  it('health, status (seal-status), mounts', async () => {
    const anonymous = vault();
    expect(await anonymous.health()).toMatchObject({ initialized: true, sealed: false, standby: false });
    expect(await anonymous.status()).toMatchObject({ initialized: true, sealed: false });
    expect(((await vault(cs.root).mounts()) as Json).data['pki/']).toMatchObject({ type: 'pki' });
    expect(await failure(anonymous.mounts())).toMatchObject({ status: 403 });
  });
});

describe("node-vault: its own integration flow (init, then status checked against node-vault's response schemas)", () => {
  it('init on an initialised service is rejected with the reference message node-vault takes as done; status matches its schema', async () => {
    const client = vault();
    const init = await failure(client.init({ secret_shares: 1, secret_threshold: 1 }));
    expect(init).toEqual({ status: 400, message: 'Vault is already initialized' });
    const status = await client.status();
    // node-vault's own schema check (tv4, its dependency), as its integration test does.
    const load = createRequire(import.meta.url);
    const tv4 = load('tv4') as { validate(data: unknown, schema: object): boolean; error: unknown };
    const commands = load('node-vault/src/commands.js') as Record<string, { schema: { res: object } }>;
    expect(tv4.validate(status, commands.status!.schema.res), JSON.stringify(tv4.error)).toBe(true);
  });
});
