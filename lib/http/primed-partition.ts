/**
 * One request's view of its mount's partition, primed before the handler runs: items read while
 * the request is being let in (its existence check, and the items its path declares `readAhead`,
 * read together while the token is checked) are handed to the handler's first read of each
 * instead of a second round trip. Each primed item serves one read; a write to its key, and
 * every read once the handler has taken it, goes to the store. Nothing primed is rendered before
 * the request is authorised: only the handler, which runs after, sees it.
 */
import type { Partition, StoredItem } from '../store/store';

const WRITES = new Set(['put', 'delete', 'batchPut', 'batchDelete', 'increment']);

export interface PrimedPartition {
  readonly part: Partition;
  /** Reads `keys` together (the store's getMany) into the primed items. */
  prime(keys: readonly string[], getMany: (keys: readonly string[]) => Promise<(StoredItem | undefined)[]>): Promise<void>;
  /** From now on reads are not primed (the handler runs): primed items still serve their one read. */
  stopPriming(): void;
}

/** Keys a write names (put/delete/increment: the first argument; batches: their items'). */
function keysWritten(method: string, args: unknown[]): string[] {
  if (method === 'batchPut') return (args[0] as { key: string }[]).map((i) => i.key);
  if (method === 'batchDelete') return args[0] as string[];
  return [args[0] as string];
}

export function primedPartition(part: Partition): PrimedPartition {
  const primed = new Map<string, StoredItem | undefined>();
  let priming = true;
  const get = async (key: string) => {
    if (primed.has(key)) {
      const item = primed.get(key);
      primed.delete(key);
      return item;
    }
    const item = await part.get(key);
    if (priming) primed.set(key, item);
    return item;
  };
  const view = new Proxy(part, {
    get(t, prop) {
      if (prop === 'get') return get;
      const v = Reflect.get(t, prop, t) as unknown;
      if (typeof v !== 'function') return v;
      if (!WRITES.has(prop as string)) return (v as () => unknown).bind(t);
      return (...args: unknown[]) => {
        for (const k of keysWritten(prop as string, args)) primed.delete(k);
        return (v as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
  return {
    part: view,
    async prime(keys, getMany) {
      const wanted = keys.filter((k) => !primed.has(k));
      if (!wanted.length) return;
      const items = await getMany(wanted);
      if (priming) wanted.forEach((k, i) => primed.has(k) || primed.set(k, items[i]));
    },
    stopPriming() {
      priming = false;
    },
  };
}
