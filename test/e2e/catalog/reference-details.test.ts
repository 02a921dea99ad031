/**
 * Issue 12 item 14: details where the catalog answered other than the reference: DELETE with
 * `?cas` on a missing key, 64-bit flags, POST on kv, `agent/members?wan=1`, and the unserved
 * catalog-family paths (session/, event/) answering 404 with an index header.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { cat, catalogService, type CatalogService } from './helpers';

const MAX_U64 = '18446744073709551615';
let svc: CatalogService;
beforeAll(async () => {
  svc = await catalogService();
});

describe('kv details', () => {
  it('DELETE of a missing key with ?cas answers true', async () => {
    expect((await cat(svc, 'DELETE', '/v1/kv/never-written?cas=5')).text).toBe('true');
    expect((await cat(svc, 'DELETE', '/v1/kv/never-written?cas=0')).text).toBe('true');
    await cat(svc, 'PUT', '/v1/kv/written', { raw: 'x' });
    expect((await cat(svc, 'DELETE', '/v1/kv/written?cas=999999')).text).toBe('false');
  });

  it('flags cover 0..2^64-1, answered as exact JSON numbers', async () => {
    for (const flags of ['0', '9007199254740993', MAX_U64]) {
      expect((await cat(svc, 'PUT', `/v1/kv/flagged?flags=${flags}`, { raw: 'v' })).text).toBe('true');
      const got = await cat(svc, 'GET', '/v1/kv/flagged');
      expect(got.text).toContain(`"Flags":${flags},`);
      expect((await cat(svc, 'GET', '/v1/kv/flagged?pretty')).text).toContain(`"Flags": ${flags},`);
    }
    for (const bad of ['18446744073709551616', '-1', '1.5', 'x']) {
      const r = await cat(svc, 'PUT', `/v1/kv/flagged?flags=${bad}`, { raw: 'v' });
      expect([r.status, r.text]).toEqual([400, 'Invalid flags: expected an unsigned integer below 2^64']);
    }
  });

  it('POST on kv is 405, as the reference answers; PUT writes', async () => {
    for (const path of ['/v1/kv/', '/v1/kv/posted']) {
      const r = await cat(svc, 'POST', path, { raw: 'x' });
      expect([r.status, r.text]).toEqual([405, 'method POST not allowed']);
      expect(r.headers.get('x-consul-index')).toMatch(/^[1-9]\d*$/);
    }
    expect((await cat(svc, 'GET', '/v1/kv/posted')).status).toBe(404);
  });
});

describe('agent/members?wan=1', () => {
  it('answers the WAN members: <node>.<dc> at the WAN address and port', async () => {
    await cat(svc, 'PUT', '/v1/catalog/register', { body: { Node: 'w1', Address: '10.0.0.1', TaggedAddresses: { wan: '198.51.100.1' } } });
    const lan = JSON.parse((await cat(svc, 'GET', '/v1/agent/members')).text)[0];
    expect(lan).toMatchObject({ Name: 'w1', Addr: '10.0.0.1', Port: 8301 });
    const wan = JSON.parse((await cat(svc, 'GET', '/v1/agent/members?wan=1')).text)[0];
    expect(wan).toMatchObject({ Name: 'w1.dc1', Addr: '198.51.100.1', Port: 8302, Tags: { dc: 'dc1' } });
  });
});

let local: LocalService;
let dataDir: string;
describe('python3-consul on these details', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'latchkey-catalog-details-'));
    local = await startLocal({ dataDir, port: 0 });
  });
  afterAll(async () => {
    await local?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads 64-bit flags, WAN members, and gets its clean answers from session/ and event/', async () => {
    const script = `
import json, sys
import consul
c = consul.Consul(host=sys.argv[1], port=int(sys.argv[2]))
out = {}
out['put'] = c.kv.put('big', 'v', flags=${MAX_U64})
out['flags'] = str(c.kv.get('big')[1]['Flags'])
out['cas_missing'] = c.kv.delete('nothing-here', cas=3)
c.catalog.register('py-w', '10.0.0.2', dc=None)
out['wan'] = [m['Name'] for m in c.agent.members(wan=True)]
out['sessions'] = c.session.list()[1]
out['events'] = c.event.list()[1]
try:
    c.session.info('x')
    out['info'] = 'answered'
except consul.NotFound:
    out['info'] = 'NotFound'
print(json.dumps(out))
`;
    const { hostname, port } = new URL(local.url);
    const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', script, hostname, port], { timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({
      put: true,
      flags: MAX_U64,
      cas_missing: true,
      wan: ['py-w.dc1'],
      sessions: null,
      events: null,
      info: 'answered',
    });
  });
});
