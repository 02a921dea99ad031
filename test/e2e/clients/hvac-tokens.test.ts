/**
 * python3-hvac drives auth/token/* as a user of the reference server would: what hvac returns and
 * which exceptions it raises (400 InvalidRequest, 403 Forbidden, 404 InvalidPath) are the
 * reference server's documented behaviour. Scenarios: hvac_tokens.py.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memo, runHvac, startClientService, type ClientService, type Json } from './harness';

let cs: ClientService;
const run = memo((scenario: string): Promise<Json> => runHvac(cs, 'hvac_tokens.py', scenario));
const refused = (cls: string, message?: RegExp) => ({ error: cls, message: message ? expect.stringMatching(message) : expect.any(String) });

beforeAll(async () => {
  cs = await startClientService([]);
});

afterAll(async () => {
  await cs.server.close();
});

describe('python3-hvac: auth/token', () => {
  it('creates with policies, ttl, meta, display_name; looks up by token, self and accessor', async () => {
    const out = await run('token_create');
    const pol = (out.auth.policies as string[]).find((p) => p !== 'default');
    expect(out.auth).toMatchObject({ client_token: '<token>', policies: ['default', pol], token_policies: ['default', pol] });
    expect(out.auth).toMatchObject({ metadata: { team: 'blue' }, lease_duration: 3600, renewable: true, orphan: false });
    expect(out.auth.accessor).toMatch(/\S{8,}/);
    expect(out.lookup).toMatchObject({ id: '<token>', accessor: out.auth.accessor, display_name: 'token-ci', meta: { team: 'blue' } });
    expect(out.lookup).toMatchObject({ num_uses: 0, orphan: false, path: 'auth/token/create', policies: ['default', pol] });
    expect(out.lookup).toMatchObject({ renewable: true, creation_ttl: 3600, explicit_max_ttl: 0, type: 'service' });
    expect(out.lookup.ttl).toBeGreaterThan(0);
    expect(out.lookup.ttl).toBeLessThanOrEqual(3600);
    expect(out.lookup_same_id).toBe(true);
    expect(out.lookup_self).toMatchObject({ accessor: out.auth.accessor, display_name: 'token-ci' });
    expect(out.lookup_self_same_id).toBe(true);
    expect(out.lookup_accessor).toMatchObject({ id: '', accessor: out.auth.accessor, policies: ['default', pol] });
    expect(out.explicit.lease_duration).toBe(300);
    expect(out.default_ttl.lease_duration).toBe(768 * 3600);
    expect(out.unknown_accessor).toEqual(refused('InvalidRequest', /invalid accessor/));
    expect(out.outside_parent).toEqual(refused('InvalidRequest'));
    expect(out.unknown_lookup.error).toBeDefined();
  });

  it('looking up an unknown or revoked token is 403 "bad token" (hvac Forbidden)', async () => {
    expect((await run('token_create')).unknown_lookup).toEqual(refused('Forbidden', /bad token/));
    const revoked = await run('revoke');
    for (const k of ['parent_lookup', 'child_lookup', 'grandchild_lookup', 'self_lookup', 'accessor_token_lookup']) {
      expect(revoked[k], k).toEqual(refused('Forbidden', /bad token/));
    }
    expect((await run('num_uses')).by_root).toEqual(refused('Forbidden', /bad token/));
  });

  it('num_uses: the token is refused once its uses are spent, and is gone', async () => {
    const out = await run('num_uses');
    expect(out.auth_num_uses).toBe(2);
    expect(out.first.ok).toBeDefined();
    expect(out.third).toEqual(refused('Forbidden'));
    expect(out.by_root.error).toBeDefined();
  });

  it('num_uses 2: the second request still answers', async () => {
    expect((await run('num_uses')).second.ok).toBeDefined();
  });

  it('renews by token and self with an increment, capped by explicit_max_ttl; refuses a non-renewable token', async () => {
    const out = await run('renew');
    expect(out.renewed).toMatchObject({ client_token: '<token>', lease_duration: 7200, renewable: true });
    expect(out.renewed_same_token).toBe(true);
    expect(out.self_renewed.lease_duration).toBe(1800);
    expect(out.capped.lease_duration).toBeLessThanOrEqual(3 * 3600);
    expect(out.capped.lease_duration).toBeGreaterThan(3 * 3600 - 600);
    expect(out.not_renewable).toEqual(refused('InvalidRequest'));
    expect(out.accessor_still_valid).toBe(true);
  });

  it('revokes by token (children and grandchildren with it), self and accessor', async () => {
    const out = await run('revoke');
    expect(out.revoke).toEqual({ ok: { status: 204, text: '' } });
    for (const k of ['parent_lookup', 'child_lookup', 'grandchild_lookup', 'self_lookup', 'accessor_token_lookup']) {
      expect(out[k].error, k).toBeDefined();
    }
    expect(out.child_accessor).toEqual(refused('InvalidRequest', /invalid accessor/));
    expect(out.revoke_self).toEqual({ ok: { status: 204, text: '' } });
    expect(out.revoke_accessor).toEqual({ ok: { status: 204, text: '' } });
    expect(out.accessor_lookup).toEqual(refused('InvalidRequest', /invalid accessor/));
    expect(out.revoke_accessor_again).toEqual(refused('InvalidRequest', /invalid accessor/));
  });

  it('orphans: create-orphan, no_parent for root only, revoke_and_orphan_children keeps the grandchildren', async () => {
    const out = await run('orphans');
    expect(out.orphan_auth).toMatchObject({ orphan: true, client_token: '<token>' });
    expect(out.orphan_lookup).toBe(true);
    expect(out.child_orphan_before).toBe(false);
    expect(out.no_parent_by_non_sudo.message).toMatch(/root or sudo privileges required to create orphan token/);
    expect(out.root_no_parent).toBe(true);
    expect(out.revoke_orphan_no_sudo.error).toBeDefined();
    expect(out.revoke_and_orphan).toEqual({ ok: { status: 204, text: '' } });
    expect(out.revoked_lookup).toEqual(refused('Forbidden', /bad token/));
    expect(out.grandchild_after).toEqual({ ok: true });
    expect(out.orphan_after_parent_revoked).toEqual({ ok: true });
  });

  it('sudo on auth/token/create allows no_parent; create-orphan needs only update on its own path', async () => {
    const out = await run('sudo_orphan');
    expect(out.sudo_no_parent).toEqual({ ok: true });
    expect(out.create_orphan_endpoint).toEqual({ ok: true });
  });

  it('periodic tokens: lease and every renewal are the period; period needs root or sudo', async () => {
    const out = await run('periodic');
    expect(out.auth).toMatchObject({ lease_duration: 1800, renewable: true });
    expect(out.lookup).toMatchObject({ period: 1800, explicit_max_ttl: 0, creation_ttl: 1800 });
    expect(out.renew_self.lease_duration).toBe(1800);
    expect(out.renew_increment.lease_duration).toBe(1800);
    expect(out.non_sudo_period.message).toMatch(/root or sudo privileges required to create periodic token/);
  });

  it('no_parent, period or revoke-orphan without sudo is 400 InvalidRequest, as the reference answers', async () => {
    expect((await run('orphans')).no_parent_by_non_sudo).toEqual(
      refused('InvalidRequest', /root or sudo privileges required to create orphan token/),
    );
    expect((await run('orphans')).revoke_orphan_no_sudo).toEqual(
      refused('InvalidRequest', /root or sudo privileges required to revoke and orphan/),
    );
    expect((await run('periodic')).non_sudo_period).toEqual(
      refused('InvalidRequest', /root or sudo privileges required to create periodic token/),
    );
  });

  it('token roles: CRUD and list, create against a role (policies, orphan, period, wrapping), revoke-prefix by role path', async () => {
    const out = await run('roles');
    expect(out.empty_list).toEqual(refused('InvalidPath'));
    expect(out.create_status).toBe(204);
    const pol = out.read.allowed_policies[0] as string;
    expect(out.read).toMatchObject({ allowed_policies: [pol], disallowed_policies: [], orphan: true, renewable: true, period: 0 });
    expect(out.read_periodic).toMatchObject({ allowed_policies: [pol], period: 3600 });
    expect(out.list).toEqual([out.read.name, out.read_periodic.name].sort());
    expect(out.auth).toMatchObject({ policies: ['default', pol], orphan: true, lease_duration: 3600 });
    expect(out.lookup).toMatchObject({ role: out.read.name, path: `auth/token/create/${out.read.name}`, orphan: true });
    expect(out.periodic_auth.lease_duration).toBe(3600);
    expect(out.outside_allowed).toEqual(refused('InvalidRequest'));
    expect(out.unknown_role).toEqual(refused('InvalidRequest', /unknown role/));
    expect(out.wrapped.auth).toBeNull();
    expect(out.wrapped.wrap_info).toMatchObject({ token: '<token>', ttl: 900, creation_path: `auth/token/create/${out.read.name}` });
    expect(out.unwrapped).toMatchObject({ client_token: '<token>', policies: ['default', pol], orphan: true });
    expect(out.delete_status).toBe(204);
    expect(out.read_deleted).toEqual(refused('InvalidPath'));
  });

  it('revoke_prefix on auth/token/create/<role> revokes the tokens made against the role', async () => {
    const out = await run('roles');
    expect(out.revoke_prefix).toEqual({ ok: { status: 204, text: '' } });
    expect(out.after_prefix).toEqual(refused('Forbidden', /bad token/));
  });

  it('create with wrap_ttl answers wrap_info only; lookup, unwrap once (as the client token), then it is gone', async () => {
    const out = await run('wrapped_create');
    expect(out.response.auth).toBeNull();
    expect(out.response.wrap_info).toMatchObject({ token: '<token>', ttl: 900, creation_path: 'auth/token/create' });
    expect(out.response.wrap_info.accessor).toEqual(expect.any(String));
    expect(out.lookup).toMatchObject({ creation_ttl: 900, creation_path: 'auth/token/create' });
    expect(out.unwrapped.auth).toMatchObject({ client_token: '<token>', lease_duration: 1800 });
    expect(out.token_lookup.period).toBe(1800);
    expect(out.accessor_matches).toBe(true);
    expect(out.again).toEqual(refused('InvalidRequest', /wrapping token is not valid or does not exist/));
    expect(out.lookup_after).toEqual(refused('InvalidRequest'));
  });
});
