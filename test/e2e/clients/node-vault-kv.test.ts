/**
 * node-vault (npm) through every KV endpoint over HTTP, as its users call them with its generic
 * read/write/update (PATCH, merge-patch+json)/delete/list: version 2 data, versions,
 * delete/undelete/destroy, metadata, config, subkeys, a check-and-set race and max_versions;
 * version 1 read/write/list/delete; LIST as GET ?list=1 too (noCustomHTTPVerbs, API Gateway's way).
 * node-vault rejects non-2xx answers with the status and first error message.
 */
import nodeVault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kvEngine } from '../../../lib/kv/engine';
import { listen, type Served } from '../../../lib/local/http-server';
import { call, createTestService, type TestService } from '../../helpers/service';
import { kvMount } from '../kv/kv-mounts';
import { failure, type Json } from './harness';

let svc: TestService;
let server: Served;
const vault = (o: { token?: string; noCustomHTTPVerbs?: boolean } = {}) =>
  nodeVault({ endpoint: server.url, token: o.token ?? svc.root, ...(o.noCustomHTTPVerbs ? { noCustomHTTPVerbs: true } : {}) });

beforeAll(async () => {
  svc = await createTestService({ engines: [kvEngine], mounts: [kvMount('secret', '2'), kvMount('kv1', '1')] });
  server = await listen(svc.app.fetch, { port: 0 });
});

afterAll(async () => {
  await server.close();
});

describe('node-vault: KV version 2', () => {
  it('write, read (current and ?version), update (PATCH), delete, delete/undelete/destroy versions', async () => {
    const v = vault();
    const w: Json = await v.write('secret/data/app/db', { data: { user: 'app', password: 'one' } });
    expect(w.data).toMatchObject({ version: 1, destroyed: false, deletion_time: '' });
    await v.write('secret/data/app/db', { data: { user: 'app', password: 'two' }, options: { cas: 1 } });
    expect(((await v.read('secret/data/app/db')) as Json).data).toMatchObject({ data: { password: 'two' }, metadata: { version: 2 } });
    expect(((await v.read('secret/data/app/db?version=1')) as Json).data.data.password).toBe('one');
    const patched: Json = await v.update('secret/data/app/db', { data: { password: null, port: '5432' } });
    expect(patched.data.version).toBe(3);
    expect(((await v.read('secret/data/app/db')) as Json).data.data).toEqual({ user: 'app', port: '5432' });
    await v.delete('secret/data/app/db');
    expect(await failure(v.read('secret/data/app/db'))).toMatchObject({ status: 404 });
    await v.write('secret/undelete/app/db', { versions: [3] });
    expect(((await v.read('secret/data/app/db')) as Json).data.metadata.version).toBe(3);
    await v.write('secret/delete/app/db', { versions: [1, 2] });
    await v.write('secret/destroy/app/db', { versions: [1] });
    const meta: Json = await v.read('secret/metadata/app/db');
    expect(meta.data.versions['1']).toMatchObject({ destroyed: true });
    expect(meta.data.versions['2'].deletion_time).not.toBe('');
    expect(meta.data.versions['3']).toMatchObject({ destroyed: false, deletion_time: '' });
  });

  it('metadata write/read/update/list/delete, config, subkeys', async () => {
    const v = vault();
    await v.write('secret/data/team/a', { data: { k: { nested: 'x' } } });
    await v.write('secret/data/team/sub/b', { data: { k: 'y' } });
    await v.write('secret/metadata/team/a', { max_versions: 3, custom_metadata: { owner: 'ops' } });
    await v.update('secret/metadata/team/a', { cas_required: true });
    expect(((await v.read('secret/metadata/team/a')) as Json).data).toMatchObject({
      max_versions: 3,
      cas_required: true,
      custom_metadata: { owner: 'ops' },
      current_version: 1,
    });
    expect(((await v.list('secret/metadata/team')) as Json).data.keys).toEqual(['a', 'sub/']);
    expect(((await vault({ noCustomHTTPVerbs: true }).list('secret/metadata/team/sub')) as Json).data.keys).toEqual(['b']);
    expect(((await v.read('secret/subkeys/team/a')) as Json).data.subkeys).toEqual({ k: { nested: null } });
    expect(await failure(v.write('secret/data/team/a', { data: { k: 'z' } }))).toEqual({
      status: 400,
      message: expect.stringMatching(/check-and-set parameter required for this call/),
    });
    await v.delete('secret/metadata/team/a');
    expect(await failure(v.read('secret/metadata/team/a'))).toMatchObject({ status: 404 });
    await v.write('secret/config', { max_versions: 4, delete_version_after: '768h' });
    expect(((await v.read('secret/config')) as Json).data).toEqual({
      max_versions: 4,
      cas_required: false,
      delete_version_after: '768h0m0s',
    });
  });

  it('a check-and-set race: of 10 concurrent writes with cas 1, exactly one lands', async () => {
    const v = vault();
    await v.write('secret/data/race', { data: { n: '0' } });
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => failure(vault().write('secret/data/race', { data: { n: String(i) }, options: { cas: 1 } }))),
    );
    expect(outcomes.filter((o) => o === 'resolved')).toHaveLength(1);
    for (const o of outcomes.filter((x) => x !== 'resolved'))
      expect(o).toEqual({ status: 400, message: expect.stringMatching(/did not match the current version/) });
    expect(((await v.read('secret/metadata/race')) as Json).data.current_version).toBe(2);
  });

  it('max_versions: the write past it removes the oldest version', async () => {
    const v = vault();
    await v.write('secret/metadata/limited', { max_versions: 2 });
    for (const n of ['1', '2', '3']) await v.write('secret/data/limited', { data: { n } });
    const meta: Json = await v.read('secret/metadata/limited');
    expect(Object.keys(meta.data.versions as object).sort()).toEqual(['2', '3']);
    expect(await failure(v.read('secret/data/limited?version=1'))).toMatchObject({ status: 404 });
  });

  it('a token without a policy on the path is refused 403', async () => {
    await call(svc.app, 'PUT', '/v1/sys/policy/kv-team', {
      token: svc.root,
      body: { policy: JSON.stringify({ path: { 'secret/data/team/*': { capabilities: ['read'] } } }) },
    });
    const created: Json = await nodeVault({ endpoint: server.url, token: svc.root }).tokenCreate({ policies: ['kv-team'] });
    const t = vault({ token: created.auth.client_token as string });
    await vault().write('secret/data/team/c', { data: { k: 'v' } });
    expect(((await t.read('secret/data/team/c')) as Json).data.data).toEqual({ k: 'v' });
    expect(await failure(t.write('secret/data/team/c', { data: { k: 'w' } }))).toMatchObject({ status: 403 });
    expect(await failure(t.read('secret/metadata/team/c'))).toMatchObject({ status: 403 });
  });
});

describe('node-vault: KV version 1', () => {
  it('write, read, list, delete', async () => {
    const v = vault();
    await v.write('kv1/app/db', { password: 'p', port: 5432 });
    await v.write('kv1/app/cache/redis', { password: 'r' });
    expect(((await v.read('kv1/app/db')) as Json).data).toEqual({ password: 'p', port: 5432 });
    expect(((await v.list('kv1/app')) as Json).data.keys).toEqual(['cache/', 'db']);
    expect(((await vault({ noCustomHTTPVerbs: true }).list('kv1/app/cache')) as Json).data.keys).toEqual(['redis']);
    await v.delete('kv1/app/db');
    expect(await failure(v.read('kv1/app/db'))).toMatchObject({ status: 404 });
  });
});
