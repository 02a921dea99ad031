/**
 * What both stores refuse in a transaction before sending or staging anything, so that the
 * embedded store fails exactly where DynamoDB would (the contract suite runs on both).
 */
import { InvalidInput } from '../domain-errors';
import { INLINE_LIMIT } from './dynamo-params';
import { MAX_TRANSACT_WRITES, type ItemRef, type TransactCheck, type TransactDelete, type TransactPut, type TransactWrite } from './store';

/** DynamoDB refuses a transaction of more than 4 MB; keys and attribute names need some of it. */
export const MAX_TRANSACT_BYTES = 3_500_000;
const MAX_KEY_BYTES = 1000;

export const isPut = (w: TransactWrite): w is TransactPut => 'value' in w;
export const isDelete = (w: TransactWrite): w is TransactDelete => 'delete' in w && w.delete === true;
export const isCheck = (w: TransactWrite): w is TransactCheck => 'check' in w;

/** An item's identity as one string (partition names and keys are free text). */
export const refId = (r: ItemRef) => JSON.stringify([r.partition, r.key]);

export function checkKey(key: string): void {
  if (!key) throw new InvalidInput('empty storage key');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new InvalidInput(`name too long: at most ${MAX_KEY_BYTES} bytes`);
}

/**
 * Checks a transaction and returns each put's JSON text (undefined for deletes and checks).
 * Refuses: more than MAX_TRANSACT_WRITES writes, two writes of one item, a value that would need
 * chunks, more than MAX_TRANSACT_BYTES in all, a check without a condition.
 */
export function checkTransact(writes: readonly TransactWrite[]): (string | undefined)[] {
  if (writes.length > MAX_TRANSACT_WRITES) throw new InvalidInput(`a transaction takes at most ${MAX_TRANSACT_WRITES} writes`);
  const seen = new Set<string>();
  let total = 0;
  return writes.map((w) => {
    checkKey(w.key);
    const id = refId(w);
    if (seen.has(id)) throw new InvalidInput('a transaction writes each item at most once');
    seen.add(id);
    if (isCheck(w) && !w.check.ifAbsent && w.check.ifVersion === undefined)
      throw new InvalidInput('a transaction check needs ifAbsent or ifVersion');
    if (!isPut(w)) return undefined;
    const text = JSON.stringify(w.value);
    const bytes = Buffer.byteLength(text);
    if (bytes > INLINE_LIMIT) throw new InvalidInput('value too large for a transaction');
    total += bytes + Buffer.byteLength(id);
    if (total > MAX_TRANSACT_BYTES) throw new InvalidInput('transaction too large');
    return text;
  });
}
