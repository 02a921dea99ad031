/** Secret ids and role ids on a real store (dynalite): issue, spend, expire, destroy, tidy, claim. */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApproleStore, type AppRole } from '../../../lib/auth/approle/approle-store';
import { applyRoleInput } from '../../../lib/auth/approle/role';
import { deleteRole, loginRecords, roleOfRoleId, saveRole } from '../../../lib/auth/approle/roles';
import {
  destroyByAccessor,
  issueSecretId,
  listAccessors,
  lookupSecretId,
  spendSecretId,
  tidySecretIds,
} from '../../../lib/auth/approle/secret-ids';
import { NO_TOKEN_SETTINGS } from '../../../lib/auth/token-fields';
import { InvalidInput, NotFoundError } from '../../../lib/domain-errors';
import { LocalKeyWrapper } from '../../../lib/keys/local-key';
import { Sealer } from '../../../lib/keys/sealed';
import { createTestStore } from '../../helpers/store';

let store: ApproleStore;
let now = 1_700_000_000_000;
const at = (address?: string) => ({ now, address });

async function newRole(name: string, input: Parameters<typeof applyRoleInput>[1] = {}): Promise<AppRole> {
  const role = applyRoleInput(undefined, input, NO_TOKEN_SETTINGS);
  await saveRole(store, name, undefined, role, now);
  return role;
}

const issue = (role: AppRole, input: Partial<Parameters<typeof issueSecretId>[2]> = {}, secretId?: string) =>
  issueSecretId(store, role, { metadata: {}, ...input }, { secretId, now, maxTtl: 32 * 24 * 3600 });

beforeEach(async () => {
  const { store: s } = await createTestStore();
  store = new ApproleStore({ store: s, sealer: new Sealer(new LocalKeyWrapper(randomBytes(32))) }, s.partition('auth/approle'));
});

describe('secret ids', () => {
  it('are stored only as an HMAC: neither the secret id nor its HMAC under another key appears', async () => {
    const role = await newRole('r');
    const s = await issue(role);
    const items = (await store.part.list('')).items;
    expect(JSON.stringify(items)).not.toContain(s.secretId);
    expect(items.map((i) => i.key)).toContain(`secret-id/${role.uid}/${await store.hmac('secret-id', s.secretId)}`);
  });

  it('concurrent first users of the HMAC key (separate processes) all use the one stored key', async () => {
    const { store: s } = await createTestStore();
    const wrapper = new LocalKeyWrapper(randomBytes(32));
    // Five "processes": each its own Store object (so its own key cache) over the one table.
    const stores = Array.from(
      { length: 5 },
      () =>
        new ApproleStore(
          {
            store: {
              partition: (n) => s.partition(n),
              atomicTransact: s.atomicTransact,
              getMany: s.getMany.bind(s),
              transact: s.transact.bind(s),
            },
            sealer: new Sealer(wrapper),
          },
          s.partition('auth/approle'),
        ),
    );
    const macs = await Promise.all(stores.map((x) => x.hmac('secret-id', 'x')));
    expect(new Set(macs).size).toBe(1);
    expect((await s.partition('auth/approle').list('config/')).items).toHaveLength(1);
  });

  it('spends uses: the last use deletes the secret id and its accessor', async () => {
    const role = await newRole('r');
    const s = await issue(role, { numUses: 2 });
    expect((await spendSecretId(store, role, s.secretId, at())).numUses).toBe(2);
    expect((await lookupSecretId(store, role, s.secretId, now))!.numUses).toBe(1);
    await spendSecretId(store, role, s.secretId, at());
    await expect(spendSecretId(store, role, s.secretId, at())).rejects.toThrow('invalid role or secret ID');
    expect(await store.accessor(s.accessor)).toBeUndefined();
  });

  it('20 concurrent spends of a three-use secret id: exactly three succeed', async () => {
    const role = await newRole('r');
    const s = await issue(role, { numUses: 3 });
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => spendSecretId(store, role, s.secretId, at())));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(InvalidInput);
  });

  it('expire: refused at login and removed with the accessor; tidy removes the others', async () => {
    const role = await newRole('r', { secretIdTtl: 60 });
    const a = await issue(role);
    const b = await issue(role);
    const c = await issue(role, { ttl: 30 });
    expect(a.ttl).toBe(60);
    now += 45_000;
    await expect(spendSecretId(store, role, c.secretId, at())).rejects.toThrow('invalid role or secret ID');
    expect(await listAccessors(store, role, now)).toEqual([a.accessor, b.accessor].sort());
    now += 20_000;
    await expect(spendSecretId(store, role, a.secretId, at())).rejects.toThrow('invalid role or secret ID');
    expect(await store.accessor(a.accessor)).toBeUndefined();
    expect(await tidySecretIds(store, now)).toBe(1);
    expect((await store.part.list('secret-id/')).items).toHaveLength(0);
    expect((await store.part.list('accessor/')).items).toHaveLength(0);
  });

  it('caps ttl at the mount maximum, and refuses ttl and num_uses above the role', async () => {
    const role = await newRole('r', { secretIdTtl: 100, secretIdNumUses: 3 });
    await expect(issue(role, { ttl: 200 })).rejects.toThrow(/ttl cannot be longer/);
    await expect(issue(role, { ttl: 0 })).rejects.toThrow(/ttl cannot be longer/);
    await expect(issue(role, { numUses: 0 })).rejects.toThrow(/num_uses cannot be higher/);
    const free = await newRole('free');
    const s = await issueSecretId(store, free, { metadata: {}, ttl: 999_999_999 }, { now, maxTtl: 3600 });
    expect(s.ttl).toBe(3600);
  });

  it('checks the cidr_list against the address; an unknown address is outside every block', async () => {
    const role = await newRole('r');
    const s = await issue(role, { cidrList: ['10.0.0.0/8'], numUses: 1 });
    await expect(spendSecretId(store, role, s.secretId, at('192.168.1.1'))).rejects.toThrow(/on the secret ID/);
    await expect(spendSecretId(store, role, s.secretId, at())).rejects.toThrow(/on the secret ID/);
    await spendSecretId(store, role, s.secretId, at('10.2.3.4'));
  });

  it("a secret id of another role, or another role's accessor, is not found", async () => {
    const one = await newRole('one');
    const two = await newRole('two');
    const s = await issue(one);
    await expect(spendSecretId(store, two, s.secretId, at())).rejects.toThrow('invalid role or secret ID');
    await expect(destroyByAccessor(store, two, s.accessor)).rejects.toBeInstanceOf(NotFoundError);
    expect(await lookupSecretId(store, one, s.secretId, now)).toBeDefined();
  });

  it('a custom secret id is registered once per role', async () => {
    const role = await newRole('r');
    await issue(role, {}, 'chosen');
    await expect(issue(role, {}, 'chosen')).rejects.toThrow('SecretID is already registered');
  });

  it("a role deleted and created again does not inherit the old role's secret ids", async () => {
    const old = await newRole('r', { roleId: 'rid' });
    const s = await issue(old);
    await deleteRole(store, 'r');
    const again = await newRole('r', { roleId: 'rid' });
    await expect(spendSecretId(store, again, s.secretId, at())).rejects.toThrow('invalid role or secret ID');
    expect((await store.part.list('secret-id/')).items).toHaveLength(0);
  });
});

