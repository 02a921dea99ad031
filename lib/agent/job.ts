/**
 * What the renewal loop keeps fresh: a job reads the validity of the files it already has, and
 * fetches a new credential as a set of file writes (nothing written yet). The loop writes them
 * atomically (files.ts) and schedules the next renewal from the validity.
 */
import type { LatchkeyClient } from '../client/client';
import type { FileWrite } from './files';

export interface Validity {
  /** When the credential was issued (ms): its notBefore, or the file's time if later. */
  start: number;
  /** When it expires (ms). */
  end: number;
  serial: string;
}

export interface Fetched {
  writes: FileWrite[];
  validity: Validity;
}

export interface Job {
  /** Fields naming the job in each log line (kind, mount, role, the certificate's file). */
  label: Record<string, string>;
  /** Run with sh -c after each renewal. */
  command?: string;
  /** The files already there, if they hold a credential the configuration still asks for. */
  current(): Validity | undefined;
  /** Asks the service for a new credential. */
  fetch(client: LatchkeyClient): Promise<Fetched>;
}

/** Issued at the later of its notBefore (back-dated by the service) and its file's time. */
export const startOf = (notBefore: number, fileTime: number, end: number) => Math.min(Math.max(notBefore, fileTime), end);
