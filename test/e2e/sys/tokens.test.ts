import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;
let clock = Date.now();
beforeAll(async () => {
  svc = await createTestService({ now: () => clock });
});

describe('tokens', () => {
  it('creates a child token with the reference auth block, and looks it up', async () => {
    const r = await call(svc.app, 'POST', '/v1/auth/token/create', {
      token: svc.root,
      body: { policies: ['web'], ttl: '1h', meta: { team: 'a' }, display_name: 'ci' },
    });
    expect(r.status).toBe(200);
    const auth = r.json!.auth;
    expect(auth).toMatchObject({
      policies: ['default', 'web'],
      token_policies: ['default', 'web'],
      lease_duration: 3600,
      renewable: true,
      metadata: { team: 'a' },
    });
    expect(auth.client_token).toMatch(/^lk\.[A-Za-z0-9_-]{43}$/);
    const look = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: auth.client_token });
    expect(look.json!.data).toMatchObject({
      accessor: auth.accessor,
      display_name: 'token-ci',
      policies: ['default', 'web'],
      ttl: 3600,
      orphan: false,
      meta: { team: 'a' },
    });
  });

  it('reports the lease granted, even when a second passes while the token is written', async () => {
    // A clock that moves 0.6 s on every reading: create and renew take more than one reading.
    const start = clock;
    const ticking = await createTestService({ now: () => (clock += 600) });
    try {
      const r = await call(ticking.app, 'POST', '/v1/auth/token/create', { token: ticking.root, body: { ttl: '2h' } });
      expect(r.json!.auth.lease_duration).toBe(7200);
      const renewed = await call(ticking.app, 'POST', '/v1/auth/token/renew-self', {
        token: r.json!.auth.client_token,
        body: { increment: '30m' },
      });
      expect(renewed.json!.auth.lease_duration).toBe(1800);
    } finally {
      clock = start;
    }
  });

  it('a non-root token may only hand out its own policies', async () => {
    await call(svc.app, 'PUT', '/v1/sys/policy/creator', {
      token: svc.root,
      body: { policy: { path: { 'auth/token/create': { capabilities: ['update'] } } } },
    });
    const parent = await tokenWith(svc, ['creator']);
    const ok = await call(svc.app, 'POST', '/v1/auth/token/create', { token: parent, body: { policies: ['creator'] } });
    expect(ok.status).toBe(200);
    const bad = await call(svc.app, 'POST', '/v1/auth/token/create', { token: parent, body: { policies: ['admin'] } });
    expect(bad.status).toBe(400);
    expect(bad.json!.errors[0]).toMatch(/subset of the parent's: not allowed: admin/);
    const orphan = await call(svc.app, 'POST', '/v1/auth/token/create', { token: parent, body: { no_parent: true } });
    expect(orphan.status).toBe(400);
  });

  it('refuses an invalid, malformed or missing token with 403', async () => {
    for (const token of ['lk.nope', 'garbage', 'x'.repeat(5000), `${svc.root}x`]) {
      const r = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token });
      expect(r.status).toBe(403);
      expect(r.json!.errors[0]).toMatch(/^permission denied/);
    }
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self')).json).toEqual({
      errors: ['permission denied: missing client token'],
    });
  });

  it('enforces num_uses: the last use is served, then the token is gone', async () => {
    const t = await tokenWith(svc, ['default'], { num_uses: 2 });
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: t })).json!.data.num_uses).toBe(1);
    expect((await call(svc.app, 'GET', '/v1/sys/capabilities-self', { token: t })).status).toBe(405);
    const last = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: t });
    expect(last.status).toBe(200);
    expect(last.json!.data.num_uses).toBe(0);
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: t })).status).toBe(403);
  });

  it('num_uses holds under concurrency: exactly N of many parallel calls succeed', async () => {
    const t = await tokenWith(svc, ['default'], { num_uses: 3 });
    const results = await Promise.all(
      Array.from({ length: 12 }, () => call(svc.app, 'POST', '/v1/sys/capabilities-self', { token: t, body: { paths: ['a'] } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(9);
  });

  it('an expired token is refused', async () => {
    const t = await tokenWith(svc, ['default'], { ttl: '10s' });
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: t })).status).toBe(200);
    clock += 11_000;
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: t })).status).toBe(403);
  });

  it('renews up to explicit_max_ttl and refuses a non-renewable token', async () => {
    const t = await tokenWith(svc, ['default'], { ttl: '1m', explicit_max_ttl: '10m' });
    clock += 30_000;
    const r = await call(svc.app, 'POST', '/v1/auth/token/renew-self', { token: t, body: { increment: '1h' } });
    expect(r.status).toBe(200);
    expect(r.json!.auth.lease_duration).toBe(570);
    const fixed = await tokenWith(svc, ['default'], { ttl: '1m', renewable: false });
    const refused = await call(svc.app, 'POST', '/v1/auth/token/renew-self', { token: fixed, body: {} });
    expect(refused.status).toBe(400);
    expect(refused.json!.errors).toEqual(['this token is not renewable']);
  });

  it('revoking a token revokes its children', async () => {
    await call(svc.app, 'PUT', '/v1/sys/policy/maker', {
      token: svc.root,
      body: { policy: JSON.stringify({ path: { 'auth/token/create': { capabilities: ['create', 'update'] } } }) },
    });
    const parent = await tokenWith(svc, ['maker']);
    const child = (await call(svc.app, 'POST', '/v1/auth/token/create', { token: parent, body: {} })).json!.auth.client_token;
    const grandchild = (await call(svc.app, 'POST', '/v1/auth/token/create', { token: child, body: {} })).json!.auth.client_token;
    expect((await call(svc.app, 'POST', '/v1/auth/token/revoke', { token: svc.root, body: { token: parent } })).status).toBe(204);
    for (const t of [parent, child, grandchild]) {
      expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: t })).status).toBe(403);
    }
  });

  it('revoke-self and revoke-accessor', async () => {
    const a = await tokenWith(svc, ['default']);
    expect((await call(svc.app, 'POST', '/v1/auth/token/revoke-self', { token: a })).status).toBe(204);
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: a })).status).toBe(403);
    const b = await call(svc.app, 'POST', '/v1/auth/token/create', { token: svc.root, body: {} });
    const acc = b.json!.auth.accessor;
    expect(
      (await call(svc.app, 'POST', '/v1/auth/token/lookup-accessor', { token: svc.root, body: { accessor: acc } })).json!.data.id,
    ).toBe('');
    expect((await call(svc.app, 'POST', '/v1/auth/token/revoke-accessor', { token: svc.root, body: { accessor: acc } })).status).toBe(204);
    expect((await call(svc.app, 'POST', '/v1/auth/token/revoke-accessor', { token: svc.root, body: { accessor: acc } })).json).toEqual({
      errors: ['invalid accessor'],
    });
  });

  it('refuses bad create input with 400 naming the field', async () => {
    for (const [body, msg] of [
      [{ ttl: 'forever' }, /field "ttl"/],
      [{ num_uses: -2 }, /field "num_uses"/],
      [{ policies: { a: 1 } }, /field "policies"/],
      [{ meta: 'novalue' }, /field "meta"/],
      [{ renewable: 'perhaps' }, /field "renewable"/],
    ] as const) {
      const r = await call(svc.app, 'POST', '/v1/auth/token/create', { token: svc.root, body });
      expect(r.status).toBe(400);
      expect(r.json!.errors[0]).toMatch(msg);
    }
  });

  it('keeps no token in clear in the table', async () => {
    const t = await tokenWith(svc, ['default']);
    const scan = await svc.client.send(new ScanCommand({ TableName: svc.table }));
    const raw = JSON.stringify(scan.Items);
    expect(raw).not.toContain(t);
    expect(raw).not.toContain(t.slice(3));
    expect(raw).not.toContain(svc.root.slice(3));
  });
});

