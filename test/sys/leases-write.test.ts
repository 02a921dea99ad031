/**
 * A new lease and its owner link (lib/sys/leases.ts): the link is never written after the
 * lease. On DynamoDB (BatchWriteItem is not atomic: a crash can keep half a batch) the link
 * goes first, then the lease; on the embedded store (one LevelDB batch, all or nothing) both
 * go in one batch. Checked by recording the calls each real store receives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Partition } from '../../lib/store/store';
import { LevelStore } from '../../lib/store/level-store';
import { Leases, RevokerRegistry } from '../../lib/sys/leases';
import { createTestStore } from '../helpers/store';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The partition, with every write call recorded (method and key). */
function recorded(part: Partition, calls: string[]): Partition {
  return new Proxy(part, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || !['put', 'batchPut'].includes(String(prop))) return typeof v === 'function' ? v.bind(target) : v;
      return (...args: unknown[]) => {
        calls.push(
          prop === 'put'
            ? `put ${String(args[0]).split('/')[0]}`
            : `batchPut ${(args[0] as { key: string }[]).map((i) => i.key.split('/')[0]).join(',')}`,
        );
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function create(part: Partition) {
  const calls: string[] = [];
  const leases = new Leases(recorded(part, calls), new RevokerRegistry(), Date.now);
  const lease = await leases.create({
    mount: 'ssh',
    engine: 'ssh',
    path: 'sign/r',
    ttl: 60,
    maxTtl: 60,
    renewable: false,
    revoke: {},
    owner: 'acc1',
  });
  expect(await part.get(`owner/acc1/${lease.lease_id}`)).toBeDefined();
  expect(await part.get(`lease/${lease.lease_id}`)).toBeDefined();
  return calls;
}

it('on DynamoDB: the owner link, then the lease (no batch a crash could cut in half)', async () => {
  const { store } = await createTestStore();
  const part = store.partition('sys');
  expect(part.atomicBatch).toBeFalsy();
  expect(await create(part)).toEqual(['put owner', 'put lease']);
});

it('on the embedded store: both in one atomic batch', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-leases-'));
  dirs.push(dir);
  const store = await LevelStore.open(dir);
  try {
    const part = store.partition('sys');
    expect(part.atomicBatch).toBe(true);
    expect(await create(part)).toEqual(['batchPut owner,lease']);
  } finally {
    await store.close();
  }
});
