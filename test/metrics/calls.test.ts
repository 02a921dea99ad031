import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { timedKms, timedStore } from '../../lib/metrics/calls';
import { domainMetrics } from '../../lib/metrics/catalog';
import { Registry } from '../../lib/metrics/registry';
import { LevelStore } from '../../lib/store/level-store';

describe('timed calls', () => {
  it('counts and times every partition call by operation and result, on a real store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'latchkey-timed-'));
    const raw = await LevelStore.open(dir);
    try {
      const m = domainMetrics(new Registry());
      const store = timedStore(raw, m);
      const part = store.partition('sys');
      await part.put('a', { x: 1 });
      await part.put('a', { x: 2 }, { ifVersion: 1 });
      await expect(part.put('a', { x: 3 }, { ifVersion: 1 })).rejects.toThrow();
      expect((await part.get('a'))?.value).toEqual({ x: 2 });
      expect(part.name).toBe('sys');
      expect(store.partition('sys')).toBe(part);
      expect(m.platform.storeCalls.value({ operation: 'put', result: 'ok' })).toBe(2);
      expect(m.platform.storeCalls.value({ operation: 'put', result: 'error' })).toBe(1);
      expect(m.platform.storeCalls.value({ operation: 'get', result: 'ok' })).toBe(1);
      expect(m.platform.storeSeconds.value({ operation: 'put' }).count).toBe(3);
    } finally {
      await raw.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('counts KMS calls by operation and result', async () => {
    const m = domainMetrics(new Registry());
    expect(await timedKms('Decrypt', async () => 1, m)).toBe(1);
    await expect(timedKms('Sign', () => Promise.reject(new Error('down')), m)).rejects.toThrow('down');
    expect(m.platform.kmsCalls.value({ operation: 'Decrypt', result: 'ok' })).toBe(1);
    expect(m.platform.kmsCalls.value({ operation: 'Sign', result: 'error' })).toBe(1);
    expect(m.platform.kmsSeconds.value({ operation: 'Sign' }).count).toBe(1);
  });
});
