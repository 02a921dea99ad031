/**
 * The project's fuzzer: hostile requests, drawn from the service's own OpenAPI document, against
 * a running instance. Only for a throwaway instance: with a broad token it writes, deletes and
 * revokes freely. test/tools/fuzz-local.ts (`npm run fuzz`) starts a fresh one and runs this.
 *
 *   npx tsx test/tools/fuzz.ts --base http://127.0.0.1:8200 --token <token> [--seconds 60] [--seed 1] [--concurrency 8]
 *
 * Every operation of the document is picked at random and sent with one hostile shape or another:
 * path parameters that are odd segments (dots, raw %, huge, unicode), bodies of wrong types,
 * missing and unknown fields, huge strings, deep nesting, truncated JSON, random bytes, form
 * encoding and the wrong content type, an odd query, and no token, a bad token or the given one.
 * Findings: an answer 5xx, a request unanswered after 10 s, a connection dropped, an answer
 * that carries one of the `secrets` (FUZZ_SECRETS, one a line: values no answer may hold) or a
 * stack trace, and a service that no longer answers sys/health at the end.
 * Prints each distinct finding, a `statuses: {...}` line and `fuzz: N requests, M findings (K
 * distinct)`; exits 1 on any finding.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface FuzzOptions {
  base: string;
  token: string;
  seconds: number;
  seed?: number;
  concurrency?: number;
  /** Values no answer may carry (a root token, key material). */
  secrets?: string[];
}

export interface FuzzReport {
  sent: number;
  statuses: Record<string, number>;
  findings: string[];
  distinct: string[];
}

interface Operation {
  path: string;
  method: string;
  body: Schema;
}

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
}

const HANG_MS = 10_000;
const STACK_FRAME = /\n\s+at [^\n]*\(?[^\s()]+:\d+:\d+\)?/;

/** A small seeded generator (mulberry32): the same seed draws the same requests. */
function generator(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, pick };
}

const ODD_STRINGS = [
  '',
  ' ',
  'a',
  '0',
  '-1',
  '1e309',
  'null',
  'true',
  '*',
  '..',
  '../../etc/passwd',
  '%00',
  '\u0000',
  'ünïcödé',
  '😀',
  '1h',
  '99999999999h',
  '-5s',
  '10.0.0.1/33',
  '::1',
  'x,y,,z',
  '{"a":1}',
  '<script>',
  "' OR 1=1 --",
  '${jndi:x}',
  '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
  'ssh-ed25519 AAAA',
  'a'.repeat(70_000),
];
const ODD_VALUES: unknown[] = [null, true, false, 0, -1, 2 ** 53, 1.5, 1e300, [], [1, 'a'], {}, { a: { b: [] } }, ...ODD_STRINGS];
const ODD_SEGMENTS = ['a', 'x'.repeat(300), '%2e%2e', '%25', '%', '*', 'A_b-9', '%20', 'ü', '..%2f..', '+', '@', '%ZZ'];
const ODD_QUERIES = ['list=true', 'list=maybe', 'pretty', 'token=x', 'ttl=-1', 'recurse', 'cas=abc', 'version=-1', 'a=%ZZ'];
const TYPES = ['application/json', 'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data'];

/** The operations the document lists, with the schema of each one's JSON body. */
export function operationsOf(doc: {
  paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item[method];
      if (!op) continue;
      const content = op.requestBody?.content ?? {};
      const body = (content['application/json'] ?? Object.values(content)[0])?.schema ?? {};
      ops.push({
        path: path.startsWith('/v1/') ? path : `/v1${path.startsWith('/') ? '' : '/'}${path}`,
        method: method.toUpperCase(),
        body,
      });
    }
  }
  return ops;
}

