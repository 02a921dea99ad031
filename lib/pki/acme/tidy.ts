/**
 * The ACME part of tidy (`tidy_acme`): expired nonces; orders that expired unfinished, or whose
 * certificate has expired (with their authorizations and the certificate's owner link); and
 * accounts older than `acme_account_safety_buffer` that have no order left.
 */
import type { Deps } from '../../deps';
import type { Partition } from '../../store/store';
import { AcmeStore } from './acme-store';
import { tidyNonces } from './nonce';
import type { AccountRecord, OrderRecord } from './records';

export interface AcmeTidyCounts {
  orders: number;
  accounts: number;
}

const orderDone = (o: OrderRecord, now: number) => (o.status === 'valid' ? (o.certNotAfter ?? 0) < now : o.expires < now);

/** Returns the counts, and whether it finished before `deadline` (ms). */
export async function tidyAcme(
  deps: Deps,
  part: Partition,
  accountBuffer: number,
  deadline: number,
): Promise<AcmeTidyCounts & { finished: boolean }> {
  const store = new AcmeStore(deps, part);
  const now = deps.now();
  const counts = { orders: 0, accounts: 0 };
  await tidyNonces(part, now, deadline);
  let cursor: string | undefined;
  do {
    const page = await store.page<OrderRecord>('order', cursor);
    for (const o of page.items.filter((x) => orderDone(x, now))) {
      await store.deleteOrder(o);
      if (o.serial) await store.deleteCertOwner(o.serial);
      counts.orders++;
    }
    cursor = page.cursor;
    if (Date.now() > deadline) return { ...counts, finished: false };
  } while (cursor);
  do {
    const page = await store.page<AccountRecord>('account', cursor);
    for (const a of page.items) {
      if (a.createdAt + accountBuffer * 1000 > now || (await store.orderIds(a.id, 1)).length) continue;
      await store.deleteAccount(a);
      counts.accounts++;
    }
    cursor = page.cursor;
    if (Date.now() > deadline) return { ...counts, finished: false };
  } while (cursor);
  return { ...counts, finished: true };
}
