/**
 * Order identifiers (RFC 8555 section 7.1.4, RFC 8738 for IP addresses): checked and put in
 * canonical form, and which challenges each may be validated with.
 */
import { isIP } from 'node:net';
import { InvalidInput } from '../../domain-errors';
import { checkIpSans, checkName } from '../names';
import { AcmeProblem, malformed } from './problem';
import type { ChallengeType, Identifier } from './records';
import type { IssuingPolicy } from './scope';

export const MAX_IDENTIFIERS = 100;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A DNS identifier: lower case, LDH labels, at most 253 characters, optionally one leading `*.`. */
function dnsIdentifier(v: string): string {
  const name = v.toLowerCase();
  const bare = name.startsWith('*.') ? name.slice(2) : name;
  const labels = bare.split('.');
  if (name.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || isIP(bare))
    throw new AcmeProblem('rejectedIdentifier', `${JSON.stringify(v.slice(0, 80))} is not a fully qualified domain name`);
  return name;
}

/** An IP identifier in canonical text (IPv6 compressed, lower case). */
function ipIdentifier(v: string): string {
  if (isIP(v) === 4) return v.split('.').map(Number).join('.');
  if (isIP(v) === 6) return new URL(`http://[${v}]/`).hostname.slice(1, -1);
  throw new AcmeProblem('rejectedIdentifier', `${JSON.stringify(v.slice(0, 80))} is not an IP address`);
}

export function parseIdentifiers(v: unknown): Identifier[] {
  if (!Array.isArray(v) || v.length === 0) throw malformed('identifiers must be a non-empty list');
  if (v.length > MAX_IDENTIFIERS) throw new AcmeProblem('rejectedIdentifier', `at most ${MAX_IDENTIFIERS} identifiers per order`);
  const out = new Map<string, Identifier>();
  for (const i of v) {
    if (typeof i !== 'object' || i === null || typeof (i as Identifier).value !== 'string')
      throw malformed('each identifier needs a type and a string value');
    const { type, value } = i as Identifier;
    if (type !== 'dns' && type !== 'ip')
      throw new AcmeProblem('unsupportedIdentifier', `identifier type ${JSON.stringify(String(type).slice(0, 20))} is not supported`);
    const id: Identifier = { type, value: type === 'dns' ? dnsIdentifier(value) : ipIdentifier(value) };
    out.set(`${id.type}:${id.value}`, id);
  }
  return [...out.values()];
}

/** The challenge types an identifier may use: wildcards only dns-01, IP addresses not dns-01. */
export function challengeTypesOf(id: Identifier): ChallengeType[] {
  if (id.type === 'ip') return ['http-01', 'tls-alpn-01'];
  if (id.value.startsWith('*.')) return ['dns-01'];
  return ['http-01', 'dns-01', 'tls-alpn-01'];
}

/** The role's name rules, applied when the order is made (finalize applies them again when signing). */
export function checkIdentifiersAllowed(policy: IssuingPolicy, ids: Identifier[]): void {
  if (policy.kind !== 'role') return;
  for (const id of ids) {
    try {
      if (id.type === 'dns') checkName(policy.role, id.value);
      else checkIpSans(policy.role, [id.value]);
    } catch (e) {
      if (e instanceof InvalidInput) throw new AcmeProblem('rejectedIdentifier', e.message);
      throw e;
    }
  }
}
