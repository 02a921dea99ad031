/**
 * The SSH storage migration (lib/ssh/issuer-migration.ts) on a store in the previous release's
 * layout: one CA key pair in config/ca, sealed under that path. It becomes an issuer and the
 * default, a kill before any write leaves a store the next run finishes into the same state, and
 * config/ca stays readable by the previous release.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { Sealer } from '../../lib/keys/sealed';
import { deleteIssuer, setDefaultIssuer } from '../../lib/ssh/issuer-admin';
import { legacyIssuerId, migrateIssuers } from '../../lib/ssh/issuer-migration';
import { issuerIdOf, IssuerStore, STORAGE_VERSION, type LegacyCa } from '../../lib/ssh/issuer-store';
import { importIssuer } from '../../lib/ssh/issuers';
import { publicBlob, publicLine } from '../../lib/ssh/ssh-key';
import { SshStore } from '../../lib/ssh/ssh-store';
import type { Json, Partition, Store } from '../../lib/store/store';
import { createTestStore } from '../helpers/store';

const sealer = new Sealer(new LocalKeyWrapper(randomBytes(32)));
const ed25519 = () => generateKeyPairSync('ed25519').privateKey;
let store: Store;
let part: Partition;
const deps = () => ({ store, sealer, now: () => Date.now() });

beforeEach(async () => {
  store = (await createTestStore()).store;
  part = store.partition('ssh/ssh');
});

/** What the previous release's `config/ca` write stored (its SshStore.saveCa). */
async function previousReleaseWritesCa(key: KeyObject): Promise<string> {
  const line = publicLine(key);
  const pem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
  await part.put('config/ca', { public_key: line, private_key: await sealer.seal(pem, part.name, 'config/ca') });
  return line;
}

/** Every item of the partition, by key (values and versions). */
async function snapshot(p: Partition = part): Promise<Record<string, { value: Json; version: number }>> {
  const page = await p.list('', { limit: 1000 });
  return Object.fromEntries(page.items.map((i) => [i.key, { value: i.value, version: i.version }]));
}

