/**
 * Issue 12 item 12: every name a client chooses (service, node, tag, KV key, meta key) is data,
 * whatever it is called. The whole Object.prototype vocabulary is registered, stored and read
 * back through every read shape; no answer is a 500 and nothing reaches Object.prototype.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cat, catalogService, type CatalogService } from './helpers';

const WORDS = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])].sort();
const parse = (text: string) => JSON.parse(text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
const ownValue = (o: unknown, k: string) => Object.getOwnPropertyDescriptor(o, k)?.value as unknown;

let svc: CatalogService;
beforeAll(async () => {
  svc = await catalogService();
  for (const w of WORDS) {
    // JSON text, so `__proto__` is a key and not a prototype.
    const meta = `{${WORDS.map((k) => `${JSON.stringify(k)}:${JSON.stringify(`m-${k}`)}`).join(',')}}`;
    const body = `{"Node":${JSON.stringify(w)},"Address":"10.9.9.9","NodeMeta":${meta},"Service":{"Service":${JSON.stringify(w)},"Tags":${JSON.stringify(WORDS)},"Meta":${meta},"Port":80},"Check":{"CheckID":${JSON.stringify(`c-${w}`)},"Name":${JSON.stringify(w)},"Status":"passing","ServiceID":${JSON.stringify(w)}}}`;
    const r = await cat(svc, 'PUT', '/v1/catalog/register', { raw: body });
    expect(r, w).toMatchObject({ status: 200, text: 'true' });
  }
});
afterAll(() => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(WORDS);
});

describe('the Object.prototype vocabulary as catalog names', () => {
  it('catalog/services lists every one as a service with every one as a tag', async () => {
    const r = await cat(svc, 'GET', '/v1/catalog/services');
    expect(r.status).toBe(200);
    const out = parse(r.text);
    expect(Object.keys(out).sort()).toEqual(WORDS);
    for (const w of WORDS) expect(ownValue(out, w), w).toEqual(WORDS);
  });

  it('catalog/service/<name>, catalog/node/<name>, catalog/nodes and agent/members read each back', async () => {
    for (const w of WORDS) {
      const inst = await cat(svc, 'GET', `/v1/catalog/service/${encodeURIComponent(w)}`);
      expect(inst.status, w).toBe(200);
      const [s] = parse(inst.text);
      expect([s.Node, s.ServiceName, ownValue(s.ServiceMeta, w), ownValue(s.NodeMeta, w)]).toEqual([w, w, `m-${w}`, `m-${w}`]);
      const tagged = await cat(svc, 'GET', `/v1/catalog/service/${encodeURIComponent(w)}?tag=${encodeURIComponent(w)}`);
      expect(parse(tagged.text), w).toHaveLength(1);
      const node = await cat(svc, 'GET', `/v1/catalog/node/${encodeURIComponent(w)}`);
      expect(node.status, w).toBe(200);
      expect(Object.keys(parse(node.text).Services), w).toEqual([w]);
    }
    const nodes = parse((await cat(svc, 'GET', '/v1/catalog/nodes')).text);
    expect(nodes.map((n: { Node: string }) => n.Node).sort()).toEqual(WORDS);
    const members = parse((await cat(svc, 'GET', '/v1/agent/members')).text);
    expect(members.map((n: { Name: string }) => n.Name).sort()).toEqual(WORDS);
  });

  it('health/service, health/node, health/checks and ?filter on meta keys read each back', async () => {
    for (const w of WORDS) {
      const [entry] = parse((await cat(svc, 'GET', `/v1/health/service/${encodeURIComponent(w)}?passing`)).text);
      expect([entry.Node.Node, entry.Service.Service, entry.Checks[0].ServiceName], w).toEqual([w, w, w]);
      expect(parse((await cat(svc, 'GET', `/v1/health/node/${encodeURIComponent(w)}`)).text)[0].Name, w).toBe(w);
      expect(parse((await cat(svc, 'GET', `/v1/health/checks/${encodeURIComponent(w)}`)).text)[0].Node, w).toBe(w);
      const filter = encodeURIComponent(
        `Meta[${JSON.stringify(w)}] == ${JSON.stringify(`m-${w}`)} and ${JSON.stringify(w)} in Meta and Node == ${JSON.stringify(w)}`,
      );
      const nodes = await cat(svc, 'GET', `/v1/catalog/nodes?filter=${filter}&node-meta=${encodeURIComponent(`${w}:m-${w}`)}`);
      expect(
        parse(nodes.text).map((n: { Node: string }) => n.Node),
        w,
      ).toEqual([w]);
    }
    expect(parse((await cat(svc, 'GET', '/v1/health/state/passing')).text)).toHaveLength(WORDS.length);
  });

  it('KV keys: put, get, recurse, keys, cas, delete', async () => {
    for (const w of WORDS) {
      for (const key of [w, `proto/${w}`]) {
        expect((await cat(svc, 'PUT', `/v1/kv/${encodeURIComponent(key)}?flags=3`, { raw: `v-${w}` })).text, key).toBe('true');
        const got = await cat(svc, 'GET', `/v1/kv/${encodeURIComponent(key)}?raw`);
        expect([got.status, got.text], key).toEqual([200, `v-${w}`]);
      }
    }
    const rec = parse((await cat(svc, 'GET', '/v1/kv/proto/?recurse')).text);
    expect(rec.map((e: { Key: string }) => e.Key.slice(6)).sort()).toEqual(WORDS);
    const keys = parse((await cat(svc, 'GET', '/v1/kv/?keys&separator=/')).text);
    expect(keys.filter((k: string) => k !== 'proto/').sort()).toEqual(WORDS);
    for (const w of WORDS) expect((await cat(svc, 'DELETE', `/v1/kv/${encodeURIComponent(w)}`)).text, w).toBe('true');
    expect((await cat(svc, 'DELETE', '/v1/kv/proto?recurse')).text).toBe('true');
    expect((await cat(svc, 'GET', '/v1/kv/?keys')).text).toBe('[]');
  });

  it('deregistering each leaves an empty catalog', async () => {
    for (const w of WORDS) expect((await cat(svc, 'PUT', '/v1/catalog/deregister', { body: { Node: w } })).status, w).toBe(200);
    expect((await cat(svc, 'GET', '/v1/catalog/services')).text).toBe('{}');
  });
});
