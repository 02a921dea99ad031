/** `X-Vault-Wrap-TTL` (or `X-Svc-Wrap-TTL`): the TTL a request asks its answer to be wrapped for. */
import { SYSTEM_MAX_LEASE_TTL } from '../config';
import { parseDuration } from '../duration';
import { BadRequest } from '../errors';

/** The requested wrap TTL in seconds, or undefined; 400 when it is not a duration in 1s..768h. */
export function requestedWrapTtl(headers: Headers): number | undefined {
  const raw = headers.get('x-svc-wrap-ttl') || headers.get('x-vault-wrap-ttl');
  if (!raw) return undefined;
  const ttl = parseDuration(raw);
  if (ttl === undefined) throw new BadRequest('invalid wrap TTL header: expected a duration such as "5m" or a number of seconds');
  if (ttl < 1) throw new BadRequest('invalid wrap TTL header: the wrap TTL must be at least 1s');
  if (ttl > SYSTEM_MAX_LEASE_TTL) {
    throw new BadRequest(`invalid wrap TTL header: the wrap TTL must not exceed the system maximum of ${SYSTEM_MAX_LEASE_TTL}s`);
  }
  return ttl;
}
