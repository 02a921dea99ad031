/** Signing a user's public key with a CA role: a pipeline of small rules, then the signature. */
import { InvalidInput } from '../domain-errors';
import { grantTtl, type TtlRule } from '../lease-ttl';
import { criticalOptions, extensions } from './cert-options';
import { randomSerial, signCertificate, type CaSigner, type CertTemplate } from './certificate';
import { checkKeyLength } from './key-lengths';
import { hostPrincipals, userPrincipals, type Caller } from './principals';
import { keyHash, parseUserKey, type UserKey } from './public-key';
import { DEFAULT_NOT_BEFORE_SECONDS, type Role } from './role';
import type { RsaSigner } from './ssh-key';

export interface SignInput {
  publicKey: string;
  /** Seconds; 0 or undefined: the role's. */
  ttl?: number | undefined;
  validPrincipals: string[];
  certType: string;
  keyId: string;
  criticalOptions?: Record<string, string> | undefined;
  extensions?: Record<string, string> | undefined;
}

export interface SignContext extends Caller {
  roleName: string;
  mountDefaultTtl: number;
  mountMaxTtl: number;
  nowMs: number;
}

export interface Signed {
  serialNumber: string;
  signedKey: string;
  ttl: number;
  /** What the certificate says, for its record (cert-records.ts). */
  cert: Pick<CertTemplate, 'serial' | 'certType' | 'keyId' | 'principals' | 'validAfter' | 'validBefore'>;
}

/** The reference's SSH signing: a role's max_ttl replaces the mount's; an explicit ttl above it is refused. */
const SSH_CERT_TTL: TtlRule = {
  roleMax: 'replaces-mount',
  aboveMax: 'refuse',
  refusal: (_ttl, max) => `ttl is larger than maximum allowed (${max})`,
};

/** An explicit ttl above max_ttl is refused; a defaulted one is clamped. */
export function certTtl(role: Role, requested: number | undefined, ctx: SignContext): number {
  return grantTtl(SSH_CERT_TTL, {
    requested,
    roleTtl: role.ttl,
    roleMaxTtl: role.maxTtl,
    mountDefaultTtl: ctx.mountDefaultTtl,
    mountMaxTtl: ctx.mountMaxTtl,
  }).ttl;
}

export function certKeyId(role: Role, requested: string, key: UserKey, ctx: SignContext): string {
  if (requested) {
    if (!role.allowUserKeyIds) throw new InvalidInput('setting key_id is not allowed by role');
    return requested;
  }
  const hash = keyHash(key);
  if (!role.keyIdFormat) return `vault-${ctx.displayName}-${hash}`;
  return role.keyIdFormat
    .replaceAll('{{token_display_name}}', ctx.displayName)
    .replaceAll('{{role_name}}', ctx.roleName)
    .replaceAll('{{public_key_hash}}', hash);
}

export function rsaSignerFor(role: Role, ca: CaSigner): RsaSigner {
  const alg = role.algorithmSigner;
  const isRsa = ca.key.asymmetricKeyType === 'rsa';
  if (!isRsa && alg && alg !== 'default') throw new InvalidInput(`algorithm_signer ${alg} is not compatible with the CA key type`);
  return alg === 'ssh-rsa' || alg === 'rsa-sha2-512' ? alg : 'rsa-sha2-256';
}

function certTypeOf(role: Role, certType: string): 'user' | 'host' {
  if (certType !== 'user' && certType !== 'host') throw new InvalidInput('cert_type must be "user" or "host"');
  if (certType === 'user' && !role.allowUserCertificates) throw new InvalidInput('user certificates are not allowed by role');
  if (certType === 'host' && !role.allowHostCertificates) throw new InvalidInput('host certificates are not allowed by role');
  return certType;
}

/** now − the role's not_before_duration, never before the epoch. */
function validAfter(now: bigint, role: Role): bigint {
  const back = BigInt(role.notBeforeDuration ?? DEFAULT_NOT_BEFORE_SECONDS);
  return now > back ? now - back : 0n;
}

export function signKey(role: Role, ca: CaSigner, input: SignInput, ctx: SignContext): Signed {
  if (role.keyType !== 'ca') throw new InvalidInput(`role is not of key_type ca`);
  const certType = certTypeOf(role, input.certType);
  const key = parseUserKey(input.publicKey);
  checkKeyLength(role.allowedUserKeyLengths, key);
  const principals = certType === 'user' ? userPrincipals(role, input.validPrincipals, ctx) : hostPrincipals(role, input.validPrincipals);
  const ttl = certTtl(role, input.ttl, ctx);
  const signer = rsaSignerFor(role, ca);
  const now = BigInt(Math.floor(ctx.nowMs / 1000));
  const serial = randomSerial();
  const cert = {
    serial,
    certType,
    keyId: certKeyId(role, input.keyId, key, ctx),
    principals,
    validAfter: validAfter(now, role),
    validBefore: now + BigInt(ttl),
  };
  const signedKey = signCertificate(
    {
      ...cert,
      key,
      criticalOptions: criticalOptions(role, input.criticalOptions),
      extensions: certType === 'user' ? extensions(role, input.extensions) : {},
    },
    ca,
    signer,
  );
  return { serialNumber: serial.toString(16), signedKey, ttl, cert };
}
