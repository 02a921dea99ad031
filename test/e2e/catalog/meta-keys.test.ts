/**
 * Metadata keys that are also names of JavaScript object properties (`__proto__`,
 * `constructor`, `toString`, `hasOwnProperty`) are ordinary keys: kept in NodeMeta,
 * TaggedAddresses, Service.Meta and Service.TaggedAddresses, stored and read back, and never
 * touch any object's prototype.
 */
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { createAdaptorServer } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cat, catalogService, type CatalogService } from './helpers';

let svc: CatalogService;
beforeAll(async () => {
  svc = await catalogService();
});
afterAll(() => {
  // Nothing above may have reached Object.prototype.
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const strings = (prefix: string) => Object.fromEntries(KEYS.map((k) => [k, `${prefix}-${k}`]));
const addresses = () => Object.fromEntries(KEYS.map((k, i) => [k, { Address: `10.9.0.${i + 1}`, Port: 9000 + i }]));

/** The JSON text itself: an object literal with `__proto__` would set a prototype, not a key. */
function registrationText(node: string, service: string): string {
  const meta = JSON.stringify(strings('meta'));
  const tagged = JSON.stringify(Object.fromEntries(KEYS.map((k, i) => [k, `10.8.0.${i + 1}`])));
  const svcMeta = JSON.stringify(strings('svc'));
  return `{"Node":"${node}","Address":"10.0.0.5","NodeMeta":${meta},"TaggedAddresses":${tagged},"Service":{"Service":"${service}","Port":80,"Meta":${svcMeta},"TaggedAddresses":${JSON.stringify(addresses())}}}`;
}

const ownKeys = (o: unknown) => Object.keys(o as object).sort();
const parse = (text: string) => JSON.parse(text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('catalog metadata keys named like object properties', () => {
  it('are kept through register, storage and every read shape', async () => {
    const text = registrationText('meta-node', 'meta-svc');
    expect(text).toContain('"__proto__":"meta-__proto__"');
    const put = await cat(svc, 'PUT', '/v1/catalog/register', { raw: text, headers: { 'content-type': 'application/json' } });
    expect(put).toMatchObject({ status: 200, text: 'true' });

    const node = parse((await cat(svc, 'GET', '/v1/catalog/node/meta-node')).text);
    expect(ownKeys(node.Node.Meta)).toEqual([...KEYS].sort());
    expect(Object.getOwnPropertyDescriptor(node.Node.Meta, '__proto__')?.value).toBe('meta-__proto__');
    expect(Object.getOwnPropertyDescriptor(node.Node.TaggedAddresses, '__proto__')?.value).toBe('10.8.0.1');
    expect(node.Node.Meta.constructor).toBe('meta-constructor');
    const svcEntry = node.Services['meta-svc'];
    expect(ownKeys(svcEntry.Meta)).toEqual([...KEYS].sort());
    expect(Object.getOwnPropertyDescriptor(svcEntry.TaggedAddresses, '__proto__')?.value).toEqual({ Address: '10.9.0.1', Port: 9000 });

    const [instance] = parse((await cat(svc, 'GET', '/v1/catalog/service/meta-svc')).text);
    expect(ownKeys(instance.NodeMeta)).toEqual([...KEYS].sort());
    expect(ownKeys(instance.ServiceMeta)).toEqual([...KEYS].sort());
    expect(Object.getOwnPropertyDescriptor(instance.ServiceMeta, '__proto__')?.value).toBe('svc-__proto__');
    expect(ownKeys(instance.ServiceTaggedAddresses)).toEqual([...KEYS].sort());
    expect(instance.ServiceTaggedAddresses.toString).toEqual({ Address: '10.9.0.3', Port: 9002 });

    const nodes = parse((await cat(svc, 'GET', '/v1/catalog/nodes')).text);
    expect(ownKeys(nodes.find((n: { Node: string }) => n.Node === 'meta-node').Meta)).toEqual([...KEYS].sort());
  });

  it('a repeated registration with the same keys changes nothing (no new index)', async () => {
    const text = registrationText('meta-node2', 'meta-svc2');
    await cat(svc, 'PUT', '/v1/catalog/register', { raw: text });
    const first = await cat(svc, 'GET', '/v1/catalog/node/meta-node2');
    await cat(svc, 'PUT', '/v1/catalog/register', { raw: text });
    const second = await cat(svc, 'GET', '/v1/catalog/node/meta-node2');
    expect(parse(second.text).Node.ModifyIndex).toBe(parse(first.text).Node.ModifyIndex);
  });

  it('a meta value that is an object, even under __proto__, is a 400 naming the field', async () => {
    const r = await cat(svc, 'PUT', '/v1/catalog/register', {
      raw: '{"Node":"bad","Address":"10.0.0.6","NodeMeta":{"__proto__":{"polluted":"yes"}}}',
    });
    expect(r.status).toBe(400);
    expect(r.text).toContain('NodeMeta.__proto__');
  });
});

const PY = `
import json, sys
import consul
host, port = sys.argv[1], int(sys.argv[2])
c = consul.Consul(host=host, port=port)
keys = ['__proto__', 'constructor', 'toString']
meta = {k: 'py-' + k for k in keys}
tagged = {k: {'Address': '10.7.0.1', 'Port': 7000} for k in keys}
ok = c.catalog.register('py-meta-node', '10.7.0.9', service={'Service': 'py-meta', 'Meta': meta, 'TaggedAddresses': tagged})
s = c.catalog.service('py-meta')[1][0]
print(json.dumps({'ok': ok, 'meta': s['ServiceMeta'], 'tagged': sorted(s['ServiceTaggedAddresses'].keys())}))
`;

describe('python3-consul: service metadata keys named like object properties', () => {
  it('registers them and reads them back', async () => {
    const server = createAdaptorServer({ fetch: svc.catalog.fetch });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
    try {
      const { port } = server.address() as AddressInfo;
      const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', PY, '127.0.0.1', String(port)], { timeout: 60_000 });
      const out = JSON.parse(stdout) as { ok: boolean; meta: Record<string, string>; tagged: string[] };
      expect(out.ok).toBe(true);
      expect(Object.entries(out.meta).sort()).toEqual(
        [
          ['__proto__', 'py-__proto__'],
          ['constructor', 'py-constructor'],
          ['toString', 'py-toString'],
        ].sort(),
      );
      expect(out.tagged).toEqual(['__proto__', 'constructor', 'toString']);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
