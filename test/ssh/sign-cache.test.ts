/** lib/ssh/sign-cache.ts: what signing reads is kept per mount briefly, and any write through the mount's store forgets it. */
import { describe, expect, it } from 'vitest';
import { cachedOnMount, forgettingWrites } from '../../lib/ssh/sign-cache';
import { createTestStore } from '../helpers/store';

describe('the signing cache', () => {
  it('shares a load per mount and key, and forgets the whole mount after a write through it', async () => {
    const { store } = await createTestStore();
    const part = store.partition('ssh/ssh');
    let loads = 0;
    const load = () => cachedOnMount(store, part.name, 'role/a', async () => ++loads);
    expect(await load()).toBe(1);
    expect(await load()).toBe(1);
    expect(await cachedOnMount(store, 'ssh/other', 'role/a', async () => 'other')).toBe('other');
    // A write through a forgetting view runs its forget, even when it fails.
    let forgot = 0;
    const forgetting = forgettingWrites(part, () => forgot++);
    await forgetting.put('roles/a', { x: 1 });
    await expect(forgetting.put('roles/a', { x: 2 }, { ifAbsent: true })).rejects.toThrow();
    expect(forgot).toBe(2);
    expect((await forgetting.get('roles/a'))?.value).toEqual({ x: 1 });
    expect(forgot).toBe(2);
    expect(forgetting.name).toBe(part.name);
  });

  it('does not keep a failed load', async () => {
    const { store } = await createTestStore();
    let n = 0;
    const load = () => cachedOnMount(store, 'ssh/f', 'k', async () => (++n === 1 ? Promise.reject(new Error('down')) : n));
    await expect(load()).rejects.toThrow('down');
    expect(await load()).toBe(2);
  });
});
