/** The issuer repository (lib/ssh/issuer-store.ts): ids from keys, name claims by conditional writes, the default pointer. */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { ExistsError } from '../../lib/domain-errors';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { Sealer } from '../../lib/keys/sealed';
import { issuerIdOf, IssuerStore, type IssuerRecord } from '../../lib/ssh/issuer-store';
import { publicBlob, publicLine } from '../../lib/ssh/ssh-key';
import type { Partition } from '../../lib/store/store';
import { createTestStore } from '../helpers/store';

const sealer = new Sealer(new LocalKeyWrapper(randomBytes(32)));
let part: Partition;
let clock: number;
let issuers: IssuerStore;

beforeEach(async () => {
  part = (await createTestStore()).store.partition('ssh/ssh');
  clock = 1_700_000_000_000;
  issuers = new IssuerStore({ sealer, now: () => clock }, part);
});

async function record(name = ''): Promise<IssuerRecord> {
  const key = generateKeyPairSync('ed25519').privateKey;
  const publicKey = publicLine(key);
  const id = issuerIdOf(publicKey);
  return { id, name, publicKey, privateKey: await issuers.sealKey(id, key) };
}

describe('issuer records', () => {
  it('derive the id from the public key alone (a comment or spacing changes nothing)', async () => {
    const r = await record();
    expect(issuerIdOf(`${r.publicKey.trim()} some comment`)).toBe(r.id);
    expect(issuerIdOf(`  ${r.publicKey.trim().replace(' ', '   ')}\n`)).toBe(r.id);
    expect(issuerIdOf((await record()).publicKey)).not.toBe(r.id);
  });

  it('are written once: a second add of the same key answers false and keeps the first', async () => {
    const r = await record('first');
    expect(await issuers.add(r)).toBe(true);
    expect(await issuers.add({ ...r, name: 'second' })).toBe(false);
    expect((await issuers.issuer(r.id))!.name).toBe('first');
    expect(await issuers.hasIssuers()).toBe(true);
  });

  it('keep the private key sealed (no PEM in the record) and open it to the same key', async () => {
    const r = await record();
    await issuers.add(r);
    expect(JSON.stringify(await part.get(`issuer/${r.id}`))).not.toContain('PRIVATE KEY');
    const signer = await issuers.signer((await issuers.issuer(r.id))!);
    expect(publicLine(signer.key)).toBe(r.publicKey);
    expect(signer.blob.equals(publicBlob(signer.key))).toBe(true);
  });
});

describe('name claims', () => {
  it('refuse a name another issuer holds', async () => {
    const a = await record('ops');
    await issuers.claim('ops', a.id);
    await issuers.add(a);
    const b = await record();
    await expect(issuers.claim('ops', b.id)).rejects.toThrow(new ExistsError('issuer name already in use'));
    await issuers.claim('ops', a.id); // its own claim again: fine
  });

  it('hold a name for a write under way (a claim younger than a minute whose issuer is not written yet)', async () => {
    const a = await record('ops');
    await issuers.claim('ops', a.id);
    clock += 30_000;
    await expect(issuers.claim('ops', (await record()).id)).rejects.toThrow('issuer name already in use');
  });

  it('are taken over when stale: older than a minute and its issuer does not carry the name', async () => {
    const a = await record();
    await issuers.add(a); // a crash left its claim on "ops", the record unnamed
    await issuers.claim('ops', a.id);
    clock += 61_000;
    const b = await record('ops');
    await issuers.claim('ops', b.id);
    expect(await issuers.claimOf('ops')).toBe(b.id);
  });

  it('are released only by their holder', async () => {
    const a = await record('ops');
    await issuers.claim('ops', a.id);
    await issuers.release('ops', 'someone-else');
    expect(await issuers.claimOf('ops')).toBe(a.id);
    await issuers.release('ops', a.id);
    expect(await issuers.claimOf('ops')).toBeUndefined();
  });
});

describe('the default pointer', () => {
  it('is set, kept when only a missing default may be set, unset by id or all', async () => {
    expect(await issuers.defaultId()).toBe('');
    expect(await issuers.setDefault('a', true)).toBe('');
    expect(await issuers.setDefault('b', true)).toBe('a');
    expect(await issuers.defaultId()).toBe('a');
    expect(await issuers.setDefault('b')).toBe('a');
    expect(await issuers.unsetDefault('a')).toBe(false);
    expect(await issuers.unsetDefault('b')).toBe(true);
    await issuers.setDefault('c');
    expect(await issuers.unsetDefault('')).toBe(true);
    expect(await issuers.defaultId()).toBe('');
  });

  it('setDefaultIfUnchanged loses to a write made since the read', async () => {
    const read = await issuers.defaultItem();
    await issuers.setDefault('operator');
    expect(await issuers.setDefaultIfUnchanged('migration', read)).toBe(false);
    expect(await issuers.defaultId()).toBe('operator');
  });
});
