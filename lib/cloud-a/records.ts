/**
 * What a cloud-A lease must undo, written before the cloud objects are created (write-ahead)
 * and advanced as they are: enough for the revoker to find everything even after a crash.
 */
import type { MovedRecord } from '../sys/secret-leases';
export type DynamicRecord = {
  kind: 'dynamic';
  /** The unique display name of the application, known before it exists. */
  displayName: string;
  appObjectId: string;
  appId: string;
  spObjectId: string;
  /** Full role assignment ids, chosen before the assignments are made. */
  assignments: string[];
  groups: string[];
};

export type StaticRecord = {
  kind: 'static';
  appObjectId: string;
  /** The unique display name of the added password, known before it exists. */
  passwordName: string;
  keyId: string;
};

export type CredsRecord = DynamicRecord | StaticRecord | MovedRecord;

export function isCredsRecord(v: unknown): v is CredsRecord {
  const k = (v as { kind?: unknown } | null)?.kind;
  return k === 'dynamic' || k === 'static' || k === 'moved';
}
