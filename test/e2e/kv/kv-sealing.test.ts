/**
 * KV values never rest or travel in clear outside the answers that hand them out: the local
 * server (every function, the embedded store, a file audit device, debug logs) takes secrets of
 * its `secret/` mount (version 2) through every endpoint, then the raw store (its items and its files on disk), the audit
 * file and everything written to stdout and stderr are searched for each value: none is there.
 * The audit records hold the HMAC of each string value (sys/audit-hash reproduces it).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setLogLevel } from '../../../lib/log';
import { auditedService, type AuditedService } from '../audit/helpers';

const V2_VALUE = 'kv2-plaintext-6f1d0c9a7e';
const V2_OLD = 'kv2-older-version-84b2c1';
const PATCHED = 'kv2-patched-value-5e7a11';
const VALUES = [V2_VALUE, V2_OLD, PATCHED];

let a: AuditedService;
let output = '';

beforeAll(async () => {
  setLogLevel('debug');
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      output += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    });
  }
  a = await auditedService();
});

afterAll(async () => {
  vi.restoreAllMocks();
  setLogLevel('silent');
  await a?.close();
});

/** Every file under a directory, as bytes. */
function filesUnder(dir: string): Buffer[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [readFileSync(p)];
  });
}

describe('KV values at rest and in the logs', () => {
  it('go through every endpoint, answered in clear to the caller only', async () => {
    const t = a.root;
    expect((await a.call('POST', '/v1/secret/data/team/db', { token: t, body: { data: { password: V2_OLD } } })).status).toBe(200);
    expect((await a.call('POST', '/v1/secret/data/team/db', { token: t, body: { data: { password: V2_VALUE } } })).status).toBe(200);
    expect((await a.call('PATCH', '/v1/secret/data/team/db', { token: t, body: { data: { extra: PATCHED } } })).status).toBe(200);
    const read = await a.call('GET', '/v1/secret/data/team/db', { token: t });
    expect(read.json!.data.data).toEqual({ password: V2_VALUE, extra: PATCHED });
    expect((await a.call('GET', '/v1/secret/data/team/db?version=1', { token: t })).json!.data.data.password).toBe(V2_OLD);
    expect((await a.call('GET', '/v1/secret/subkeys/team/db', { token: t })).json!.data.subkeys).toEqual({ password: null, extra: null });
    expect((await a.call('GET', '/v1/secret/metadata/team/db', { token: t })).status).toBe(200);
    expect((await a.call('POST', '/v1/secret/delete/team/db', { token: t, body: { versions: [1] } })).status).toBe(204);
    expect((await a.call('POST', '/v1/secret/undelete/team/db', { token: t, body: { versions: [1] } })).status).toBe(204);
    // sys/mounts shows the KV mount with its version, as Vault does.
    const mounts = await a.call('GET', '/v1/sys/mounts', { token: t });
    expect(mounts.json!.data['secret/']).toMatchObject({ type: 'kv', options: { version: '2' } });
  });

  it('are sealed in the store: no value in any item of the KV partition nor in the files on disk', async () => {
    const part = a.svc.deps.store.partition('kv/secret');
    const page = await part.list('');
    const raw = JSON.stringify(page.items);
    expect(raw).toContain('"$sealed":1');
    for (const v of VALUES) expect(raw).not.toContain(v);
    const disk = filesUnder(a.dataDir).filter((b) => b.length);
    expect(disk.length).toBeGreaterThan(0);
    for (const v of VALUES) for (const b of disk) expect(b.includes(v)).toBe(false);
  });

  it('are HMACed in the audit records (sys/audit-hash reproduces the HMAC) and absent from the logs', async () => {
    const hash = await a.call('POST', '/v1/sys/audit-hash/file', { token: a.root, body: { input: V2_VALUE } });
    expect(hash.status).toBe(200);
    const file = readFileSync(a.auditFile, 'utf8');
    for (const v of VALUES) expect(file).not.toContain(v);
    for (const v of VALUES) expect(output).not.toContain(v);
    const records = a.records().filter((r) => r.request.path === 'secret/data/team/db');
    const written = records.find((r) => r.type === 'request' && r.request.data?.data?.password);
    const answered = records.find((r) => r.type === 'response' && r.response?.data?.data?.password);
    expect(written!.request.data.data.password).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(answered!.response.data.data.password).toBe(hash.json!.data.hash);
    expect(output).toContain('"event"');
  });
});
