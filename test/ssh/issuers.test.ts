/** Issuers (lib/ssh/issuers.ts): names, references, imports and the default, and the trusted-keys file. */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { Sealer } from '../../lib/keys/sealed';
import { issuerIdOf, type IssuerRecord } from '../../lib/ssh/issuer-store';
import { checkIssuerName, findIssuer, importIssuer, listIssuers, signingIssuer, trustedKeyLines } from '../../lib/ssh/issuers';
import { publicBlob, publicLine } from '../../lib/ssh/ssh-key';
import { SshStore } from '../../lib/ssh/ssh-store';
import { createTestStore } from '../helpers/store';

const sealer = new Sealer(new LocalKeyWrapper(randomBytes(32)));
const ed25519 = () => generateKeyPairSync('ed25519').privateKey;
let ssh: SshStore;

beforeEach(async () => {
  const { store } = await createTestStore();
  ssh = new SshStore({ store, sealer, now: () => Date.now() }, store.partition('ssh/ssh'));
});

describe('issuer names', () => {
  it.each([
    ['', /expected non-empty issuer name/],
    ['  ', /expected non-empty issuer name/],
    ['default', /reserved keyword 'default'/],
    ['DeFault', /reserved keyword 'default'/],
    ['two words', /contained invalid characters/],
    ['-x', /issuer name "-x" contained invalid characters/],
  ])('refuses %j', (name, message) => {
    expect(() => checkIssuerName(name)).toThrow(InvalidInput);
    expect(() => checkIssuerName(name)).toThrow(message);
  });

  it('takes a name trimmed', () => {
    expect(checkIssuerName(' ca-2026.a ')).toBe('ca-2026.a');
  });
});

describe('importing', () => {
  it('the first issuer becomes the default; the next only with setDefault', async () => {
    const first = await importIssuer(ssh, { key: ed25519(), name: 'old', setDefault: false });
    const second = await importIssuer(ssh, { key: ed25519(), name: 'new', setDefault: false });
    expect((await findIssuer(ssh, 'default'))!.id).toBe(first.issuer.id);
    const third = await importIssuer(ssh, { key: ed25519(), name: '', setDefault: true });
    expect((await findIssuer(ssh, 'default'))!.id).toBe(third.issuer.id);
    const { issuers, defaultId } = await listIssuers(ssh);
    expect(issuers.map((i) => i.id).sort()).toEqual([first, second, third].map((i) => i.issuer.id).sort());
    expect(defaultId).toBe(third.issuer.id);
  });

  it('a key already there answers its issuer as it is (existing), under its own name', async () => {
    const key = ed25519();
    const a = await importIssuer(ssh, { key, name: 'a', setDefault: false });
    const again = await importIssuer(ssh, { key, name: 'b', setDefault: false });
    expect(again).toEqual({ issuer: a.issuer, existing: true });
    expect(await findIssuer(ssh, 'b')).toBeUndefined();
  });

  it('refuses a name another issuer holds, and writes nothing', async () => {
    await importIssuer(ssh, { key: ed25519(), name: 'ops', setDefault: false });
    const key = ed25519();
    await expect(importIssuer(ssh, { key, name: 'ops', setDefault: true })).rejects.toThrow('issuer name already in use');
    expect(await findIssuer(ssh, issuerIdOf(publicLine(key)))).toBeUndefined();
  });
});

describe('references', () => {
  it('find an issuer by id, by name and as default', async () => {
    const { issuer } = await importIssuer(ssh, { key: ed25519(), name: 'ops', setDefault: false });
    for (const ref of [issuer.id, 'ops', 'default', ' Default ']) expect((await findIssuer(ssh, ref))!.id).toBe(issuer.id);
    const otherId = (issuer.id.startsWith('f') ? '0' : 'f') + issuer.id.slice(1);
    for (const ref of ['Ops', 'other', otherId, 'a/b']) expect(await findIssuer(ssh, ref)).toBeUndefined();
  });

  it('a stale claim does not resolve: the issuer record decides its name', async () => {
    const { issuer } = await importIssuer(ssh, { key: ed25519(), name: '', setDefault: false });
    await ssh.part.put('issuer-name/ghost', { id: issuer.id, at: 0 });
    expect(await findIssuer(ssh, 'ghost')).toBeUndefined();
  });
});

describe('the key a role signs with', () => {
  it("is the role's issuer, else the default's", async () => {
    const oldKey = ed25519();
    const newKey = ed25519();
    await importIssuer(ssh, { key: oldKey, name: 'old', setDefault: false });
    await importIssuer(ssh, { key: newKey, name: 'new', setDefault: true });
    expect((await signingIssuer(ssh, 'default')).blob.equals(publicBlob(newKey))).toBe(true);
    expect((await signingIssuer(ssh, 'old')).blob.equals(publicBlob(oldKey))).toBe(true);
  });

  it.each([
    ['no issuer at all', false, 'default', 'no CA key is configured on this mount (config/ca)'],
    ['issuers but no default', true, 'default', 'no default issuer is configured on this mount (config/issuers)'],
    ['an unknown reference', true, 'gone', 'unable to find issuer for reference: gone'],
  ])('is refused with %s', async (_what, withIssuer, ref, message) => {
    if (withIssuer) {
      const { issuer } = await importIssuer(ssh, { key: ed25519(), name: '', setDefault: false });
      await (await ssh.issuers()).unsetDefault(issuer.id);
    }
    await expect(signingIssuer(ssh, ref)).rejects.toThrow(new InvalidInput(message));
  });
});

describe('the trusted-keys file', () => {
  const issuer = (id: string, name: string, key: string): IssuerRecord => ({
    id,
    name,
    publicKey: `ssh-ed25519 ${key}\n`,
    privateKey: { $sealed: 1, w: '', k: '', s: '', iv: '', ct: '', tag: '' },
  });

  it('has one line per issuer, the default first, each naming its issuer after the key', () => {
    const all = [issuer('1', 'old', 'AAAA1'), issuer('2', '', 'AAAA2'), issuer('3', 'next', 'AAAA3')];
    expect(trustedKeyLines(all, '3')).toBe('ssh-ed25519 AAAA3 3 next\nssh-ed25519 AAAA1 1 old\nssh-ed25519 AAAA2 2\n');
    expect(trustedKeyLines(all, '')).toBe('ssh-ed25519 AAAA1 1 old\nssh-ed25519 AAAA2 2\nssh-ed25519 AAAA3 3 next\n');
  });
});
