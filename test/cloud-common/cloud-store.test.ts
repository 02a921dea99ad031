/** lib/cloud-common/cloud-store.ts: a cloud mount's roles and config, on a real store. */
import { beforeAll, describe, expect, it } from 'vitest';
import { CloudStore } from '../../lib/cloud-common/cloud-store';
import { mountPartition } from '../../lib/mount-partition';
import type { Store } from '../../lib/store/store';
import { createTestStore } from '../helpers/store';

type Role = { ttl: number; policies: string[] };
type Config = { accessKey: string; version?: number };

let store: Store;
beforeAll(async () => {
  store = (await createTestStore()).store;
});

describe('CloudStore', () => {
  it('keeps roles under the mount, lists them in name order and deletes them', async () => {
    const s = new CloudStore<Role, Config>(mountPartition({ store }, 'cloud-b', 'one'));
    await s.putRole('b', { ttl: 60, policies: ['p'] });
    await s.putRole('a', { ttl: 0, policies: [] });
    expect(await s.role('b')).toEqual({ ttl: 60, policies: ['p'] });
    expect(await s.roleNames()).toEqual(['a', 'b']);
    expect(await new CloudStore<Role, Config>(mountPartition({ store }, 'cloud-b', 'two')).roleNames()).toEqual([]);
    await s.deleteRole('a');
    expect(await s.role('a')).toBeUndefined();
  });

  it('finds a role under any case of its name, none under an invalid name (the write refuses it later)', async () => {
    const s = new CloudStore<Role, Config>(mountPartition({ store }, 'cloud-a', 'names'));
    await s.putRole('prod', { ttl: 0, policies: [] });
    expect(await s.hasRole('prod')).toBe(true);
    expect(await s.hasRole('PROD')).toBe(true);
    expect(await s.hasRole('../prod')).toBe(false);
  });

  it('changes the configuration read-modify-write, and writes nothing when the change says so', async () => {
    const s = new CloudStore<Role, Config>(mountPartition({ store }, 'cloud-a', 'config'));
    expect(await s.config()).toBeUndefined();
    await s.putConfig({ accessKey: 'k1' });
    await Promise.all([1, 2, 3].map(() => s.changeConfig((c) => (c ? { ...c, version: (c.version ?? 0) + 1 } : undefined))));
    expect(await s.config()).toEqual({ accessKey: 'k1', version: 3 });
    expect(await s.changeConfig(() => undefined)).toBeUndefined();
    await s.deleteConfig();
    expect(await s.config()).toBeUndefined();
  });
});