describe('role ids', () => {
  it('name one role; a taken one is refused; a moved one frees the old', async () => {
    const a = await newRole('a', { roleId: 'shared' });
    await expect(newRole('b', { roleId: 'shared' })).rejects.toThrow('role_id already in use');
    expect(await store.role('b')).toBeUndefined();
    const current = await store.role('a');
    await saveRole(store, 'a', current, { ...a, roleId: 'moved' }, now);
    expect((await roleOfRoleId(store, 'moved')).name).toBe('a');
    await expect(roleOfRoleId(store, 'shared')).rejects.toThrow('invalid role or secret ID');
    await newRole('b', { roleId: 'shared' });
    expect((await roleOfRoleId(store, 'shared')).name).toBe('b');
  });

  it("a crashed write's claim is taken over once it is old", async () => {
    await store.putRoleIdOwner(await store.hmac('role-id', 'orphan'), 'ghost', now, undefined, 'ghost-uid');
    await expect(newRole('c', { roleId: 'orphan' })).rejects.toThrow('role_id already in use');
    now += 61_000;
    await newRole('c', { roleId: 'orphan' });
    expect((await roleOfRoleId(store, 'orphan')).name).toBe('c');
  });
});

describe('a login reads the role and the secret id together (issue 30)', () => {
  it("reads the secret id with the role when the role id's claim knows the uid, and after it for an older claim", async () => {
    const role = await newRole('fast', { roleId: 'fast-id' });
    const { secretId } = await issue(role);
    const read = await loginRecords(store, 'fast-id', secretId);
    expect(read.name).toBe('fast');
    expect(read.secret?.item?.value).toBeDefined();
    expect((await spendSecretId(store, read.role, secretId, at(), read.secret)).accessor).toBe(read.secret!.item!.value.accessor);
    // A claim written before the uid was kept: nothing read ahead, the login still works.
    const hmac = await store.hmac('role-id', 'fast-id');
    const owner = (await store.roleIdOwner(hmac))!;
    await store.part.put(`role-id/${hmac}`, { name: owner.value.name, at: owner.value.at }, { ifVersion: owner.version });
    const old = await loginRecords(store, 'fast-id', secretId);
    expect(old.secret).toBeUndefined();
    expect((await spendSecretId(store, old.role, secretId, at(), old.secret)).accessor).toBeDefined();
    await expect(loginRecords(store, 'fast-id-wrong', secretId)).rejects.toThrow(InvalidInput);
  });
});
