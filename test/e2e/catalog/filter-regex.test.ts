/**
 * Issue 23 item 8: one `?filter` with a catastrophic regular expression froze the whole service.
 * A backtracking `matches` held the one event loop (a 1 s timeout cut it off with a 400, but held
 * the thread that second), so unrelated sys requests waited behind it. Matching is RE2 now
 * (linear in the value): the classic patterns over long non-matching values answer with the
 * right result, however many run at once, and other requests are answered beside them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/service';
import { cat, catalogService, type CatalogService } from './helpers';

let svc: CatalogService;
const j = (r: { text: string }) => JSON.parse(r.text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
const q = encodeURIComponent;

// Each value takes a backtracking engine about 2^n steps to refuse (n ≥ 160): never, in practice.
const META = {
  a: `${'a'.repeat(400)}!`,
  x: 'x'.repeat(500),
  w: `${'ab '.repeat(160)}!`,
};
const CATASTROPHIC: [string, string][] = [
  ['a', '^(a|a)*$'],
  ['a', '^(a+)+$'],
  ['x', '(x+x+)+y'],
  ['w', '^(\\w+\\s?)*$'],
];

beforeAll(async () => {
  svc = await catalogService();
  for (const [Node, meta] of [
    ['slow', META],
    ['plain', { a: 'aaa', x: 'xxy', w: 'ab cd' }],
  ] as const) {
    const r = await cat(svc, 'PUT', '/v1/catalog/register', {
      body: { Node, Address: '10.2.2.2', NodeMeta: meta, Service: { Service: 'web', Port: 80, Meta: meta } },
    });
    expect(r.status).toBe(200);
  }
});

describe('catastrophic regular expressions in ?filter', () => {
  it('answer with the right result, all at once, while sys and catalog reads are answered beside them', async () => {
    // Raw (backquoted) strings, so a pattern's backslashes reach the engine as written.
    const filtered = CATASTROPHIC.flatMap(([key, re]) => [
      cat(svc, 'GET', `/v1/catalog/nodes?filter=${q(`Meta.${key} matches \`${re}\``)}`),
      cat(svc, 'GET', `/v1/catalog/service/web?filter=${q(`ServiceMeta.${key} not matches \`${re}\``)}`),
      cat(svc, 'GET', `/v1/health/service/web?filter=${q(`Service.Meta.${key} matches \`${re}\` or Node.Meta.${key} matches \`${re}\``)}`),
    ]);
    // Sent while the filtered requests are in flight, through the same process.
    const health = call(svc.app, 'GET', '/v1/sys/health');
    const nodes = cat(svc, 'GET', '/v1/catalog/nodes');

    expect((await health).status).toBe(200);
    expect(j(await nodes).map((n: { Node: string }) => n.Node)).toEqual(['plain', 'slow']);
    const answers = await Promise.all(filtered);
    for (const [i, r] of answers.entries()) {
      expect(r.status, r.text).toBe(200);
      const names = j(r).map((n: { Node: string | { Node: string } }) => (typeof n.Node === 'string' ? n.Node : n.Node.Node));
      // `matches` keeps only the short value that fits; `not matches` keeps only the long one.
      expect(names).toEqual(i % 3 === 1 ? ['slow'] : ['plain']);
    }
  });

  it('answers 400 naming what RE2 cannot compile, never a 500', async () => {
    for (const [re, why] of [
      ['(a)\\\\1', 'back-references are not RE2 syntax'],
      ['a(?=b)', 'lookaround is not RE2 syntax'],
      ['(?<!a)b', 'lookaround is not RE2 syntax'],
      ['a{1001}', 'invalid repeat count'],
      ['.{0,1000}.{0,1000}', 'is too large'],
    ] as const) {
      const r = await cat(svc, 'GET', `/v1/catalog/nodes?filter=${q(`Meta.a matches "${re}"`)}`);
      expect(r, re).toMatchObject({ status: 400, text: expect.stringContaining(why) });
    }
  });
});
