/**
 * An existing client of the reference catalog API, unmodified except for its address: Debian's
 * python3-consul (run by /usr/bin/python3) against the local server over real HTTP.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { catalogService, tokenFor } from './helpers';

let svc: LocalService;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'latchkey-catalog-py-'));
  svc = await startLocal({ dataDir, port: 0 });
});
afterAll(async () => {
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const SCRIPT = `
import json, sys
import consul
host, port = sys.argv[1], int(sys.argv[2])
c = consul.Consul(host=host, port=port)
out = {}
out['put'] = c.kv.put('py/greeting', 'hello from python')
out['put_flags'] = c.kv.put('py/flagged', 'x', flags=7)
index, item = c.kv.get('py/greeting')
out['index'] = index
out['value'] = item['Value'].decode()
out['flags'] = c.kv.get('py/flagged')[1]['Flags']
index, items = c.kv.get('py/', recurse=True)
out['recurse'] = [i['Key'] for i in items]
out['keys'] = c.kv.get('py/', keys=True)[1]
out['cas_ok'] = c.kv.put('py/greeting', 'v2', cas=item['ModifyIndex'])
out['cas_stale'] = c.kv.put('py/greeting', 'v3', cas=item['ModifyIndex'])
out['delete'] = c.kv.delete('py/greeting')
out['after_delete'] = c.kv.get('py/greeting')[1]
out['register'] = c.catalog.register('py-node', '10.3.0.1', service={'Service': 'py-web', 'ID': 'py-web-1', 'Tags': ['blue'], 'Port': 8000})
out['services'] = c.catalog.services()[1]
out['service'] = [(s['Node'], s['ServiceID'], s['ServicePort']) for s in c.catalog.service('py-web')[1]]
out['nodes'] = [n['Node'] for n in c.catalog.nodes()[1]]
out['node'] = sorted(c.catalog.node('py-node')[1]['Services'].keys())
out['members'] = [m['Name'] for m in c.agent.members()]
out['deregister'] = c.catalog.deregister('py-node')
out['services_after'] = c.catalog.services()[1]
print(json.dumps(out))
`;

describe('python3-consul against the catalog', () => {
  it('puts, gets, lists, cas-writes and deletes keys, and registers and lists services', async () => {
    const { port, hostname } = new URL(svc.url);
    const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', SCRIPT, hostname, port], { timeout: 60_000 });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      put: true,
      put_flags: true,
      value: 'hello from python',
      flags: 7,
      recurse: ['py/flagged', 'py/greeting'],
      keys: ['py/flagged', 'py/greeting'],
      cas_ok: true,
      cas_stale: false,
      delete: true,
      after_delete: null,
      register: true,
      services: { 'py-web': ['blue'] },
      service: [['py-node', 'py-web-1', 8000]],
      nodes: ['py-node'],
      node: ['py-web-1'],
      members: ['py-node'],
      deregister: true,
      services_after: {},
    });
    expect(Number(out.index)).toBeGreaterThan(0);
  });
});

const WATCH_SCRIPT = `
import json, sys, threading, time
import consul
host, port = sys.argv[1], int(sys.argv[2])
c = consul.Consul(host=host, port=port)
c.kv.put('pyw/watched', 'before')
index, item = c.kv.get('pyw/watched')
out = {'index': index, 'modify_index': item['ModifyIndex']}
def other():
    time.sleep(0.3)
    c.kv.put('pyw/other', 'x')
    time.sleep(0.5)
    c.kv.put('pyw/watched', 'after')
threading.Thread(target=other).start()
started = time.time()
new_index, new_item = c.kv.get('pyw/watched', index=index, wait='10s')
out['waited'] = time.time() - started
out['new_index'] = new_index
out['new_value'] = new_item['Value'].decode()
out['new_modify_index'] = new_item['ModifyIndex']
print(json.dumps(out))
`;

describe('python3-consul watching a key', () => {
  it("answers a key's ModifyIndex as its index and wakes a blocking get when that key changes, not another", async () => {
    const { port, hostname } = new URL(svc.url);
    const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', WATCH_SCRIPT, hostname, port], { timeout: 60_000 });
    const out = JSON.parse(stdout) as {
      index: string;
      modify_index: number;
      waited: number;
      new_index: string;
      new_value: string;
      new_modify_index: number;
    };
    expect(Number(out.index)).toBe(out.modify_index);
    expect(out.new_value).toBe('after');
    expect(Number(out.new_index)).toBe(out.new_modify_index);
    expect(out.new_modify_index).toBeGreaterThan(out.modify_index);
  });
});

const ACL_SCRIPT = `
import json, sys
import consul
host, port, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
c = consul.Consul(host=host, port=port, token=token)
out = {'put': c.kv.put('team/a', 'allowed'), 'get': c.kv.get('team/a')[1]['Value'].decode()}
try:
    c.kv.put('other/b', 'refused')
    out['denied'] = None
except consul.ACLPermissionDenied as e:
    out['denied'] = str(e)
out['services'] = c.catalog.services()[1]
print(json.dumps(out))
`;

describe('python3-consul with ACLs on', () => {
  it('sends its token as ?token= and is held to its policy', async () => {
    const acl = await catalogService({ acl: { enabled: true, default_policy: 'deny' } });
    const token = await tokenFor(acl, 'py-team', { 'catalog/kv/team/*': ['create', 'update', 'read'] });
    const server = createAdaptorServer({ fetch: acl.catalog.fetch });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
    try {
      const { port } = server.address() as AddressInfo;
      const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', ACL_SCRIPT, '127.0.0.1', String(port), token], {
        timeout: 60_000,
      });
      expect(JSON.parse(stdout)).toEqual({ put: true, get: 'allowed', denied: 'Permission denied', services: {} });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
