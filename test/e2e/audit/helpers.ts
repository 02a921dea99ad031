/**
 * A local service (startLocal: every function, the embedded store) recording to a file device
 * under its data directory, a client that keeps every answer's x-request-id, and the records.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocal, type LocalService } from '../../../lib/local/service';

export interface AuditedService {
  svc: LocalService;
  url: string;
  root: string;
  dataDir: string;
  auditFile: string;
  /** Every x-request-id the client was answered with, in order. */
  ids: string[];
  call(method: string, path: string, o?: CallOptions): Promise<Answer>;
  records(): AuditRecord[];
  close(): Promise<void>;
}

export interface CallOptions {
  token?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  text: string;
  json: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  id: string | null;
}

export type AuditRecord = Record<string, any> & { type: string; request: Record<string, any> & { id: string; path: string } }; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A fresh local service whose audit device is DATA_DIR/audit.log: AUDIT_DEVICES unset, as a
 * user runs it (vitest sets it to none for every other test).
 */
export async function auditedService(): Promise<AuditedService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-audit-'));
  delete process.env.AUDIT_DEVICES;
  const svc = await startLocal({ dataDir, port: 0, quiet: true });
  const auditFile = join(dataDir, 'audit.log');
  const ids: string[] = [];
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers['x-vault-token'] = o.token;
    let body: string | Uint8Array | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(svc.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    const id = res.headers.get('x-request-id');
    if (id) ids.push(id);
    let json: Answer['json'];
    try {
      json = text ? (JSON.parse(text) as Answer['json']) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json, id };
  };
  return {
    svc,
    url: svc.url,
    root: svc.rootToken!,
    dataDir,
    auditFile,
    ids,
    call,
    records: () => readRecords(auditFile),
    close: async () => {
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function readRecords(file: string): AuditRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditRecord);
}
