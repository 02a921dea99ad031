/** Changing issuers (lib/ssh/issuer-admin.ts): the default, names, deletions and their warnings (OpenBao's words). */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { ExistsError, InvalidInput, NotFoundError } from '../../lib/domain-errors';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { Sealer } from '../../lib/keys/sealed';
import { deleteIssuer, purgeIssuers, renameIssuer, setDefaultIssuer } from '../../lib/ssh/issuer-admin';
import { findIssuer, importIssuer, listIssuers } from '../../lib/ssh/issuers';
import { SshStore } from '../../lib/ssh/ssh-store';
import { role } from './role-fixture';
import { createTestStore } from '../helpers/store';

const sealer = new Sealer(new LocalKeyWrapper(randomBytes(32)));
const ed25519 = () => generateKeyPairSync('ed25519').privateKey;
let ssh: SshStore;

beforeEach(async () => {
  const { store } = await createTestStore();
  ssh = new SshStore({ store, sealer, now: () => Date.now() }, store.partition('ssh/ssh'));
});

const add = async (name: string, setDefault = false) => (await importIssuer(ssh, { key: ed25519(), name, setDefault })).issuer;

describe('the default', () => {
  it('is set by id or name and answers the one before', async () => {
    const a = await add('a');
    const b = await add('b');
    expect(await setDefaultIssuer(ssh, 'b')).toEqual({ id: b.id, previous: a.id });
    expect(await setDefaultIssuer(ssh, a.id)).toEqual({ id: a.id, previous: b.id });
    expect(await setDefaultIssuer(ssh, 'a')).toEqual({ id: a.id, previous: a.id });
  });

  it.each([
    ['', /invalid issuer specification/],
    ['default', /invalid issuer specification; must be non-empty and can't be 'default'/],
    ['nobody', /unable to find issuer for reference: nobody/],
  ])('refuses %j', async (ref, message) => {
    await add('a');
    await expect(setDefaultIssuer(ssh, ref)).rejects.toThrow(InvalidInput);
    await expect(setDefaultIssuer(ssh, ref)).rejects.toThrow(message);
  });
});

describe('renaming', () => {
  it('moves the name: the old one no longer resolves, the new one does', async () => {
    const a = await add('old');
    const { issuer } = await renameIssuer(ssh, 'old', 'new');
    expect(issuer).toMatchObject({ id: a.id, name: 'new' });
    expect(await findIssuer(ssh, 'old')).toBeUndefined();
    expect((await findIssuer(ssh, 'new'))!.id).toBe(a.id);
    // The old name is free for another issuer.
    await add('old');
  });

  it('warns when roles name the issuer by its old name', async () => {
    await add('old');
    await ssh.putRole('pinned', role({ issuerRef: 'old' }));
    await ssh.putRole('other', role({}));
    expect((await renameIssuer(ssh, 'old', 'new')).warnings).toEqual(["1 roles reference 'old'"]);
  });

  it.each([
    ['an unknown issuer', 'nobody', 'x', NotFoundError, /unable to find issuer for reference: nobody/],
    ['a name taken', 'a', 'b', ExistsError, /issuer name already in use/],
    ['the reserved name', 'a', 'default', InvalidInput, /reserved keyword/],
    ['no name', 'a', '', InvalidInput, /expected non-empty issuer name/],
  ] as const)('refuses %s', async (_what, ref, name, type, message) => {
    await add('a');
    await add('b');
    const refusal = await renameIssuer(ssh, ref, name).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(type);
    expect((refusal as Error).message).toMatch(message);
  });
});

describe('deleting', () => {
  it('an issuer that is not the default: no warning, its name freed', async () => {
    await add('a');
    const b = await add('b');
    expect(await deleteIssuer(ssh, 'b')).toEqual([]);
    expect(await findIssuer(ssh, b.id)).toBeUndefined();
    expect(await ssh.part.get('issuer-name/b')).toBeUndefined();
  });

  it('the default, as OpenBao: allowed, the mount is left without a default, with its warning', async () => {
    const a = await add('a');
    await add('b');
    await ssh.putRole('r', role({}));
    const warnings = await deleteIssuer(ssh, 'default');
    expect(warnings).toEqual([
      `Deleted issuer ${a.id} (via issuer_ref default); this was configured as the default issuer. Operations without an explicit issuer will not work until a new default is configured.`,
      "1 roles reference 'default'",
    ]);
    expect(await findIssuer(ssh, 'default')).toBeUndefined();
    expect((await listIssuers(ssh)).issuers.map((i) => i.name)).toEqual(['b']);
  });

  it('nothing there: nothing to do', async () => {
    expect(await deleteIssuer(ssh, 'nobody')).toEqual([]);
  });

  it('every issuer at once (config/ca delete)', async () => {
    await add('a');
    await add('b', true);
    expect(await purgeIssuers(ssh)).toBe(2);
    expect(await listIssuers(ssh)).toEqual({ issuers: [], defaultId: '' });
    expect((await ssh.part.list('issuer-name/')).items).toEqual([]);
  });
});
