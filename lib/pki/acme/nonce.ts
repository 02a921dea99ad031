/**
 * Replay nonces (RFC 8555 section 6.5), single-use across every function instance: each is an
 * item of the mount's partition, and using one deletes it (only one delete of an item reports
 * that it deleted it). A nonce begins with its expiry (hex seconds), so its key sorts by expiry
 * and tidy removes the expired ones from the front of the list.
 */
import { randomBytes } from 'node:crypto';
import type { Partition } from '../../store/store';
import { AcmeProblem } from './problem';

const PREFIX = 'acme/nonce/';
const LIFETIME_MS = 15 * 60_000;
const SHAPE = /^[0-9a-f]{9}[A-Za-z0-9_-]{22}$/;

export async function newNonce(part: Partition, now: number): Promise<string> {
  const expires = Math.floor((now + LIFETIME_MS) / 1000);
  const nonce = expires.toString(16).padStart(9, '0') + randomBytes(16).toString('base64url');
  await part.put(PREFIX + nonce, { expires });
  return nonce;
}

/** Uses the nonce up; badNonce when it is unknown, used or expired. */
export async function useNonce(part: Partition, nonce: string, now: number): Promise<void> {
  if (!SHAPE.test(nonce)) throw new AcmeProblem('badNonce', 'the nonce is not one this server issued');
  const fresh = parseInt(nonce.slice(0, 9), 16) * 1000 >= now;
  const deleted = await part.delete(PREFIX + nonce);
  if (!deleted || !fresh) throw new AcmeProblem('badNonce', 'the nonce is unknown, used or expired');
}

/** Deletes expired nonces, oldest first, until `deadline` (ms); returns how many. */
export async function tidyNonces(part: Partition, now: number, deadline: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await part.listKeys(PREFIX, { limit: 500 });
    const due = page.items.filter((k) => parseInt(k.slice(PREFIX.length, PREFIX.length + 9), 16) * 1000 < now);
    if (!due.length) return deleted;
    await part.batchDelete(due);
    deleted += due.length;
    if (due.length < page.items.length || Date.now() > deadline) return deleted;
  }
}
