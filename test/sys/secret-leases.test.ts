/**
 * The leases of a request's secret (lib/sys/secret-leases.ts) on a real store: grant makes the
 * lease under the request's place, owned by its caller; writeAhead issues under a provisional
 * lease, hands the client a lease with the final terms and retires the provisional one, and on
 * any failure revokes the provisional lease (undoing what it names) and throws.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Forbidden, InvalidInput } from '../../lib/domain-errors';
import { setLogLevel } from '../../lib/log';
import type { Json, Partition } from '../../lib/store/store';
import { Leases, RevokerRegistry, type LeaseRecord } from '../../lib/sys/leases';
import { ISSUING_WINDOW, SecretLeases, type LeasePlace } from '../../lib/sys/secret-leases';
import { captureLogs } from '../helpers/capture-logs';
import { createTestStore } from '../helpers/store';

const place: LeasePlace = { mount: 'cloud', engine: 'test-engine', path: 'creds/web', owner: 'acc1' };

interface Bench {
  /** This test's mount (each test its own, so lease listings see only its leases). */
  mount: string;
  part: Partition;
  leases: Leases;
  secrets: SecretLeases;
  /** What the revoker was asked to undo, in order. */
  revoked: Json[];
  /** Makes the revoker fail (the cloud is down). */
  failing: { on: boolean };
  /** Live owner accessors. */
  live: Set<string>;
}

let part: Partition;
beforeAll(async () => {
  part = (await createTestStore()).store.partition('sys');
});

afterEach(() => {
  vi.restoreAllMocks();
  setLogLevel('silent');
});

let seq = 0;
function bench(): Bench {
  const revoked: Json[] = [];
  const failing = { on: false };
  const live = new Set(['acc1']);
  const revokers = new RevokerRegistry();
  revokers.set('test-engine', async (lease) => {
    if (failing.on) throw new Error('the cloud is down');
    revoked.push(lease.revoke);
  });
  const leases = new Leases(part, revokers, Date.now);
  leases.ownerLive = async (accessor) => live.has(accessor);
  const mount = `cloud${++seq}`;
  const secrets = new SecretLeases(leases, { ...place, mount });
  return { mount, part, leases, secrets, revoked, failing, live };
}

const idShape = (b: Bench, path = 'creds/web') => new RegExp(`^${b.mount}/${path}/[A-Za-z0-9_-]{24}$`);
const leasesOf = (b: Bench) => b.leases.list(`${b.mount}/`);
const duration = (l: LeaseRecord) => l.expire_time - l.issue_time;

describe('grant', () => {
  it('makes the lease under the request mount and path, owned by the caller, with the terms', async () => {
    const b = bench();
    const lease = await b.secrets.grant({ revoke: { serial: '01' }, ttl: 60 });
    expect(lease).toMatchObject({ engine: 'test-engine', owner: 'acc1', renewable: false, revoke: { serial: '01' } });
    expect(lease.lease_id).toMatch(idShape(b));
    expect(duration(lease)).toBe(60);
    expect(lease.max_expire_time).toBe(lease.expire_time);
    expect(await b.part.get(`owner/acc1/${lease.lease_id}`)).toBeDefined();
    expect(await b.leases.lookup(lease.lease_id)).toEqual(lease);
  });

  it('takes a max ttl, renewability and another path under the mount', async () => {
    const b = bench();
    const lease = await b.secrets.grant({ revoke: {}, ttl: 60, maxTtl: 600, renewable: true, path: 'issue/web' });
    expect(lease.lease_id).toMatch(idShape(b, 'issue/web'));
    expect(duration(lease)).toBe(60);
    expect(lease.max_expire_time - lease.issue_time).toBe(600);
    expect(lease.renewable).toBe(true);
  });

  it('refuses (and undoes) a lease whose owner was revoked meanwhile', async () => {
    const b = bench();
    b.live.clear();
    await expect(b.secrets.grant({ revoke: { n: 1 }, ttl: 60 })).rejects.toThrow(Forbidden);
    expect(await leasesOf(b)).toEqual([]);
    expect(b.revoked).toEqual([{ n: 1 }]);
  });

  it('grantUnowned: a lease no token owns, made even when the caller is gone', async () => {
    const b = bench();
    b.live.clear();
    const lease = await b.secrets.grantUnowned({ revoke: { n: 2 }, ttl: 1 });
    expect(lease.owner).toBe('');
    expect(lease.lease_id).toMatch(idShape(b));
    expect(duration(lease)).toBe(1);
    expect(await b.leases.exists(lease.lease_id)).toBe(true);
  });
});

