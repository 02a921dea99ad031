/**
 * A new lease and its owner link (lib/sys/leases.ts): the link is never written after the
 * lease. On DynamoDB (BatchWriteItem is not atomic: a crash can keep half a batch) the link
 * goes first, then the lease; on the embedded store (one LevelDB batch, all or nothing) both
 * go in one batch. Checked by recording the calls each real store receives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { Sealer } from '../../lib/keys/sealed';
import type { Partition, TransactWrite } from '../../lib/store/store';
import { Tokens } from '../../lib/sys/tokens';
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

/** An SSH certificate's lease terms, but its owner. */
const SSH_LEASE = { mount: 'ssh', engine: 'ssh', path: 'sign/r', ttl: 60, maxTtl: 60, renewable: false, revoke: {} };

async function create(part: Partition) {
  const calls: string[] = [];
  const leases = new Leases(recorded(part, calls), new RevokerRegistry(), Date.now);
  const lease = await leases.create({ ...SSH_LEASE, owner: 'acc1' });
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

describe('with the owner check as a transaction condition (issue 30)', () => {
  async function setup() {
    const { store } = await createTestStore();
    const sys = store.partition('sys');
    const sealer = new Sealer(new LocalKeyWrapper(randomBytes(32)));
    const tokens = new Tokens(sys, sealer, Date.now, (ks) => store.getMany(ks.map((key) => ({ partition: 'sys', key }))));
    await tokens.ensureKey();
    const revokers = new RevokerRegistry();
    revokers.set('ssh', async () => undefined);
    const calls: string[] = [];
    const leases = new Leases(recorded(sys, calls), revokers, Date.now, (w) => store.transact(w));
    leases.ownerLive = (a) => tokens.accessorLive(a);
    const owner = await tokens.create({
      policies: ['default'],
      display_name: 't',
      meta: {},
      num_uses: 0,
      ttl: 3600,
      explicit_max_ttl: 0,
      renewable: true,
      parent: '',
      path: 'auth/token/create',
    });
    const found = (await tokens.lookup(owner.token))!;
    const terms = (records: TransactWrite[] = []) => ({
      ...SSH_LEASE,
      owner: owner.record.accessor,
      ownerLiveAs: found.chain,
      records,
    });
    return { store, sys, tokens, leases, owner, terms, calls };
  }

  it('writes the records, the owner link and the lease together, in one transaction (no single put)', async () => {
    const { store, sys, leases, owner, terms, calls } = await setup();
    const record: TransactWrite = { partition: 'ssh/ssh', key: 'cert/1', value: { a: 1 }, ifAbsent: true };
    const lease = await leases.create(terms([record]));
    expect((await store.partition('ssh/ssh').get('cert/1'))?.value).toEqual({ a: 1 });
    expect(await sys.get(`owner/${owner.record.accessor}/${lease.lease_id}`)).toBeDefined();
    expect(await sys.get(`lease/${lease.lease_id}`)).toBeDefined();
    expect(calls).toEqual([]);
  });

  it('refuses the lease of an owner revoked after its check (its accessor item changed): no lease, no owner link', async () => {
    const { sys, tokens, leases, owner, terms } = await setup();
    await tokens.revoke(owner.record);
    await expect(leases.create(terms())).rejects.toThrow(/the token was revoked/);
    expect((await sys.listKeys('lease/')).items).toEqual([]);
    expect((await sys.listKeys(`owner/${owner.record.accessor}/`)).items).toEqual([]);
  });

  it('still leases for an owner renewed since its check (the item changed, the token is live)', async () => {
    const { sys, tokens, leases, owner, terms } = await setup();
    await tokens.renew(owner.record, 7200);
    const lease = await leases.create(terms());
    expect(await sys.get(`lease/${lease.lease_id}`)).toBeDefined();
    expect(await sys.get(`owner/${owner.record.accessor}/${lease.lease_id}`)).toBeDefined();
  });
});
