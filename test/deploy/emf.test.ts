/**
 * CloudWatch EMF from the packaged functions (issue 29, "Done when" bullet 2): sys, pki, the
 * catalog and the sweeper, each bundled with serverless.yml's esbuild settings (bench/bundle.ts,
 * infra/esbuild.cjs, as test/e2e/audit/lambda-stdout.test.ts does), are imported in a fresh node
 * per instance with a Lambda's environment and invoked several times with API Gateway v2 events
 * (scheduled events for the sweeper). Every EMF line of their real stdout is checked against the
 * EMF specification (test/helpers/emf-spec.ts); the cold start is counted exactly once per
 * instance (two pki instances: twice); each invocation flushes its own requests, which add up to
 * the requests sent, by status class; no token, role name, serial, common name or key reaches an
 * EMF line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusClass } from '../../lib/metrics/requests';
import { httpEvent, scheduledEvent } from '../helpers/apigw';
import { emfLines, emfViolations } from '../helpers/emf-spec';
import { packaged, type Packaged } from '../helpers/packaged';

interface Reply {
  statusCode: number;
  body: string;
}
type Doc = Record<string, unknown> & { _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] } };

let fns: Packaged;
let root: string;

beforeAll(async () => {
  fns = await packaged('latchkey-emf-');
  root = fns.root;
  await fns.prepare(['sys', 'pki', 'catalog', 'sweeper']);
}, 120_000);

afterAll(async () => {
  await fns?.close();
});

/** One new instance of the packaged function `name` (a fresh node), invoked with `events` in turn: its answers and its EMF documents. */
async function instanceOf(name: string, events: unknown[]): Promise<{ replies: Reply[]; docs: Doc[]; lines: string[] }> {
  const { replies, stdout } = await fns.invoke<Reply>(name, events);
  const emf = emfLines(stdout);
  return {
    replies,
    docs: emf.map((e) => e.doc as Doc),
    lines: emf.map((e) => e.line),
  };
}

/** Every document valid, of this function, with the rollup dimension set; the sum of `metric` over all of them. */
function expectValid(docs: Doc[], fn: string): void {
  expect(docs.length, `${fn}: some EMF`).toBeGreaterThan(0);
  expect(docs.flatMap((d, i) => emfViolations(d).map((v) => `${fn} document ${i}: ${v}`))).toEqual([]);
  for (const d of docs) {
    expect(d.function).toBe(fn);
    expect(d._aws.CloudWatchMetrics).toHaveLength(1);
    const [own, rollup] = d._aws.CloudWatchMetrics[0]!.Dimensions;
    expect(own![0]).toBe('function');
    expect(rollup).toEqual([]);
  }
}
const valuesOf = (docs: Doc[], metric: string) => docs.filter((d) => metric in d).map((d) => d[metric] as number);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** The Requests in EMF by status class, and the answers' own classes. */
function expectRequestsCounted(docs: Doc[], replies: Reply[]): void {
  // One flush per invocation: each request is its own document's Requests = 1, never a later sum.
  expect(valuesOf(docs, 'Requests')).toEqual(replies.map(() => 1));
  const inEmf: Record<string, number> = {};
  for (const d of docs.filter((d) => 'Requests' in d))
    inEmf[d.status_class as string] = (inEmf[d.status_class as string] ?? 0) + (d.Requests as number);
  const sent: Record<string, number> = {};
  for (const r of replies) sent[statusClass(r.statusCode)] = (sent[statusClass(r.statusCode)] ?? 0) + 1;
  expect(inEmf).toEqual(sent);
  expect(valuesOf(docs, 'RequestDuration').flat()).toHaveLength(replies.length);
}

function expectNoneOf(lines: string[], secrets: string[]): void {
  const text = lines.join('\n');
  for (const s of secrets) expect(text.includes(s), `EMF names ${s.slice(0, 12)}…`).toBe(false);
}

