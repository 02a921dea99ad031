/**
 * One-time passwords: random, handed out once, stored only as a salted hash (HMAC-SHA256 under
 * the mount's sealed salt). Verification deletes the record conditionally, so of concurrent
 * verifications exactly one succeeds.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { ConflictError, InvalidInput } from '../domain-errors';
import type { SecretLeases } from '../sys/secret-leases';
import type { SshStore } from './ssh-store';

export interface OtpRecord {
  ip: string;
  username: string;
  role_name: string;
  lease_id: string;
  expire_time: number;
}

export type OtpRevoke = {
  kind: 'otp';
  partition_mount: string;
  hash: string;
};

export const otpKey = (hash: string) => `otp/${hash}`;

export async function otpHash(store: SshStore, otp: string): Promise<string> {
  return createHmac('sha256', await store.otpSalt())
    .update(otp)
    .digest('hex');
}

export interface IssueOtp {
  /** The mount, whose partition the revoker deletes the record from. */
  mount: string;
  roleName: string;
  ip: string;
  username: string;
  ttl: number;
  maxTtl: number;
}

/** Lease first (write-ahead: its revocation deletes whatever follows), then the hashed record. */
export async function issueOtp(store: SshStore, secrets: SecretLeases, o: IssueOtp) {
  const otp = randomUUID();
  const hash = await otpHash(store, otp);
  const revoke: OtpRevoke = { kind: 'otp', partition_mount: o.mount, hash };
  const lease = await secrets.grant({ revoke: { ...revoke }, ttl: o.ttl, maxTtl: o.maxTtl });
  const record: OtpRecord = {
    ip: o.ip,
    username: o.username,
    role_name: o.roleName,
    lease_id: lease.lease_id,
    expire_time: lease.expire_time,
  };
  await store.part.put(otpKey(hash), { ...record });
  return { otp, lease };
}

/** The SSH helper's `-verify-only` self-check: this request answers this message (never an OTP, which is a UUID). */
export const VERIFY_ECHO_REQUEST = 'verify-echo-request';
export const VERIFY_ECHO_RESPONSE = 'verify-echo-response';

export async function verifyOtp(store: SshStore, otp: string, nowSeconds: number): Promise<OtpRecord> {
  if (!otp || otp.length > 256) throw new InvalidInput('OTP not found');
  const key = otpKey(await otpHash(store, otp));
  const item = await store.part.get<OtpRecord>(key);
  if (!item) throw new InvalidInput('OTP not found');
  const won = await store.part.delete(key, { ifVersion: item.version }).catch((e: unknown) => {
    if (e instanceof ConflictError) return false;
    throw e;
  });
  if (!won || item.value.expire_time <= nowSeconds) throw new InvalidInput('OTP not found');
  return item.value;
}
