/**
 * Fail closed: with the local file device unwritable (a directory where DATA_DIR/audit.log
 * was: chmod stops no root process), writes on every surface — a PKI role, a catalog KV value,
 * a token — answer a 5xx naming no secret and change nothing: once the file is back, the role
 * and the key are not found and the store holds what it held before. Reads fail closed too.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Partition } from '../../../lib/store/store';
import { auditedService, type AuditedService } from './helpers';

let s: AuditedService;

beforeAll(async () => {
  s = await auditedService();
});
afterAll(async () => {
  await s?.close();
});

/** Every key of a partition with its version. */
async function snapshot(part: Partition): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await part.list('', { limit: 500, ...(cursor ? { cursor } : {}) });
    for (const item of page.items) out.push(`${item.key}@${item.version}`);
    cursor = page.cursor;
  } while (cursor);
  return out.sort();
}

const partitions = () => ['sys', 'catalog', 'pki/pki'].map((p) => s.svc.deps.store.partition(p));
const snapshotAll = async () => Promise.all(partitions().map(snapshot));

describe('audit fail closed', () => {
  it('answers 5xx to writes while no device can record them, and leaves the store unchanged', async () => {
    // The service works, then the device breaks.
    expect((await s.call('GET', '/v1/sys/health')).status).toBe(200);
    const before = await snapshotAll();
    const tokensBefore = before[0]!.filter((k) => k.startsWith('token/')).length;
    expect(tokensBefore).toBeGreaterThan(0);
    rmSync(s.auditFile);
    mkdirSync(s.auditFile);

    const kvValue = 'kv-fail-closed-value-31d7';
    const writes = [
      await s.call('POST', '/v1/pki/roles/x', { token: s.root, body: { allow_any_name: true } }),
      await s.call('PUT', '/v1/kv/k', { token: s.root, raw: kvValue }),
      await s.call('POST', '/v1/auth/token/create', { token: s.root, body: { policies: ['default'] } }),
      await s.call('POST', '/v1/sys/policy/p', { token: s.root, body: { policy: 'path "x" { capabilities = ["read"] }' } }),
      await s.call('GET', '/v1/sys/mounts', { token: s.root }),
      await s.call('GET', '/v1/sys/health'),
    ];
    for (const w of writes) {
      expect(w.status, w.text).toBeGreaterThanOrEqual(500);
      expect(w.text).toMatch(/audit log could not record/);
      for (const secret of [s.root, kvValue, 'allow_any_name', s.dataDir]) expect(w.text).not.toContain(secret);
      expect(w.id).toBeTruthy();
    }

    // The device is back: nothing the failed writes asked for exists.
    rmSync(s.auditFile, { recursive: true });
    expect((await s.call('GET', '/v1/pki/roles/x', { token: s.root })).status).toBe(404);
    expect((await s.call('GET', '/v1/kv/k', { token: s.root })).status).toBe(404);
    expect((await s.call('GET', '/v1/sys/policy/p', { token: s.root })).status).toBe(404);
    const after = await snapshotAll();
    expect(after[0]!.filter((k) => k.startsWith('token/')).length).toBe(tokensBefore);
    expect(after).toEqual(before);
    // And the recreated file records again.
    const ok = await s.call('POST', '/v1/pki/roles/x', { token: s.root, body: { allow_any_name: true } });
    expect(ok.status).toBe(200);
    expect(
      s
        .records()
        .filter((r) => r.request.id === ok.id)
        .map((r) => r.type),
    ).toEqual(['request', 'response']);
  });
});