describe('ancestors on token records (the check reads them ahead, issue 30)', () => {
  it('a child made through auth/token/create records its chain, an orphan none; revoking the grandparent kills the grandchild', async () => {
    const policy = { policy: 'path "auth/token/create" { capabilities = ["update"] }' };
    expect((await call(svc.app, 'PUT', '/v1/sys/policies/acl/creator', { token: svc.root, body: policy })).status).toBe(204);
    const mk = async (token: string, body: Record<string, unknown> = {}, path = 'create') => {
      const r = await call(svc.app, 'POST', `/v1/auth/token/${path}`, { token, body: { policies: ['creator'], ttl: '1h', ...body } });
      expect(r.status, r.text).toBe(200);
      return r.json!.auth as { client_token: string; accessor: string };
    };
    const a = await mk(svc.root);
    const b = await mk(a.client_token);
    const c = await mk(b.client_token);
    const orphan = await mk(svc.root, {}, 'create-orphan');
    const rec = async (accessor: string) => (await svc.deps.tokens.byAccessor(accessor))!;
    const rootAccessor = (await svc.deps.tokens.lookup(svc.root))!.record.accessor;
    expect((await rec(c.accessor)).ancestors).toEqual([b.accessor, a.accessor, rootAccessor]);
    expect((await rec(orphan.accessor)).ancestors).toBeUndefined();
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: c.client_token })).status).toBe(200);
    expect((await call(svc.app, 'POST', '/v1/auth/token/revoke', { token: svc.root, body: { token: a.client_token } })).status).toBe(204);
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: c.client_token })).status).toBe(403);
  });
});
