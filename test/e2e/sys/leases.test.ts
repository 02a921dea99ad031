import { beforeAll, describe, expect, it } from 'vitest';
import { backoffSeconds, type LeaseRecord } from '../../../lib/sys/leases';
import { sweep } from '../../../lib/sys/sweeper';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;
let clock = Date.parse('2026-01-01T00:00:00Z');
const undone: string[] = [];
let failuresLeft = 0;

beforeAll(async () => {
  svc = await createTestService({ now: () => clock });
  // A test engine's revoker: records what it undid, fails while told to.
  svc.deps.revokers.set('test', async (lease: LeaseRecord) => {
    if (failuresLeft > 0) {
      failuresLeft--;
      throw new Error('the cloud said no (throttled)');
    }
    undone.push((lease.revoke as { thing: string }).thing);
  });
});

const newLease = (thing: string, ttl = 60, maxTtl = 600, engine = 'test') =>
  svc.deps.leases.create({ mount: 'test-mount', engine, path: 'creds/role', ttl, maxTtl, renewable: true, revoke: { thing }, owner: '' });

describe('leases', () => {
  it('looks up a lease with the reference fields', async () => {
    const l = await newLease('a');
    expect(l.lease_id).toMatch(/^test-mount\/creds\/role\/[A-Za-z0-9_-]{24}$/);
    const r = await call(svc.app, 'PUT', '/v1/sys/leases/lookup', { token: svc.root, body: { lease_id: l.lease_id } });
    expect(r.json!.data).toMatchObject({
      id: l.lease_id,
      renewable: true,
      ttl: 60,
      last_renewal: null,
      expire_time: '2026-01-01T00:01:00.000Z',
    });
  });

  it('renews up to the maximum', async () => {
    const l = await newLease('b', 60, 300);
    clock += 30_000;
    const r = await call(svc.app, 'PUT', '/v1/sys/leases/renew', { token: svc.root, body: { lease_id: l.lease_id, increment: '1h' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ lease_id: l.lease_id, lease_duration: 270, renewable: true });
  });

  it('revokes through the engine revoker, then forgets the lease', async () => {
    const l = await newLease('c');
    expect((await call(svc.app, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: l.lease_id } })).status).toBe(204);
    expect(undone).toContain('c');
    const again = await call(svc.app, 'PUT', '/v1/sys/leases/lookup', { token: svc.root, body: { lease_id: l.lease_id } });
    expect(again).toMatchObject({ status: 400, json: { errors: ['invalid lease'] } });
  });

  it('a failed revocation is reported, kept, and retried with back-off by the sweeper', async () => {
    const l = await newLease('d', 3600);
    failuresLeft = 3;
    const r = await call(svc.app, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: l.lease_id } });
    expect(r.status).toBe(502);
    expect(r.json!.errors[0]).toMatch(/failed to revoke lease .*: the cloud said no \(throttled\); it will be retried/);
    const kept = await svc.deps.leases.lookup(l.lease_id);
    expect(kept.attempts).toBe(1);
    // Not due yet: the sweeper leaves it alone.
    await sweep(svc.deps, 5000);
    expect((await svc.deps.leases.lookup(l.lease_id)).attempts).toBe(1);
    for (let attempt = 1; attempt <= 3; attempt++) {
      clock += backoffSeconds(attempt) * 1000;
      await sweep(svc.deps, 5000);
    }
    expect(undone).toContain('d');
    await expect(svc.deps.leases.lookup(l.lease_id)).rejects.toThrow('invalid lease');
  });

  it('a lease whose revoker keeps failing is never dropped', async () => {
    const l = await newLease('e', 1, 1, 'engine-without-revoker');
    for (let i = 0; i < 6; i++) {
      clock += 3600_000;
      await sweep(svc.deps, 5000);
    }
    const kept = await svc.deps.leases.lookup(l.lease_id);
    expect(kept.attempts).toBe(6);
    expect(kept.last_error).toMatch(/no revoker is registered for engine type "engine-without-revoker"/);
  });

  it('the sweeper revokes expired leases', async () => {
    const l = await newLease('f', 30);
    clock += 31_000;
    const report = await sweep(svc.deps, 5000);
    expect(report.leasesRevoked).toBeGreaterThanOrEqual(1);
    expect(undone).toContain('f');
    await expect(svc.deps.leases.lookup(l.lease_id)).rejects.toThrow('invalid lease');
  });

  it('the sweeper removes expired tokens', async () => {
    const t = await tokenWith(svc, ['default'], { ttl: '5s' });
    clock += 6000;
    const report = await sweep(svc.deps, 5000);
    expect(report.tokensRemoved).toBeGreaterThanOrEqual(1);
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: t })).status).toBe(403);
  });

  it('lists leases by prefix and refuses unknown or malformed ids', async () => {
    const l = await newLease('g');
    const list = await call(svc.app, 'LIST', '/v1/sys/leases/lookup/test-mount/creds/role', { token: svc.root });
    expect(list.json!.data.keys).toContain(l.lease_id.split('/').pop());
    for (const body of [{ lease_id: 'nope' }, { lease_id: 'x'.repeat(2000) }, {}, { lease_id: ['a'] }]) {
      const r = await call(svc.app, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body });
      expect(r.status).toBe(400);
    }
  });
});

describe('revoke-prefix over many leases', () => {
  const many = (n: number, mount: string) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        svc.deps.leases.create({
          mount,
          engine: 'test',
          path: 'creds/bulk',
          ttl: 600,
          maxTtl: 600,
          renewable: false,
          revoke: { thing: `bulk-${i}` },
          owner: '',
        }),
      ),
    );

  it('pages past the first 100 (and any listing cap): every lease under the prefix is revoked', async () => {
    await many(230, 'bulk-mount');
    const r = await call(svc.app, 'PUT', '/v1/sys/leases/revoke-prefix/bulk-mount/creds', { token: svc.root });
    expect(r.status).toBe(204);
    expect(await svc.deps.leases.list('bulk-mount/')).toEqual([]);
  });

  it('stops at its deadline and says so; calling again continues', async () => {
    await many(5, 'slow-mount');
    const first = await svc.deps.leases.revokePrefix('slow-mount/', false, Date.now() - 1);
    expect(first).toEqual({ revoked: 0, errors: [], unfinished: true });
    const second = await svc.deps.leases.revokePrefix('slow-mount/', false);
    expect(second).toEqual({ revoked: 5, errors: [], unfinished: false });
  });
});