export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const base = o.base.replace(/\/$/, '');
  const { next, pick } = generator(o.seed ?? 1);
  const secrets = (o.secrets ?? []).filter((s) => s.length >= 8);

  const value = (schema: Schema = {}, depth = 0): unknown => {
    if (next() < 0.35) return pick(ODD_VALUES);
    switch (schema.type) {
      case 'integer':
      case 'number':
        return pick([0, 1, -1, 4096, 2 ** 31, 1e300, 0.5]);
      case 'boolean':
        return next() < 0.5;
      case 'array':
        return depth > 4 ? [] : [value(schema.items, depth + 1)];
      case 'object':
        return depth > 4 ? {} : body(schema, depth + 1);
      default:
        return schema.enum ? pick(schema.enum) : pick(ODD_STRINGS.slice(0, 16));
    }
  };
  const body = (schema: Schema = {}, depth = 0): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(schema.properties ?? {})) if (next() < 0.7) out[k] = value(s, depth);
    if (next() < 0.2) out[`unexpected_${Math.floor(next() * 100)}`] = pick(ODD_VALUES);
    return out;
  };
  const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);

  const docAnswer = await fetch(`${base}/v1/sys/openapi`, { headers: { 'X-Svc-Token': o.token } });
  if (docAnswer.status !== 200) throw new Error(`sys/openapi answered ${docAnswer.status}`);
  const ops = operationsOf((await docAnswer.json()) as Parameters<typeof operationsOf>[0]);
  if (ops.length === 0) throw new Error('the OpenAPI document lists no operations');

  const report: FuzzReport = { sent: 0, statuses: {}, findings: [], distinct: [] };
  const one = async () => {
    const op = pick(ops);
    const path = op.path.replace(/\{[^}]+\}/g, () => {
      const s = pick(ODD_SEGMENTS);
      return s.includes('%') ? s : encodeURIComponent(s);
    });
    const method = op.method === 'GET' && next() < 0.15 ? 'LIST' : op.method;
    const t = next();
    const headers: Record<string, string> =
      t < 0.6 ? { 'X-Svc-Token': o.token } : t < 0.8 ? { 'X-Svc-Token': pick(['', 'x', 'a'.repeat(5000), `${o.token}x`]) } : {};
    let sentBody: string | Uint8Array | undefined;
    if (method !== 'GET' && method !== 'DELETE' && method !== 'LIST') {
      const r = next();
      if (r < 0.55) sentBody = JSON.stringify(body(op.body));
      else if (r < 0.62) sentBody = '{"unterminated": ';
      else if (r < 0.68) sentBody = `{"a":${nested(Math.floor(next() * 5000))}}`;
      else if (r < 0.78) sentBody = Uint8Array.from({ length: 512 }, () => Math.floor(next() * 256));
      else if (r < 0.88) sentBody = 'a=1&b=%ZZ&c';
      else sentBody = JSON.stringify(pick(ODD_VALUES));
      headers['Content-Type'] = r < 0.68 ? 'application/json' : pick(TYPES);
    }
    const query = next() < 0.2 ? `?${pick(ODD_QUERIES)}` : '';
    const what = `${method} ${path}${query}`;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), HANG_MS);
    try {
      const res = await fetch(base + path + query, { method, headers, body: sentBody, signal: abort.signal });
      const text = await res.text();
      report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1;
      if (res.status >= 500) report.findings.push(`${res.status} ${what}`);
      if (secrets.some((s) => text.includes(s))) report.findings.push(`a secret in the answer to ${what}`);
      if (STACK_FRAME.test(text)) report.findings.push(`a stack trace in the answer to ${what}`);
    } catch (e) {
      report.findings.push(
        `${(e as Error).name === 'AbortError' ? `no answer in ${HANG_MS / 1000} s` : `no answer (${(e as Error).message})`}: ${what}`,
      );
    } finally {
      clearTimeout(timer);
      report.sent++;
    }
  };
  const end = Date.now() + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: o.concurrency ?? 8 }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  try {
    const health = await fetch(`${base}/v1/sys/health`);
    if (health.status !== 200) report.findings.push(`sys/health answers ${health.status} after fuzzing`);
  } catch {
    report.findings.push('the service stopped answering');
  }
  report.distinct = [...new Set(report.findings)];
  return report;
}

/** The lines the fuzzer prints: distinct findings (40 at most), the statuses, the totals. */
export function reportLines(r: FuzzReport): string[] {
  return [
    ...r.distinct.slice(0, 40),
    `statuses: ${JSON.stringify(r.statuses)}`,
    `fuzz: ${r.sent} requests, ${r.findings.length} findings (${r.distinct.length} distinct)`,
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      base: { type: 'string', default: 'http://127.0.0.1:8200' },
      token: { type: 'string', default: process.env.FUZZ_TOKEN ?? '' },
      seconds: { type: 'string', default: '60' },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '8' },
    },
  });
  const numbers = { seconds: Number(values.seconds), seed: Number(values.seed), concurrency: Number(values.concurrency) };
  for (const [name, n] of Object.entries(numbers)) {
    if (!Number.isInteger(n) || n < (name === 'seed' ? 0 : 1))
      throw new Error(`--${name} ${String(values[name as keyof typeof values])}: expected a whole number`);
  }
  const secrets = (process.env.FUZZ_SECRETS ?? '').split('\n').filter(Boolean);
  const report = await runFuzz({ base: values.base, token: values.token, ...numbers, secrets });
  for (const line of reportLines(report)) console.log(line);
  process.exitCode = report.findings.length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  await main().catch((e: unknown) => {
    console.error(`fuzz: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 2;
  });
}
