/**
 * A KV entry's write and the modify index it takes, in one transaction: the counter goes to
 * value + 1 on condition of its version, and the entry is written with that ModifyIndex on
 * condition of its own version (or of its absence). Both land or neither (a crash included), the
 * index is unique and growing, and a reader that reads the counter before the entry sees either
 * both or neither, so no second move of the counter is needed to wake blocking readers.
 *
 * The versions come from this process's last read or write when recent (lib/catalog/heads.ts,
 * ModifyIndex.guess): then the write is one round trip. A wrong guess only fails the transaction;
 * the counter and the entry are then read together and the write tried again.
 */
import { ConflictError, ExistsError } from '../domain-errors';
import type { Json, Store, TransactWrite } from '../store/store';
import type { EntryHead, Heads } from './heads';
import { COUNTER, type CounterState, type ModifyIndex } from './modify-index';

const ATTEMPTS = 40;

/** What the entry becomes given its head (undefined: absent); undefined when a CAS does not hold. */
export type NextRecord = (head: EntryHead | undefined) => ({ createIndex: number } & Record<string, Json>) | undefined;

export interface KvWriteParts {
  store: Store;
  partition: string;
  index: ModifyIndex;
  heads: Heads;
}

export interface Known {
  counter: CounterState;
  head: EntryHead | undefined;
  fresh: boolean;
}

/** The counter and the entry's head as this process knows them, when both are recent. */
export function guessed(p: KvWriteParts, sk: string): Known | undefined {
  const counter = p.index.guess();
  const head = p.heads.get(sk);
  return counter && head ? { counter, head: head.present ? head : undefined, fresh: false } : undefined;
}

/** Reads the counter and the entry's head together (and remembers them for the next guess). */
export async function readKnown(p: KvWriteParts, sk: string): Promise<Known> {
  const [c, item] = await p.store.getMany<{ createIndex: number; modifyIndex: number }>([
    { partition: p.partition, key: COUNTER },
    { partition: p.partition, key: sk },
  ]);
  return { counter: p.index.stateOf(c), head: p.heads.noteItem(sk, item), fresh: true };
}

/** What the first attempt conditions on: read for this request already, else guessed, else read now. */
const known = async (p: KvWriteParts, sk: string, first: boolean, prepared?: Known) =>
  (first && (prepared ?? guessed(p, sk))) || readKnown(p, sk);

/** Writes the entry that `next` makes; false when `next` refuses on a fresh read (a CAS that does not hold). */
export async function transactPut(
  p: KvWriteParts,
  sk: string,
  next: (modifyIndex: number) => NextRecord,
  prepared?: Known,
): Promise<boolean> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const k = await known(p, sk, i === 0, prepared);
    const modifyIndex = k.counter.value + 1;
    const record = next(modifyIndex)(k.head);
    if (!record) {
      if (k.fresh) return false;
      continue;
    }
    const writes: TransactWrite[] = [
      {
        partition: p.partition,
        key: COUNTER,
        value: modifyIndex,
        ...(k.counter.version ? { ifVersion: k.counter.version } : { ifAbsent: true }),
      },
      { partition: p.partition, key: sk, value: record, ...(k.head ? { ifVersion: k.head.version } : { ifAbsent: true }) },
    ];
    try {
      const [counterVersion, version] = await p.store.transact(writes);
      p.index.remember({ value: modifyIndex, version: counterVersion! });
      p.heads.set(sk, { present: true, version: version!, createIndex: record.createIndex, modifyIndex });
      return true;
    } catch (e) {
      if (!(e instanceof ConflictError || e instanceof ExistsError)) throw e;
      p.index.forget();
      p.heads.delete(sk);
      if (i > 0) await new Promise((r) => setTimeout(r, Math.random() * 5 * i));
    }
  }
  throw new ConflictError();
}
