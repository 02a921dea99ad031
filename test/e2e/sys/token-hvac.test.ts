/** Compatibility: python3-hvac's token methods (create, orphans, periodic, roles, lookup/renew/revoke) against the local server. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../../lib/local/http-server';
import { createTestService, type TestService } from '../../helpers/service';

let svc: TestService;
let server: Served;

beforeAll(async () => {
  svc = await createTestService();
  server = await listen(svc.app.fetch, { port: 0 });
});

afterAll(async () => {
  await server.close();
});

describe('python3-hvac token methods', () => {
  it('create, orphans, periodic tokens, roles, lookup, renew and revoke behave as hvac expects', async () => {
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [join(import.meta.dirname, 'token_hvac.py')], {
      env: { ...process.env, LATCHKEY_ADDR: server.url, LATCHKEY_TOKEN: svc.root, PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 120_000,
    });
    const out = JSON.parse(stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(out.created).toMatchObject({
      policies: ['default', 'hvac-plain'],
      lease_duration: 3600,
      renewable: true,
      orphan: false,
      metadata: { team: 'a' },
    });
    expect(out.lookup).toMatchObject({
      id: out.created.client_token,
      display_name: 'token-ci',
      path: 'auth/token/create',
      orphan: false,
      type: 'service',
    });
    expect(out.lookup_self.id).toBe(out.created.client_token);
    expect(out.lookup_accessor).toMatchObject({ id: '', accessor: out.created.accessor });
    expect(out.renew.lease_duration).toBe(1800);
    expect(out.renew_self.lease_duration).toBe(1200);

    expect(out.periodic.lease_duration).toBe(7200);
    // The lookup may fall a second after the creation: its ttl counts down from the period.
    expect(out.periodic_lookup).toMatchObject({ period: 7200 });
    expect(out.periodic_lookup.ttl).toBeGreaterThanOrEqual(7199);
    expect(out.periodic_lookup.ttl).toBeLessThanOrEqual(7200);
    expect(out.periodic_renew.lease_duration).toBe(7200);

    expect(out.orphan.orphan).toBe(true);
    expect(out.orphan_lookup).toMatchObject({ orphan: true, path: 'auth/token/create-orphan' });
    expect(out.no_parent_plain).toMatch(/^InvalidRequest: .*sudo privileges required to create orphan token/);
    expect(out.no_parent_sudo.orphan).toBe(true);
    expect(out.period_plain).toMatch(/^InvalidRequest: .*periodic token/);

    expect(out.orphaned_child.orphan).toBe(true);
    expect(out.revoked_parent).toMatch(/^Forbidden: bad token/);

    expect(out.no_roles).toMatch(/^InvalidPath/);
    expect(out.role_write).toBe(204);
    expect(out.role).toMatchObject({
      name: 'app',
      allowed_policies: ['app-read'],
      orphan: true,
      renewable: true,
      path_suffix: 'v1',
      token_type: 'default-service',
    });
    expect(out.roles).toEqual(['app']);
    expect(out.from_role).toMatchObject({ policies: ['app-read', 'default'], orphan: true, lease_duration: 3600 });
    expect(out.from_role_lookup).toMatchObject({ role: 'app', path: 'auth/token/create/app/v1' });
    expect(out.from_role_outside).toMatch(/^InvalidRequest: .*must be subset of the role's allowed policies/);
    expect(out.roles_after_delete).toMatch(/^InvalidPath/);

    expect(out.revoked_accessor_lookup).toMatch(/^InvalidRequest: invalid accessor/);
    expect(out.revoked_lookup).toMatch(/^Forbidden: bad token/);
    expect(out.revoked_orphan_lookup).toMatch(/^Forbidden: bad token/);
  });
});
