/**
 * KV policies as Vault's (paths `secret/data/…`, `secret/metadata/…`; create for a new secret,
 * update for an existing one), version 1 mounts, the 413 for what cannot be stored, and a KV
 * mount's options read from the configuration.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseMounts } from '../../../lib/config';
import { kvEngine } from '../../../lib/kv/engine';
import { MAX_RECORD_BYTES } from '../../../lib/kv/kv-store';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';
import { kvMount } from './kv-mounts';

let svc: TestService;
const as = (token: string, method: string, path: string, body?: unknown) =>
  call(svc.app, method, `/v1/${path}`, { token, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  svc = await createTestService({ engines: [kvEngine], mounts: [kvMount('secret', '2'), kvMount('kv1', '1')] });
  const policy = (name: string, doc: object) => as(svc.root, 'PUT', `sys/policy/${name}`, { policy: JSON.stringify(doc) });
  await policy('team-read', { path: { 'secret/data/team/*': { capabilities: ['read'] } } });
  await policy('creator', { path: { 'secret/data/new/*': { capabilities: ['create'] }, 'secret/metadata/*': { capabilities: ['list'] } } });
  await policy('v1-reader', { path: { 'kv1/app/*': { capabilities: ['read', 'list'] } } });
  await as(svc.root, 'POST', 'secret/data/team/db', { data: { password: 'p' } });
  await as(svc.root, 'POST', 'secret/data/other/db', { data: { password: 'q' } });
});

describe('KV policies', () => {
  it('read on secret/data/team/* reads team secrets and nothing else: no write, no other path, no metadata', async () => {
    const t = await tokenWith(svc, ['team-read']);
    expect((await as(t, 'GET', 'secret/data/team/db')).json!.data.data).toEqual({ password: 'p' });
    expect((await as(t, 'POST', 'secret/data/team/db', { data: { password: 'x' } })).status).toBe(403);
    expect((await as(t, 'GET', 'secret/data/other/db')).status).toBe(403);
    expect((await as(t, 'GET', 'secret/metadata/team/db')).status).toBe(403);
    expect((await as(t, 'DELETE', 'secret/data/team/db')).status).toBe(403);
    expect((await as(t, 'POST', 'secret/destroy/team/db', { versions: [1] })).status).toBe(403);
  });

  it('create without update writes a new secret once, and not over an existing one; list on secret/metadata/* lists', async () => {
    const t = await tokenWith(svc, ['creator']);
    expect((await as(t, 'POST', 'secret/data/new/one', { data: { a: '1' } })).status).toBe(200);
    expect((await as(t, 'POST', 'secret/data/new/one', { data: { a: '2' } })).status).toBe(403);
    expect((await as(t, 'LIST', 'secret/metadata/new')).json!.data.keys).toEqual(['one']);
    expect((await as(t, 'GET', 'secret/data/new/one')).status).toBe(403);
  });
});

describe('KV version 1', () => {
  it('writes any JSON object as the secret, reads it back whole, lists folders, deletes', async () => {
    const r = svc.root;
    expect((await as(r, 'POST', 'kv1/app/db', { password: 'p', port: 5432, nested: { a: true } })).status).toBe(204);
    expect((await as(r, 'GET', 'kv1/app/db')).json!.data).toEqual({ password: 'p', port: 5432, nested: { a: true } });
    expect((await as(r, 'PUT', 'kv1/app/sub/x', { a: '1' })).status).toBe(204);
    expect((await as(r, 'LIST', 'kv1/app')).json!.data.keys).toEqual(['db', 'sub/']);
    expect((await as(r, 'LIST', 'kv1')).json!.data.keys).toEqual(['app/']);
    expect((await as(r, 'POST', 'kv1/app/empty', {})).json!.errors).toEqual(['missing data fields']);
    expect((await as(r, 'DELETE', 'kv1/app/db')).status).toBe(204);
    expect((await as(r, 'GET', 'kv1/app/db')).status).toBe(404);
    expect((await as(r, 'DELETE', 'kv1/app/db')).status).toBe(204);
    expect((await as(r, 'GET', 'kv1/data/app/db')).status).toBe(404);
  });

  it('is sealed at rest, and policies on kv1/<path> apply', async () => {
    await as(svc.root, 'POST', 'kv1/app/sealed', { password: 'kv1-sealed-8c2d' });
    const raw = JSON.stringify((await svc.deps.store.partition('kv/kv1').list('')).items);
    expect(raw).toContain('"$sealed":1');
    expect(raw).not.toContain('kv1-sealed-8c2d');
    const t = await tokenWith(svc, ['v1-reader']);
    expect((await as(t, 'GET', 'kv1/app/sealed')).json!.data).toEqual({ password: 'kv1-sealed-8c2d' });
    expect((await as(t, 'POST', 'kv1/app/sealed', { password: 'x' })).status).toBe(403);
  });
});

describe('what cannot be stored', () => {
  it('a secret whose kept versions pass the per-secret limit is refused with 413 naming it, and nothing is written', async () => {
    const big = 'x'.repeat(900 * 1024);
    let version = 0;
    let refused: Awaited<ReturnType<typeof as>> | undefined;
    for (let i = 0; i < 12 && !refused; i++) {
      const r = await as(svc.root, 'POST', 'secret/data/big', { data: { v: big + String(i) } });
      if (r.status === 200) version = r.json!.data.version as number;
      else refused = r;
    }
    expect(version).toBeGreaterThan(3);
    expect(refused!.status).toBe(413);
    expect(refused!.json!.errors[0]).toMatch(new RegExp(`over the ${MAX_RECORD_BYTES}-byte limit per secret; lower max_versions`));
    expect((await as(svc.root, 'GET', 'secret/metadata/big')).json!.data.current_version).toBe(version);
    // Fewer versions kept makes room again.
    await as(svc.root, 'POST', 'secret/metadata/big', { max_versions: 2 });
    expect((await as(svc.root, 'POST', 'secret/data/big', { data: { v: big } })).status).toBe(200);
  });

  it('a body over 1 MiB is 413 before the engine', async () => {
    expect((await as(svc.root, 'POST', 'secret/data/huge', { data: { v: 'x'.repeat(1100 * 1024) } })).status).toBe(413);
  });
});

describe("a KV mount's options in the configuration", () => {
  const entry = (options?: unknown) => ({ path: 'kvx', type: 'kv', ...(options !== undefined ? { options } : {}) });
  it('version 2 by default; "1" or 1 for version 1', () => {
    expect(parseMounts([entry()])[0]!.options).toEqual({ version: '2' });
    expect(parseMounts([entry({ version: 1 })])[0]!.options).toEqual({ version: '1' });
  });
  it('refuses an unknown option or version, options on another engine, and a KV mount named kv (the catalog)', () => {
    expect(() => parseMounts([entry({ version: '3' })])).toThrow(/option version must be one of 1, 2/);
    expect(() => parseMounts([entry({ versioned: '2' })])).toThrow(/unknown option versioned/);
    expect(() => parseMounts([entry('2')])).toThrow(/options must be an object/);
    expect(() => parseMounts([{ path: 'p', type: 'pki', options: { version: '2' } }])).toThrow(/takes no options/);
    expect(() => parseMounts([{ path: 'kv', type: 'kv' }])).toThrow(/mount path kv is taken/);
  });
});
