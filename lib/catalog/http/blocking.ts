/**
 * Blocking-query parameters. `?index=N` waits until the catalog index passes N; `?wait=` bounds
 * it (duration, 1 s resolution). The reference caps waits at 10 minutes; here they are capped
 * at 20 s so an answer always beats API Gateway's 29 s integration timeout.
 */
import { parseDuration } from '../../duration';
import { BadRequest } from '../../errors';
import { parseUint } from '../names';

export const MAX_WAIT_MS = 20_000;

/** The index to wait past and for how long, or undefined when the request does not block. */
export function blockingParams(q: URLSearchParams): { index: number; waitMs: number } | undefined {
  if (!q.has('index')) return undefined;
  const index = parseUint(q.get('index') ?? '', 'index');
  if (index === 0) return undefined;
  const rawWait = q.get('wait');
  let waitMs = MAX_WAIT_MS;
  if (rawWait !== null && rawWait !== '') {
    const seconds = parseDuration(rawWait);
    if (seconds === undefined) throw new BadRequest('Invalid wait time: expected a duration such as "10s" or "1m"');
    waitMs = Math.min(MAX_WAIT_MS, Math.max(1, seconds) * 1000);
  }
  return { index, waitMs };
}