describe('EMF from the packaged functions', () => {
  // A function: the root token exists once beforeAll has run.
  const auth = () => ({ headers: { 'x-vault-token': root } });
  const ROLE = 'emf-secret-role';

  it('pki: two instances, the cold start once each, one flush per request, no role name, serial or key', async () => {
    const first = await instanceOf('pki', [
      httpEvent('POST', '/v1/pki/root/generate/internal', { ...auth(), body: { common_name: 'EMF Root', key_type: 'ec' } }),
      httpEvent('POST', `/v1/pki/roles/${ROLE}`, {
        ...auth(),
        body: { allowed_domains: 'emf.example', allow_subdomains: true, key_type: 'ec' },
      }),
      httpEvent('POST', `/v1/pki/issue/${ROLE}`, { ...auth(), body: { common_name: 'a.emf.example' } }),
      httpEvent('POST', `/v1/pki/issue/${ROLE}`, { ...auth(), body: { common_name: 'b.emf.example' } }),
      httpEvent('POST', `/v1/pki/issue/${ROLE}`, { body: { common_name: 'c.emf.example' } }),
    ]);
    expect(first.replies.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 403]);
    const issued = first.replies
      .slice(2, 4)
      .map((r) => (JSON.parse(r.body) as { data: { serial_number: string; private_key: string } }).data);
    const serials = issued.map((d) => d.serial_number);
    const second = await instanceOf('pki', [
      httpEvent('GET', `/v1/pki/cert/${serials[0]}`),
      httpEvent('POST', '/v1/pki/revoke', { ...auth(), body: { serial_number: serials[1] } }),
      httpEvent('GET', '/v1/pki/ca/pem'),
      httpEvent('GET', '/v1/pki/no/such/path'),
    ]);
    expect(second.replies.map((r) => r.statusCode)).toEqual([200, 200, 200, 404]);

    for (const { docs, replies } of [first, second]) {
      expectValid(docs, 'pki');
      expect(valuesOf(docs, 'ColdStart')).toEqual([1]);
      expectRequestsCounted(docs, replies);
    }
    expect(sum([...valuesOf(first.docs, 'ColdStart'), ...valuesOf(second.docs, 'ColdStart')])).toBe(2);
    // Dimensions are the mount, the operation and the status class: never the path asked.
    expect(new Set(first.docs.filter((d) => 'Requests' in d).map((d) => d.mount))).toEqual(new Set(['pki']));
    const keyLines = issued.flatMap((d) => d.private_key.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----')));
    const serialForms = serials.flatMap((s) => [s, s.replace(/[:-]/g, '')]);
    expectNoneOf([...first.lines, ...second.lines], [root, ROLE, 'emf.example', 'EMF Root', ...serialForms, ...keyLines]);
  });

  it('sys: the cold start once, every request counted, no token or accessor', async () => {
    const { replies, docs, lines } = await instanceOf('sys', [
      httpEvent('GET', '/v1/sys/health'),
      httpEvent('POST', '/v1/auth/token/create', { ...auth(), body: { policies: ['default'], ttl: '1h' } }),
      httpEvent('GET', '/v1/auth/token/lookup-self', auth()),
      httpEvent('GET', '/v1/auth/token/lookup-self', { headers: { 'x-vault-token': 'hvs.not-a-token' } }),
      httpEvent('GET', '/v1/sys/health'),
    ]);
    expect(replies.map((r) => r.statusCode)).toEqual([200, 200, 200, 403, 200]);
    expectValid(docs, 'sys');
    expect(valuesOf(docs, 'ColdStart')).toEqual([1]);
    expectRequestsCounted(docs, replies);
    const created = (JSON.parse(replies[1]!.body) as { auth: { client_token: string; accessor: string } }).auth;
    expectNoneOf(lines, [root, created.client_token, created.accessor, 'hvs.not-a-token', 'lookup-self']);
  });

  it('catalog: the cold start once, every request counted, no key name, value or token', async () => {
    const consul = { 'x-consul-token': root };
    const { replies, docs, lines } = await instanceOf('catalog', [
      httpEvent('PUT', '/v1/kv/emf/secret-key-name', { headers: consul, body: 'secret-kv-value' }),
      httpEvent('GET', '/v1/kv/emf/secret-key-name', { headers: consul }),
      httpEvent('GET', '/v1/kv/emf/secret-key-name'),
    ]);
    expect(replies.map((r) => r.statusCode)).toEqual([200, 200, 403]);
    expectValid(docs, 'catalog');
    expect(valuesOf(docs, 'ColdStart')).toEqual([1]);
    expectRequestsCounted(docs, replies);
    expectNoneOf(lines, [root, 'secret-key-name', 'secret-kv-value', Buffer.from('secret-kv-value').toString('base64')]);
  });

  it('sweeper: scheduled runs flush too, the cold start once across three runs, no requests', async () => {
    const { docs } = await instanceOf('sweeper', [scheduledEvent(), scheduledEvent(), scheduledEvent()]);
    expectValid(docs, 'sweeper');
    expect(valuesOf(docs, 'ColdStart')).toEqual([1]);
    expect(valuesOf(docs, 'Requests')).toEqual([]);
  });
});
