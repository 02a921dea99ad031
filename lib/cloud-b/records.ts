/** What a cloud-B lease must undo, written before anything is created (write-ahead). */
import type { MovedRecord } from '../sys/secret-leases';

export type UserRecord = {
  kind: 'user';
  userName: string;
  /** Names of the policies made from the role's inline documents (Custom type). */
  inlinePolicies: string[];
  remotePolicies: { name: string; type: string }[];
  accessKeyId: string;
};

/** STS tokens cannot be revoked: they expire by themselves. */
export type StsRecord = {
  kind: 'sts';
};

export type CredsRecord = UserRecord | StsRecord | MovedRecord;

export function isCredsRecord(v: unknown): v is CredsRecord {
  const k = (v as { kind?: unknown } | null)?.kind;
  return k === 'user' || k === 'sts' || k === 'moved';
}
