/**
 * python3-hvac drives sys/* (policies, leases on real PKI certificates with generate_lease,
 * wrapping, seal status, health, mounts) as a user of the reference server would. Revoked
 * certificates are checked on the CRL with openssl. Scenarios: hvac_sys.py.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crlSerials, memo, normSerial, runHvac, startClientService, type ClientService, type Json } from './harness';

let cs: ClientService;
const run = memo((scenario: string): Promise<Json> => runHvac(cs, 'hvac_sys.py', scenario));
const refused = (cls: string, message?: RegExp) => ({ error: cls, message: message ? expect.stringMatching(message) : expect.any(String) });
const NO_CONTENT = { ok: { status: 204, text: '' } };

async function expectOnCrl(serials: string[]): Promise<void> {
  const onCrl = await crlSerials(cs);
  for (const s of serials) expect(onCrl.has(normSerial(s)), `serial ${s} on the CRL`).toBe(true);
}

beforeAll(async () => {
  cs = await startClientService();
});

afterAll(async () => {
  await cs.server.close();
});

describe('python3-hvac: sys leases (PKI certificates with generate_lease)', () => {
  it('issue answers a lease; read_lease shows it; renew_lease of a non-renewable lease is InvalidRequest', async () => {
    const out = await run('leases');
    expect(out.issue).toMatchObject({ lease_id: expect.stringMatching(/^pki\/issue\/leased\/\S+$/), renewable: false });
    // As the reference PKI: the lease runs to the certificate's NotAfter, so a second may be gone.
    expect(out.issue.lease_duration).toBeGreaterThan(3500);
    expect(out.issue.lease_duration).toBeLessThanOrEqual(3600);
    expect(out.read).toMatchObject({
      id: out.issue.lease_id,
      renewable: false,
      expire_time: expect.any(String),
      issue_time: expect.any(String),
    });
    expect(out.read.ttl).toBeGreaterThan(0);
    expect(out.read.ttl).toBeLessThanOrEqual(3600);
    expect(out.renew).toEqual(refused('InvalidRequest', /lease is not renewable/));
    expect(out.unknown).toEqual(refused('InvalidRequest', /invalid lease/));
  });

  it('list_leases goes one level deep, like the reference', async () => {
    const out = await run('leases');
    expect(out.list_mount.ok.data.keys).toEqual(['issue/']);
    expect(out.list_mount_noslash.ok.data.keys).toEqual(['issue/']);
    expect(out.list_role.ok.data.keys).toHaveLength(2);
    expect(out.list_role.ok.data.keys).toContain((out.issue.lease_id as string).split('/').pop());
    expect(out.list_after).toEqual(refused('InvalidPath'));
  });

  it('revoke_lease answers 204; the lease is gone and its certificate is on the CRL', async () => {
    const out = await run('leases');
    expect(out.revoke).toEqual(NO_CONTENT);
    expect(out.read_revoked).toEqual(refused('InvalidRequest', /invalid lease/));
    await expectOnCrl(out.serials.slice(0, 1));
  });

  it('the legacy sys/revoke/<id> and sys/renew/<id>', async () => {
    const out = await run('leases');
    expect(out.renew_legacy).toEqual(refused('InvalidRequest', /lease is not renewable/));
    expect(out.revoke_legacy).toEqual(NO_CONTENT);
    expect(out.read_legacy_revoked).toEqual(refused('InvalidRequest', /invalid lease/));
    await expectOnCrl(out.serials);
  });

  it('revoke_prefix (sudo) and revoke_force revoke every lease under the prefix', async () => {
    const out = await run('revoke_prefix');
    expect(out.no_sudo).toEqual(refused('Forbidden'));
    expect(out.revoke_prefix).toEqual(NO_CONTENT);
    for (const a of out.after) expect(a).toEqual(refused('InvalidRequest', /invalid lease/));
    expect(out.list_after).toEqual(refused('InvalidPath'));
    expect(out.revoke_force).toEqual(NO_CONTENT);
    expect(out.forced_after).toEqual(refused('InvalidRequest', /invalid lease/));
    await expectOnCrl(out.serials);
  });

  it('revoking a token (by accessor) revokes the leases its child token created; the certificates are on the CRL', async () => {
    const out = await run('token_revocation_revokes_leases');
    for (const l of out.leases_before) expect(l.ok.data.renewable).toBe(false);
    expect(out.revoke).toEqual(NO_CONTENT);
    expect(out.child_lookup).toEqual(refused('Forbidden'));
    for (const l of out.leases_after) expect(l).toEqual(refused('InvalidRequest', /invalid lease/));
    await expectOnCrl(out.serials);
  });
});

describe('python3-hvac: sys policies', () => {
  it('sys/policy: create, read (rules), list with default and root, delete; root and default are protected', async () => {
    const out = await run('policies');
    const doc = { path: { 'secret/*': { capabilities: ['read', 'list'] }, 'sys/mounts': { capabilities: ['read'] } } };
    expect(out.create).toEqual(NO_CONTENT);
    expect(out.read.name).toMatch(/^pol-/);
    expect(out.rules).toEqual(doc);
    expect(out.parsed).toEqual(doc);
    expect(out.list).toEqual(expect.arrayContaining(['default', 'root', out.read.name]));
    expect(out.compact).toEqual(NO_CONTENT);
    expect(out.delete).toEqual(NO_CONTENT);
    expect(out.after_delete).toBeNull();
    expect(out.list_after).not.toContain(out.read.name);
    expect(out.root_update).toEqual(refused('InvalidRequest'));
    expect(out.default_delete).toEqual(refused('InvalidRequest'));
  });

  it('a policy with an unknown key is refused naming it; the legacy {"policy": "read"} rule is accepted', async () => {
    const out = await run('policies');
    expect(out.typo_key).toEqual(refused('InvalidRequest', /paths/));
    expect(out.legacy_rule).toEqual(NO_CONTENT);
  });

  it('sys/policies/acl: write, read (policy), list, delete', async () => {
    const out = await run('acl_policies');
    expect(out.write).toEqual(NO_CONTENT);
    expect(out.read.data.name).toMatch(/^acl-/);
    expect(JSON.parse(out.read.data.policy)).toEqual(out.legacy_read);
    expect(out.list.ok).toEqual(expect.arrayContaining(['default', 'root', out.read.data.name]));
    expect(out.delete).toEqual(NO_CONTENT);
    expect(out.read_deleted).toEqual(refused('InvalidPath'));
  });
});

describe('python3-hvac: sys wrapping and system', () => {
  it('wrap, lookup, rewrap, unwrap once; X-Vault-Wrap-TTL on a read; bogus tokens refused', async () => {
    const out = await run('wrapping');
    expect(out.wrap.wrap_info).toMatchObject({ token: '<token>', ttl: 120, creation_path: 'sys/wrapping/wrap' });
    expect(out.wrap.data ?? null).toBeNull();
    expect(out.lookup.ok).toMatchObject({ creation_ttl: 120, creation_path: 'sys/wrapping/wrap' });
    expect(out.rewrap.wrap_info).toMatchObject({ token: '<token>', ttl: 120, creation_path: 'sys/wrapping/wrap' });
    expect(out.old_after_rewrap).toEqual(refused('InvalidRequest'));
    expect(out.unwrap).toEqual({ answer: '42', nested: { k: 'v' } });
    expect(out.unwrap_again).toEqual(refused('InvalidRequest', /wrapping token is not valid or does not exist/));
    expect(out.no_wrap_ttl).toEqual(refused('InvalidRequest'));
    expect(out.read_wrapped.wrap_info).toMatchObject({ ttl: 60, creation_path: 'sys/mounts' });
    expect(out.read_unwrapped_has_pki).toBe(true);
    expect(out.bogus).toEqual(refused('InvalidRequest'));
  });

  it('seal status, health, mounts, a mount and its tune settings', async () => {
    const out = await run('system');
    expect(out.seal_status.ok).toMatchObject({ sealed: false, initialized: true });
    expect(out.is_sealed).toEqual({ ok: false });
    expect(out.health.ok).toMatchObject({ initialized: true, sealed: false, standby: false });
    expect(out.mounts.ok.data['pki/']).toMatchObject({ type: 'pki' });
    expect(out.mount.ok.data).toMatchObject({ type: 'pki' });
    expect(out.tune.ok).toMatchObject({ default_lease_ttl: 768 * 3600, max_lease_ttl: 87600 * 3600 });
    expect(['InvalidRequest', 'InvalidPath']).toContain(out.unknown_mount.error);
    expect(out.authenticated).toEqual({ ok: true });
  });

  it('sys/mounts lists each mount at the top level too (hvac checks `"pki/" in list_mounted_secrets_engines()`)', async () => {
    const out = await run('system');
    expect(out.mounts.ok['pki/']).toMatchObject({ type: 'pki' });
  });
});

describe('python3-hvac: mixed-case names (vault policy write MyPolicy, Terraform)', () => {
  it('policy and AppRole role names are folded to lower case as Vault folds them: written, read, listed, logged in with, deleted', async () => {
    const out = await run('mixed_case');
    expect(out.write).toEqual(NO_CONTENT);
    expect(out.read_lower.ok.data ?? out.read_lower.ok).toMatchObject({ name: 'mixedpolicy' });
    expect(out.read_upper.ok.data ?? out.read_upper.ok).toMatchObject({ name: 'mixedpolicy' });
    expect(out.list.ok.data.keys).toContain('mixedpolicy');
    expect(out.list.ok.data.keys).not.toContain('MixedPolicy');
    expect(out.acl_write).toEqual(NO_CONTENT);
    expect(out.acl_read.ok.data).toMatchObject({ name: 'mixedacl' });
    expect(out.role_write).toEqual(NO_CONTENT);
    expect(out.role_read).toEqual({ ok: ['mixedpolicy'] });
    expect(out.login_policies).toEqual(['default', 'mixedpolicy']);
    expect(out.roles.ok).toContain('mixedrole');
    expect(out.delete).toEqual(NO_CONTENT);
    expect(out.after_delete).toMatchObject({ error: 'InvalidPath' });
  });
});