describe('writeAhead', () => {
  it('issues under a provisional lease naming the record, then hands out the final lease and retires the provisional one', async () => {
    const b = bench();
    let provisional: LeaseRecord | undefined;
    const { lease, value } = await b.secrets.writeAhead({ kind: 'user', name: 'u1' }, async (p) => {
      provisional = p;
      expect(duration(p)).toBe(ISSUING_WINDOW);
      expect(p.owner).toBe('acc1');
      expect((await b.leases.lookup(p.lease_id)).revoke).toEqual({ kind: 'user', name: 'u1' });
      await b.secrets.update(p.lease_id, { kind: 'user', name: 'u1', key: 'k1' });
      return { terms: { revoke: { kind: 'user', name: 'u1', key: 'k1' }, ttl: 120, maxTtl: 3600, renewable: true }, value: 'secret' };
    });
    expect(value).toBe('secret');
    expect(lease.lease_id).toMatch(idShape(b));
    expect(lease).toMatchObject({ owner: 'acc1', renewable: true, revoke: { kind: 'user', name: 'u1', key: 'k1' } });
    expect(duration(lease)).toBe(120);
    // The retired provisional lease was revoked as moved: nothing for the engine to undo.
    expect(await b.leases.exists(provisional!.lease_id)).toBe(false);
    expect(b.revoked).toEqual([{ kind: 'moved', to: lease.lease_id }]);
    expect(await leasesOf(b)).toEqual([lease.lease_id.slice(`${b.mount}/`.length)]);
  });

  it('a failed step revokes the provisional lease, undoing what it names as advanced, and throws the error', async () => {
    const b = bench();
    const boom = new Error('step 2 failed');
    await expect(
      b.secrets.writeAhead({ kind: 'user', name: 'u2' }, async (p) => {
        await b.secrets.update(p.lease_id, { kind: 'user', name: 'u2', step: 1 });
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(b.revoked).toEqual([{ kind: 'user', name: 'u2', step: 1 }]);
    expect(await leasesOf(b)).toEqual([]);
  });

  it('when that undo fails too, the provisional lease stays for the sweeper and <engine>-undo-deferred is logged', async () => {
    const b = bench();
    const lines = captureLogs();
    b.failing.on = true;
    const boom = new Error('step failed');
    let id = '';
    await expect(
      b.secrets.writeAhead({ kind: 'user', name: 'u3' }, async (p) => {
        id = p.lease_id;
        throw boom;
      }),
    ).rejects.toBe(boom);
    const kept = await b.leases.lookup(id);
    expect(kept).toMatchObject({ attempts: 1, revoke: { kind: 'user', name: 'u3' } });
    expect(kept.last_error).toContain('the cloud is down');
    expect(lines.join('')).toContain('test-engine-undo-deferred');
    b.failing.on = false;
    await b.leases.revoke(id);
    expect(b.revoked).toEqual([{ kind: 'user', name: 'u3' }]);
  });

  it('retiring: when the provisional lease cannot take the moved record, the final lease is dropped and the provisional one undone', async () => {
    const b = bench();
    // The steps succeed, but the provisional lease is gone by the end (revoked behind the
    // request's back, e.g. by a prefix revocation): the client's lease must not outlive it.
    const issue = b.secrets.writeAhead({ kind: 'user', name: 'u4' }, async (p) => {
      await b.leases.revokeForced(p.lease_id);
      return { terms: { revoke: { kind: 'user', name: 'u4', key: 'k4' }, ttl: 60 }, value: 'k4' };
    });
    await expect(issue).rejects.toThrow(InvalidInput);
    expect(await leasesOf(b)).toEqual([]);
    // The provisional record (forced revocation) and the final one, dropped: both undone.
    expect(b.revoked).toEqual([
      { kind: 'user', name: 'u4' },
      { kind: 'user', name: 'u4', key: 'k4' },
    ]);
  });

  it('an owner revoked while issuing: the client lease is refused and the provisional lease undone', async () => {
    const b = bench();
    await expect(
      b.secrets.writeAhead({ kind: 'user', name: 'u5' }, async () => {
        b.live.delete('acc1');
        return { terms: { revoke: { kind: 'user', name: 'u5', key: 'k5' }, ttl: 60 }, value: 1 };
      }),
    ).rejects.toThrow(Forbidden);
    expect(await leasesOf(b)).toEqual([]);
    expect(b.revoked).toEqual([
      { kind: 'user', name: 'u5', key: 'k5' },
      { kind: 'user', name: 'u5' },
    ]);
  });
});
