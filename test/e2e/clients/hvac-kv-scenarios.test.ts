/**
 * python3-hvac through every KV endpoint, a check-and-set race of 16 threads, max_versions, KV
 * version 1 (also with strict_http, LIST as GET ?list=true) and a policy on secret/data/team/*.
 * Scenarios: hvac-kv-scenarios.py.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kvEngine } from '../../../lib/kv/engine';
import { listen } from '../../../lib/local/http-server';
import { createTestService } from '../../helpers/service';
import { kvMount } from '../kv/kv-mounts';
import { memo, runHvac, type ClientService, type Json } from './harness';

let cs: ClientService;
const run = memo((scenario: string): Promise<Json> => runHvac(cs, 'hvac-kv-scenarios.py', scenario));
const refused = (cls: string, message?: RegExp) => ({ error: cls, message: message ? expect.stringMatching(message) : expect.any(String) });

beforeAll(async () => {
  const svc = await createTestService({ engines: [kvEngine], mounts: [kvMount('secret', '2'), kvMount('kv1', '1')] });
  const server = await listen(svc.app.fetch, { port: 0 });
  cs = { svc, server, url: server.url, root: svc.root };
});

afterAll(async () => {
  await cs.server.close();
});

describe('python3-hvac: KV version 2', () => {
  it('writes, reads versions, check-and-set, patch (hvac read-then-cas and HTTP PATCH), subkeys', async () => {
    const out = await run('v2');
    expect(out.write).toMatchObject({ version: 1, destroyed: false, deletion_time: '', custom_metadata: null });
    expect(out.write_cas).toBe(2);
    expect(out.cas_mismatch).toEqual(refused('InvalidRequest', /check-and-set parameter did not match the current version/));
    expect(out.read).toMatchObject({ data: { user: 'u', password: 'two' }, metadata: { version: 2 } });
    expect(out.read_v1).toEqual({ user: 'u', password: 'one' });
    expect(out.patch).toBe(3);
    expect(out.http_patch).toBe(4);
    expect(out.after_patch).toEqual({ password: 'two', port: '5432' });
    expect(out.subkeys).toEqual({ password: null, port: null });
  });

  it('soft delete (404 with the metadata), undelete, delete and destroy versions; metadata and its settings; LIST; delete all; config', async () => {
    const out = await run('v2');
    expect(out.deleted_read).toEqual(refused('InvalidPath'));
    expect(out.deleted_raw.status).toBe(404);
    expect(out.deleted_raw.data).toMatchObject({ data: null, metadata: { version: 4, destroyed: false } });
    expect(out.undeleted).toBe(4);
    expect(out.metadata.versions['1']).toMatchObject({ destroyed: true });
    expect(out.metadata.versions['2'].deletion_time).not.toBe('');
    expect(out.metadata).toMatchObject({ current_version: 4, oldest_version: 0, max_versions: 0, cas_required: false });
    expect(out.metadata_after).toMatchObject({
      max_versions: 5,
      cas_required: true,
      delete_version_after: '1h0m0s',
      custom_metadata: { owner: 'ops' },
    });
    expect(out.cas_required).toEqual(refused('InvalidRequest', /check-and-set parameter required for this call/));
    expect(out.list.length).toBe(1);
    expect(out.gone).toEqual(refused('InvalidPath'));
    expect(out.list_after).toEqual(refused('InvalidPath'));
    expect(out.config).toEqual({ max_versions: 7, cas_required: false, delete_version_after: '2h0m0s' });
  });

  it('a check-and-set race of 16 threads: exactly one writes version 2', async () => {
    const out = await run('race');
    const results = out.results as Json[];
    expect(results.filter((r) => 'ok' in r)).toEqual([{ ok: 2 }]);
    expect(results.filter((r) => 'error' in r)).toHaveLength(15);
    for (const r of results.filter((x) => 'error' in x)) expect(r).toEqual(refused('InvalidRequest', /did not match the current version/));
    expect(out.current).toBe(2);
  });

  it('max_versions 3: seven writes keep versions 5, 6, 7', async () => {
    const out = await run('versions');
    expect(out).toMatchObject({ kept: ['5', '6', '7'], oldest: 5, current: 7, kept_read: { n: '5' } });
    expect(out.old_read).toEqual(refused('InvalidPath'));
  });

  it('a token with read on secret/data/team/* reads there only', async () => {
    const out = await run('policy');
    expect(out.read).toEqual({ password: 'p' });
    for (const k of ['write', 'other', 'metadata']) expect(out[k], k).toEqual(refused('Forbidden'));
  });
});

describe('python3-hvac: KV version 1', () => {
  it('create_or_update (POST and PUT), read, list (and with strict_http), delete', async () => {
    const out = await run('v1');
    expect(out.write).toEqual({ ok: { status: 204, text: '' } });
    expect(out.put).toEqual({ ok: { status: 204, text: '' } });
    expect(out.read).toEqual({ password: 'p', port: 5432 });
    expect(out.list).toEqual(['cache/', 'db']);
    expect(out.strict_list).toEqual(['cache/', 'db']);
    expect(out.delete).toEqual({ ok: { status: 204, text: '' } });
    expect(out.after_delete).toEqual(refused('InvalidPath'));
  });
});
