/**
 * A KV version 2 write with a warm cache (lib/kv/record-cache.ts): the existence check and the
 * write's first attempt use the record this instance last wrote, so the write is one store call;
 * when another instance changed the secret meanwhile, the answer is still the one a fresh read
 * gives, and a token allowed only `update` never creates a secret the other instance deleted.
 * Two app instances on one dynalite table, as two Lambda instances.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kvEngine } from '../../../lib/kv/engine';
import { metrics } from '../../../lib/metrics/catalog';
import { call } from '../../helpers/service';
import { instancesOnOneStore, type Instances } from '../../helpers/instances';

let inst: Instances;
const dir = mkdtempSync(join(tmpdir(), 'latchkey-kv-guess-'));
const auditFile = join(dir, 'audit.log');
const on = (i: number, token: string, method: string, path: string, body?: unknown) =>
  call(inst.apps[i]!, method, `/v1/${path}`, { token, ...(body !== undefined ? { body } : {}) });
let updateOnly: string;

async function tokenFor(capabilities: string[]): Promise<string> {
  const name = `guess-${capabilities.join('-')}`;
  const doc = { path: { 'secret/data/guess/*': { capabilities: ['read', ...capabilities] } } };
  expect((await on(0, inst.root, 'PUT', `sys/policy/${name}`, { policy: JSON.stringify(doc) })).status).toBe(204);
  const r = await on(0, inst.root, 'POST', 'auth/token/create', { policies: [name] });
  return r.json!.auth.client_token as string;
}

/** Store calls of every instance so far (the process's registry). */
const storeCalls = () => metrics.platform.storeCalls.all().reduce((n, s) => n + s.sum, 0);

/** The audit records of one request path, in order: [type, operation, status]. */
function audited(path: string): [string, string, number | undefined][] {
  return readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; request: { path: string; operation: string }; response?: { status_code?: number } })
    .filter((e) => e.request.path === path)
    .map((e) => [e.type, e.request.operation, e.response?.status_code]);
}

beforeAll(async () => {
  inst = await instancesOnOneStore([kvEngine], 2, { audit: `file:${auditFile}` });
  updateOnly = await tokenFor(['update']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('KV v2 writes on the record an instance last wrote', () => {
  it('a repeated write through one instance is one store call, and lands as the next version', async () => {
    expect((await on(0, inst.root, 'POST', 'secret/data/guess/one', { data: { v: '1' } })).status).toBe(200);
    const before = storeCalls();
    const r = await on(0, inst.root, 'POST', 'secret/data/guess/one', { data: { v: '2' } });
    expect(r.status).toBe(200);
    expect(r.json!.data.version).toBe(2);
    // The token, its policies and the mount's config are cached; the existence check and the
    // write's condition come from the record written just before: one conditional put.
    expect(storeCalls() - before).toBe(1);
    expect((await on(1, inst.root, 'GET', 'secret/data/guess/one')).json!.data.data).toEqual({ v: '2' });
  });

  it('keeps no record over 64 KiB: the next write of a large secret reads it first', async () => {
    const big = { blob: 'x'.repeat(80 * 1024) };
    await on(0, inst.root, 'POST', 'secret/data/guess/big', { data: big });
    const before = storeCalls();
    expect((await on(0, inst.root, 'POST', 'secret/data/guess/big', { data: big })).status).toBe(200);
    expect(storeCalls() - before).toBe(2);
  });

  it('after another instance wrote, a write lands after its version and keeps it', async () => {
    await on(0, inst.root, 'POST', 'secret/data/guess/two', { data: { v: '1' } });
    await on(1, inst.root, 'POST', 'secret/data/guess/two', { data: { v: '2' } });
    const r = await on(0, inst.root, 'POST', 'secret/data/guess/two', { data: { v: '3' } });
    expect(r.json!.data.version).toBe(3);
    expect((await on(1, inst.root, 'GET', 'secret/data/guess/two?version=2')).json!.data.data).toEqual({ v: '2' });
  });

  it('check-and-set is judged on the stored record, not on the one the instance last wrote', async () => {
    await on(0, inst.root, 'POST', 'secret/data/guess/cas', { data: { v: '1' } });
    await on(1, inst.root, 'POST', 'secret/data/guess/cas', { data: { v: '2' } });
    // Instance 0 last wrote version 1; the secret is at version 2: cas 2 is right, cas 1 is not.
    const ok = await on(0, inst.root, 'POST', 'secret/data/guess/cas', { data: { v: '3' }, options: { cas: 2 } });
    expect(ok.status).toBe(200);
    expect(ok.json!.data.version).toBe(3);
    await on(1, inst.root, 'POST', 'secret/data/guess/cas', { data: { v: '4' } });
    const stale = await on(0, inst.root, 'POST', 'secret/data/guess/cas', { data: { v: 'x' }, options: { cas: 3 } });
    expect(stale.status).toBe(400);
    expect(stale.json!.errors).toEqual(['check-and-set parameter did not match the current version']);
  });

  it('a token allowed only update cannot create a secret another instance deleted: checked again as create, 403, nothing written', async () => {
    expect((await on(0, updateOnly, 'POST', 'secret/data/guess/gone', { data: { v: '1' } })).status).toBe(403); // create: refused
    await on(0, inst.root, 'POST', 'secret/data/guess/gone', { data: { v: '1' } });
    expect((await on(0, updateOnly, 'POST', 'secret/data/guess/gone', { data: { v: '2' } })).status).toBe(200); // update: allowed
    expect((await on(1, inst.root, 'DELETE', 'secret/metadata/guess/gone')).status).toBe(204);
    // Instance 0 last wrote the secret: its existence check says update; the write finds it gone.
    const r = await on(0, updateOnly, 'POST', 'secret/data/guess/gone', { data: { v: '3' } });
    expect(r.status).toBe(403);
    expect((await on(1, inst.root, 'GET', 'secret/metadata/guess/gone')).status).toBe(404);
    // The request was let in as update; its response record names the create it was refused as.
    expect(audited('secret/data/guess/gone').slice(-2)).toEqual([
      ['request', 'update', undefined],
      ['response', 'create', 403],
    ]);
    // With create allowed too, the same write goes through as a create.
    await on(0, inst.root, 'POST', 'secret/data/guess/gone', { data: { v: '4' } });
    await on(1, inst.root, 'DELETE', 'secret/metadata/guess/gone');
    const created = await on(0, inst.root, 'POST', 'secret/data/guess/gone', { data: { v: '5' } });
    expect(created.json!.data.version).toBe(1);
    expect(audited('secret/data/guess/gone').slice(-1)).toEqual([['response', 'create', 200]]);
  });
});
