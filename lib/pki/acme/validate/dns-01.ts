/**
 * dns-01 (RFC 8555 section 8.4): one TXT record at `_acme-challenge.<name>`, looked up through the
 * validation's resolver, must be base64url(SHA-256(key authorization)). Only for dns
 * identifiers (an ip identifier cannot be proved this way: RFC 8738 section 7).
 */
import { createHash } from 'node:crypto';
import { txtOf } from './resolve';
import { fail, OK, PROBLEM, type AcmeIdentifier, type ValidationContext, type ValidationOutcome } from './types';

/** The TXT value that proves `keyAuthorization`. */
export const dns01Value = (keyAuthorization: string): string => createHash('sha256').update(keyAuthorization).digest('base64url');

export async function validateDns01(id: AcmeIdentifier, keyAuthorization: string, ctx: ValidationContext): Promise<ValidationOutcome> {
  if (id.type !== 'dns') return fail(PROBLEM.unauthorized, 'dns-01: an ip identifier cannot be validated with dns-01');
  const name = `_acme-challenge.${id.value.replace(/\.$/, '')}`;
  const found = await txtOf(name, 'dns-01', ctx);
  if (!found.ok) return found.outcome;
  if (!found.value.length) return fail(PROBLEM.unauthorized, `dns-01: no TXT record at ${name}`);
  const expected = dns01Value(keyAuthorization);
  if (found.value.includes(expected)) return OK;
  const n = found.value.length;
  return fail(PROBLEM.incorrectResponse, `dns-01: no TXT record at ${name} matched (${n} record${n === 1 ? '' : 's'} found)`);
}
