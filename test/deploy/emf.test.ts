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
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, buildFunctions, initialisedTable, RUNNER_CONTEXT } from '../../bench/bundle';
import { statusClass } from '../../lib/metrics/requests';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded';
import { httpEvent, scheduledEvent } from '../helpers/apigw';
import { emfLines, emfViolations } from '../helpers/emf-spec';

/** Imports the bundle, invokes it with each event of LK_EVENTS in turn, writes the answers to LK_RESULTS. */
const RUNNER = `
import { writeFileSync } from 'node:fs';
const mod = await import(process.argv[2]);
${RUNNER_CONTEXT}
const results = [];
for (const event of JSON.parse(process.env.LK_EVENTS)) results.push(await mod.handler(event, context));
writeFileSync(process.env.LK_RESULTS, JSON.stringify(results));
process.exit(0);
`;

interface Reply {
  statusCode: number;
  body: string;
}
type Doc = Record<string, unknown> & { _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] } };

let dir: string;
let dynamo: EmbeddedDynamo;
let env: NodeJS.ProcessEnv;
let root: string;
let runner: string;
const files = new Map<string, string>();
let instance = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'latchkey-emf-'));
  dynamo = await startEmbeddedDynamo();
  ({ env, rootToken: root } = await initialisedTable(dir, dynamo.endpoint));
  runner = join(dir, 'runner.mjs');
  await writeFile(runner, RUNNER);
  const defs = buildFunctions();
  for (const name of ['sys', 'pki', 'catalog', 'sweeper']) files.set(name, await bundle(name, defs[name]!, join(dir, 'out')));
}, 120_000);

afterAll(async () => {
  await dynamo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** One new instance of the packaged function `name` (a fresh node), invoked with `events` in turn: its answers and its EMF documents. */
async function instanceOf(name: string, events: unknown[]): Promise<{ replies: Reply[]; docs: Doc[]; lines: string[] }> {
  const results = join(dir, `${name}-${++instance}.json`);
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    LOG_LEVEL: 'info',
    AWS_LAMBDA_FUNCTION_NAME: `latchkey-dev-${name}`,
    LK_EVENTS: JSON.stringify(events),
    LK_RESULTS: results,
  };
  delete childEnv.AUDIT_DEVICES;
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [runner, pathToFileURL(files.get(name)!).href], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${name} exited ${code}: ${err}`))));
  });
  const emf = emfLines(stdout);
  return {
    replies: JSON.parse(await readFile(results, 'utf8')) as Reply[],
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
