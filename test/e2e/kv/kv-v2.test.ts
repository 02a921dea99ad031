/**
 * KV version 2 through the app, as a client of Vault's API: data (versions, check-and-set, patch,
 * soft delete), delete/undelete/destroy, metadata (settings, versions, LIST), config, subkeys, and
 * the 404 a version 1 path gets on a version 2 mount.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { kvEngine } from '../../../lib/kv/engine';
import { call, createTestService, type TestService } from '../../helpers/service';
import { kvMount } from './kv-mounts';

let svc: TestService;
const kv = (method: string, path: string, body?: unknown) =>
  call(svc.app, method, `/v1/secret/${path}`, { token: svc.root, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  svc = await createTestService({ engines: [kvEngine], mounts: [kvMount('secret', '2')] });
});

describe('KV v2 data', () => {
  it('writes versions and reads the current one or any kept version, with its metadata', async () => {
    const w1 = await kv('POST', 'data/app/db', { data: { password: 'one' } });
    expect(w1.status).toBe(200);
    expect(w1.json!.data).toMatchObject({ version: 1, destroyed: false, deletion_time: '', custom_metadata: null });
    expect(Date.parse(w1.json!.data.created_time as string)).toBeGreaterThan(0);
    await kv('POST', 'data/app/db', { data: { password: 'two' } });
    const cur = await kv('GET', 'data/app/db');
    expect(cur.json!.data).toMatchObject({ data: { password: 'two' }, metadata: { version: 2 } });
    const v1 = await kv('GET', 'data/app/db?version=1');
    expect(v1.json!.data).toMatchObject({ data: { password: 'one' }, metadata: { version: 1 } });
    expect((await kv('GET', 'data/app/db?version=7')).status).toBe(404);
    expect((await kv('GET', 'data/app/nothing')).status).toBe(404);
  });

  it('check-and-set: cas 0 only for a new secret, the current version after; refused otherwise', async () => {
    expect((await kv('POST', 'data/cas', { data: { a: '1' }, options: { cas: 0 } })).status).toBe(200);
    const again = await kv('POST', 'data/cas', { data: { a: '2' }, options: { cas: 0 } });
    expect(again.status).toBe(400);
    expect(again.json!.errors).toEqual(['check-and-set parameter did not match the current version']);
    expect((await kv('POST', 'data/cas', { data: { a: '2' }, options: { cas: 1 } })).json!.data.version).toBe(2);
    expect((await kv('POST', 'data/cas', { data: { a: '2' }, options: { cas: 'x' } })).status).toBe(400);
  });

  it('patch merges into the current version (null removes a key) as a new version; 404 with nothing to patch', async () => {
    await kv('POST', 'data/p', { data: { a: '1', b: { c: '2', d: '3' } } });
    const p = await kv('PATCH', 'data/p', { data: { a: null, b: { c: 'x' }, e: 'new' } });
    expect(p.status).toBe(200);
    expect(p.json!.data.version).toBe(2);
    expect((await kv('GET', 'data/p')).json!.data.data).toEqual({ b: { c: 'x', d: '3' }, e: 'new' });
    expect((await kv('PATCH', 'data/none', { data: { a: '1' } })).status).toBe(404);
    expect((await kv('PATCH', 'data/p', { data: { a: '1' }, options: { cas: 1 } })).status).toBe(400);
  });

  it('refuses a write without data, or data that is not an object', async () => {
    expect((await kv('POST', 'data/bad', {})).json!.errors).toEqual(['no data provided']);
    expect((await kv('POST', 'data/bad', { data: 'text' })).status).toBe(400);
    expect((await kv('POST', 'data/bad', { data: [1] })).status).toBe(400);
  });

  it('soft delete: the read is 404 with the metadata; undelete restores; destroy removes the data for good', async () => {
    await kv('POST', 'data/d', { data: { k: 'v1' } });
    await kv('POST', 'data/d', { data: { k: 'v2' } });
    expect((await kv('DELETE', 'data/d')).status).toBe(204);
    const gone = await kv('GET', 'data/d');
    expect(gone.status).toBe(404);
    expect(gone.json!.data).toMatchObject({ data: null, metadata: { version: 2, destroyed: false } });
    expect(gone.json!.data.metadata.deletion_time).not.toBe('');
    expect((await kv('POST', 'undelete/d', { versions: [2] })).status).toBe(204);
    expect((await kv('GET', 'data/d')).json!.data.data).toEqual({ k: 'v2' });
    expect((await kv('POST', 'delete/d', { versions: [1] })).status).toBe(204);
    expect((await kv('GET', 'data/d?version=1')).status).toBe(404);
    expect((await kv('PUT', 'destroy/d', { versions: [1, 9] })).status).toBe(204);
    expect((await kv('POST', 'undelete/d', { versions: [1] })).status).toBe(204);
    const destroyed = await kv('GET', 'data/d?version=1');
    expect(destroyed.status).toBe(404);
    expect(destroyed.json!.data.metadata).toMatchObject({ destroyed: true, version: 1 });
    expect((await kv('POST', 'delete/d', {})).json!.errors).toEqual(['No version number provided']);
    expect((await kv('PUT', 'destroy/d', { versions: 'x' })).status).toBe(400);
  });
});

describe('KV v2 metadata, config, subkeys', () => {
  it('metadata: versions, settings, custom_metadata; max_versions trims the oldest in the write that passes it', async () => {
    expect(
      (await kv('POST', 'metadata/m', { max_versions: 2, custom_metadata: { owner: 'team-a' }, delete_version_after: '1h' })).status,
    ).toBe(204);
    for (const n of [1, 2, 3]) await kv('POST', 'data/m', { data: { n: String(n) } });
    const m = await kv('GET', 'metadata/m');
    expect(m.json!.data).toMatchObject({
      current_version: 3,
      oldest_version: 2,
      max_versions: 2,
      cas_required: false,
      delete_version_after: '1h0m0s',
      custom_metadata: { owner: 'team-a' },
    });
    expect(Object.keys(m.json!.data.versions as object).sort()).toEqual(['2', '3']);
    expect((await kv('GET', 'data/m?version=1')).status).toBe(404);
    expect((await kv('GET', 'data/m')).json!.data.metadata.custom_metadata).toEqual({ owner: 'team-a' });
    // delete_version_after: the version carries its deletion time.
    expect((await kv('GET', 'data/m')).json!.data.metadata.deletion_time).not.toBe('');
  });

  it('metadata cas_required makes writes give cas; PATCH changes only the settings named; DELETE removes every version', async () => {
    await kv('POST', 'data/c', { data: { a: '1' } });
    await kv('POST', 'metadata/c', { cas_required: true });
    expect((await kv('POST', 'data/c', { data: { a: '2' } })).json!.errors).toEqual(['check-and-set parameter required for this call']);
    expect((await kv('PATCH', 'metadata/c', { max_versions: 5 })).status).toBe(204);
    expect((await kv('GET', 'metadata/c')).json!.data).toMatchObject({ cas_required: true, max_versions: 5 });
    expect((await kv('PATCH', 'metadata/none', { max_versions: 5 })).status).toBe(404);
    expect((await kv('DELETE', 'metadata/c')).status).toBe(204);
    expect((await kv('GET', 'metadata/c')).status).toBe(404);
    expect((await kv('GET', 'data/c')).status).toBe(404);
  });

  it('refuses custom_metadata beyond Vault limits and of the wrong shape', async () => {
    expect((await kv('POST', 'metadata/x', { custom_metadata: { a: 1 } })).status).toBe(400);
    expect((await kv('POST', 'metadata/x', { custom_metadata: { ['k'.repeat(129)]: 'v' } })).status).toBe(400);
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    expect((await kv('POST', 'metadata/x', { custom_metadata: many })).json!.errors[0]).toMatch(/at most 64 keys/);
    expect((await kv('POST', 'metadata/x', { max_versions: -1 })).status).toBe(400);
  });

  it('LIST metadata: names one level down, folders with a slash; 404 for an empty folder', async () => {
    await kv('POST', 'data/list/a', { data: { x: '1' } });
    await kv('POST', 'data/list/b/c', { data: { x: '1' } });
    await kv('POST', 'data/list/b/d/e', { data: { x: '1' } });
    expect((await kv('LIST', 'metadata/list')).json!.data.keys).toEqual(['a', 'b/']);
    expect((await kv('GET', 'metadata/list/b/?list=true')).json!.data.keys).toEqual(['c', 'd/']);
    expect((await kv('LIST', 'metadata')).json!.data.keys).toEqual(expect.arrayContaining(['list/', 'app/']));
    expect((await kv('LIST', 'metadata/nothing')).status).toBe(404);
  });

  it('config: max_versions, cas_required, delete_version_after for every secret', async () => {
    const s2 = await createTestService({ engines: [kvEngine], mounts: [kvMount('secret', '2')] });
    const c = (method: string, path: string, body?: unknown) => call(s2.app, method, `/v1/secret/${path}`, { token: s2.root, body });
    expect((await c('GET', 'config')).json!.data).toEqual({ cas_required: false, delete_version_after: '0s', max_versions: 0 });
    expect((await c('POST', 'config', { max_versions: 3, cas_required: true, delete_version_after: '30m0s' })).status).toBe(204);
    expect((await c('GET', 'config')).json!.data).toEqual({ cas_required: true, delete_version_after: '30m0s', max_versions: 3 });
    expect((await c('POST', 'data/x', { data: { a: '1' } })).status).toBe(400);
    for (let i = 0; i < 5; i++) await c('POST', 'data/x', { data: { a: String(i) }, options: { cas: i } });
    expect(Object.keys((await c('GET', 'metadata/x')).json!.data.versions as object)).toEqual(['3', '4', '5']);
    const w = await c('POST', 'metadata/x', { cas_required: false });
    expect(w.json!.warnings[0]).toMatch(/mandated by backend config/);
  });

  it('subkeys: the keys with null leaves, to a depth', async () => {
    await kv('POST', 'data/sk', { data: { a: { b: { c: 'secret' } }, d: 'x', e: [1, 2] } });
    const r = await kv('GET', 'subkeys/sk');
    expect(r.json!.data.subkeys).toEqual({ a: { b: { c: null } }, d: null, e: null });
    expect(r.text).not.toContain('secret"');
    expect((await kv('GET', 'subkeys/sk?depth=1')).json!.data.subkeys).toEqual({ a: null, d: null, e: null });
    expect((await kv('GET', 'subkeys/none')).status).toBe(404);
  });

  it('a plain path on a version 2 mount is 404 naming the versioned API, as Vault answers', async () => {
    const r = await kv('GET', 'app/db');
    expect(r.status).toBe(404);
    expect(r.json!.errors[0]).toMatch(/Invalid path for a versioned K\/V secrets engine/);
  });
});