/** The partition as a process killed before its `writes + 1`-th write sees it. */
function killedAfter(p: Partition, writes: number): Partition {
  let left = writes;
  const WRITES = new Set(['put', 'delete', 'batchPut', 'batchDelete', 'increment']);
  return new Proxy(p, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (WRITES.has(String(prop)) && left-- <= 0) throw new Error('killed');
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe('a mount written by the previous release', () => {
  it('becomes one issuer (id derived from the key) and the default on first use; config/ca is left as it was', async () => {
    const key = ed25519();
    const line = await previousReleaseWritesCa(key);
    const before = await part.get<LegacyCa>('config/ca');
    const issuers = await new SshStore(deps(), part).issuers();
    const id = issuerIdOf(line);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(await issuers.issuers()).toEqual([
      { id, name: '', publicKey: line, privateKey: before!.value.private_key, sealedAt: 'config/ca' },
    ]);
    expect(await issuers.defaultId()).toBe(id);
    expect(await issuers.meta()).toEqual({ version: STORAGE_VERSION, legacyCa: id });
    expect(await part.get('config/ca')).toEqual(before);
    // The copied sealed key opens and is the CA's key.
    const signer = await issuers.signer((await issuers.issuer(id))!);
    expect(signer.blob.equals(publicBlob(key))).toBe(true);
  });

  it('is migrated again to the same state: a re-run changes nothing', async () => {
    await previousReleaseWritesCa(ed25519());
    const issuers = new IssuerStore(deps(), part);
    await migrateIssuers(issuers);
    const once = await snapshot();
    await migrateIssuers(issuers);
    await migrateIssuers(issuers);
    expect(await snapshot()).toEqual(once);
  });

  it.each([0, 1, 2])(
    'killed after %i writes, the next first use finishes it into the same store as an uninterrupted one',
    async (writes) => {
      const key = ed25519();
      await previousReleaseWritesCa(key);
      // The same layout migrated without interruption, in a partition of its own, for comparison.
      const clean = store.partition('ssh/clean');
      await clean.put('config/ca', (await part.get('config/ca'))!.value);
      await migrateIssuers(new IssuerStore(deps(), clean));
      await expect(migrateIssuers(new IssuerStore(deps(), killedAfter(part, writes)))).rejects.toThrow('killed');
      expect(await part.get('meta/storage')).toBeUndefined();
      await new SshStore(deps(), part).issuers();
      expect(await snapshot()).toEqual(await snapshot(clean));
    },
  );

  it('the marker is the last write: three writes in all (issuer, default, marker)', async () => {
    await previousReleaseWritesCa(ed25519());
    await expect(migrateIssuers(new IssuerStore(deps(), killedAfter(part, 2)))).rejects.toThrow('killed');
    expect(Object.keys(await snapshot()).sort()).toEqual([
      'config/ca',
      'config/issuers',
      `issuer/${legacyIssuerId((await new IssuerStore(deps(), part).legacyCa())!)}`,
    ]);
    await migrateIssuers(new IssuerStore(deps(), killedAfter(part, 3)));
  });

  it('takes in a CA the previous release writes during a rolling deploy, as a new issuer made the default', async () => {
    const first = await previousReleaseWritesCa(ed25519());
    const issuers = new IssuerStore(deps(), part);
    await migrateIssuers(issuers);
    const second = await previousReleaseWritesCa(ed25519());
    await migrateIssuers(issuers);
    expect((await issuers.issuers()).map((i) => i.id).sort()).toEqual([issuerIdOf(first), issuerIdOf(second)].sort());
    expect(await issuers.defaultId()).toBe(issuerIdOf(second));
    expect(await issuers.meta()).toEqual({ version: STORAGE_VERSION, legacyCa: issuerIdOf(second) });
  });

  it("keeps an operator's default: with config/ca unchanged a later check writes nothing", async () => {
    await previousReleaseWritesCa(ed25519());
    const ssh = new SshStore(deps(), part);
    const { issuer } = await importIssuer(ssh, { key: ed25519(), name: 'next', setDefault: false });
    await setDefaultIssuer(ssh, 'next');
    await migrateIssuers(new IssuerStore(deps(), part));
    expect(await (await ssh.issuers()).defaultId()).toBe(issuer.id);
  });

  it('deleting the migrated issuer deletes config/ca too, so its key is neither left behind nor taken in again', async () => {
    const line = await previousReleaseWritesCa(ed25519());
    const ssh = new SshStore(deps(), part);
    await importIssuer(ssh, { key: ed25519(), name: 'next', setDefault: true });
    await deleteIssuer(ssh, issuerIdOf(line));
    expect(await part.get('config/ca')).toBeUndefined();
    const issuers = new IssuerStore(deps(), part);
    await migrateIssuers(issuers);
    expect((await issuers.issuers()).map((i) => i.name)).toEqual(['next']);
    expect(await issuers.meta()).toEqual({ version: STORAGE_VERSION, legacyCa: '' });
  });
});

describe('a mount without a CA', () => {
  it('gets the marker only', async () => {
    await part.put('roles/r', { keyType: 'otp' });
    await new SshStore(deps(), part).issuers();
    expect(Object.keys(await snapshot()).sort()).toEqual(['meta/storage', 'roles/r']);
    expect((await part.get('meta/storage'))!.value).toEqual({ version: STORAGE_VERSION, legacyCa: '' });
  });

  it('a config/ca record without a sealed key is not taken in', async () => {
    await part.put('config/ca', { public_key: 'ssh-ed25519 AAAA', private_key: 'not sealed' });
    const issuers = await new SshStore(deps(), part).issuers();
    expect(await issuers.issuers()).toEqual([]);
  });
});
