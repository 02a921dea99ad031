/** primedPartition (lib/http/primed-partition.ts): reads made while a request is let in serve the handler's first read of each, once. */
import { describe, expect, it } from 'vitest';
import { primedPartition } from '../../lib/http/primed-partition';
import type { Partition } from '../../lib/store/store';
import { createTestStore } from '../helpers/store';

/** A partition whose gets are counted. */
function counting(part: Partition) {
  const gets: string[] = [];
  const view = new Proxy(part, {
    get(t, prop) {
      const v = Reflect.get(t, prop, t) as unknown;
      if (prop === 'get') return (k: string) => (gets.push(k), t.get(k));
      return typeof v === 'function' ? (v as () => unknown).bind(t) : v;
    },
  });
  return { view, gets };
}

describe('primedPartition', () => {
  it('serves a read made while priming to the next read of the key, once; later reads go to the store', async () => {
    const { store } = await createTestStore();
    const raw = store.partition('p');
    await raw.put('a', { v: 1 });
    const { view, gets } = counting(raw);
    const p = primedPartition(view);
    expect((await p.part.get('a'))?.value).toEqual({ v: 1 });
    p.stopPriming();
    await raw.put('a', { v: 2 });
    // The handler's first read: what was read while priming (the same request), not a second round trip.
    expect((await p.part.get('a'))?.value).toEqual({ v: 1 });
    expect((await p.part.get('a'))?.value).toEqual({ v: 2 });
    expect(gets).toEqual(['a', 'a']);
  });

  it('reads ahead together and forgets a key written meanwhile (a read-modify-write retry reads afresh)', async () => {
    const { store } = await createTestStore();
    const raw = store.partition('q');
    await raw.put('x', 1);
    const { view, gets } = counting(raw);
    const p = primedPartition(view);
    const asked: string[][] = [];
    await p.prime(['x', 'missing'], (ks) => (asked.push([...ks]), store.getMany(ks.map((key) => ({ partition: 'q', key })))));
    p.stopPriming();
    expect(await p.part.get('missing')).toBeUndefined();
    await p.part.put('x', 2, { ifVersion: 1 });
    expect((await p.part.get('x'))?.value).toBe(2);
    expect(asked).toEqual([['x', 'missing']]);
    expect(gets).toEqual(['x']);
  });

  it('primes nothing once the handler runs', async () => {
    const { store } = await createTestStore();
    const raw = store.partition('r');
    await raw.put('k', 'v');
    const { view, gets } = counting(raw);
    const p = primedPartition(view);
    p.stopPriming();
    await p.part.get('k');
    await p.part.get('k');
    expect(gets).toEqual(['k', 'k']);
  });
});
