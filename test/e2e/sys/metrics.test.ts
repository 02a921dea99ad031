/**
 * sys/metrics end to end: the edge counts every request exactly (N requests → +N), JSON by
 * default in the reference server's shape, `?format=prometheus` in the text format that
 * `promtool check metrics` accepts, a token with read on sys/metrics needed (403 without), and a
 * real Prometheus scraping a local instance with a bearer token finds the counts the test made.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../../lib/local/http-server';
import { registry } from '../../../lib/metrics/registry';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';

let svc: TestService;
let scraper: string;

interface JsonEntry {
  Name: string;
  Count: number;
  Sum: number;
  Labels: Record<string, string>;
}

const LEADER = { function: 'sys', mount: 'sys', path: 'sys/leader', operation: 'read', status_class: '2xx' };

beforeAll(async () => {
  svc = await createTestService();
  const p = await call(svc.app, 'PUT', '/v1/sys/policies/acl/metrics-reader', {
    token: svc.root,
    body: { policy: 'path "sys/metrics" { capabilities = ["read"] }' },
  });
  expect(p.status).toBe(204);
  scraper = await tokenWith(svc, ['metrics-reader']);
});

async function jsonMetrics(): Promise<{ Counters: JsonEntry[]; Samples: JsonEntry[]; Gauges: unknown[]; Timestamp: string }> {
  const r = await call(svc.app, 'GET', '/v1/sys/metrics', { token: scraper });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  return r.json as never;
}

function find(entries: JsonEntry[], name: string, labels: Record<string, string>): JsonEntry | undefined {
  return entries.find((e) => e.Name === name && Object.entries(labels).every(([k, v]) => e.Labels[k] === v));
}

describe('sys/metrics', () => {
  it('needs a token with read on sys/metrics: 403 without a token and with the default policy only', async () => {
    expect((await call(svc.app, 'GET', '/v1/sys/metrics')).status).toBe(403);
    const plain = await tokenWith(svc, ['default']);
    expect((await call(svc.app, 'GET', '/v1/sys/metrics', { token: plain })).status).toBe(403);
    expect((await call(svc.app, 'GET', '/v1/sys/metrics?format=prometheus', { token: plain })).status).toBe(403);
    expect((await call(svc.app, 'GET', '/v1/sys/metrics', { token: scraper })).status).toBe(200);
    expect((await call(svc.app, 'GET', '/v1/sys/metrics', { token: svc.root })).status).toBe(200);
  });

  it('refuses an unknown format with a 400 naming it', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/metrics?format=xml', { token: scraper });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/format/);
  });

  it("answers the text format, without ?format, to a scraper's Accept header (as the reference does)", async () => {
    const accept = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    const r = await call(svc.app, 'GET', '/v1/sys/metrics', { token: scraper, headers: { accept } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(r.text).toContain('# TYPE latchkey_requests_total counter\n');
    const telemetry = await call(svc.app, 'GET', '/v1/sys/metrics', { token: scraper, headers: { accept: 'prometheus/telemetry' } });
    expect(telemetry.text).toMatch(/^# HELP /);
    const plain = await call(svc.app, 'GET', '/v1/sys/metrics', { token: scraper, headers: { accept: 'application/json' } });
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it("counts N requests exactly, in the reference server's JSON shape, with bounded labels", async () => {
    const before = find((await jsonMetrics()).Counters, 'latchkey_requests_total', LEADER)?.Sum ?? 0;
    const deniedBefore =
      find((await jsonMetrics()).Counters, 'latchkey_requests_total', { path: 'sys/metrics', status_class: '4xx' })?.Sum ?? 0;
    const n = 37;
    for (let i = 0; i < n; i++) expect((await call(svc.app, 'GET', '/v1/sys/leader', { token: svc.root })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await call(svc.app, 'GET', '/v1/sys/metrics')).status).toBe(403);
    const after = await jsonMetrics();
    expect(typeof after.Timestamp).toBe('string');
    expect(Array.isArray(after.Gauges)).toBe(true);
    expect(find(after.Counters, 'latchkey_requests_total', LEADER)!.Sum).toBe(before + n);
    expect(find(after.Counters, 'latchkey_requests_total', { path: 'sys/metrics', status_class: '4xx' })!.Sum).toBe(deniedBefore + 3);
    const durations = find(after.Samples, 'latchkey_request_duration_seconds', {
      function: 'sys',
      mount: 'sys',
      operation: 'read',
      status_class: '2xx',
    });
    expect(durations!.Count).toBeGreaterThanOrEqual(n);
    // Label values are templates and classes: never a token or a path as asked.
    await call(svc.app, 'GET', '/v1/sys/policies/acl/no-such-secret-name', { token: svc.root });
    const text = JSON.stringify(await jsonMetrics());
    expect(text).not.toContain(svc.root);
    expect(text).not.toContain(scraper);
    expect(text).not.toContain('no-such-secret-name');
  });

  it('answers ?format=prometheus in the text exposition format, counting exactly', async () => {
    const read = async () => {
      const r = await call(svc.app, 'GET', '/v1/sys/metrics?format=prometheus', { token: scraper });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      return r.text;
    };
    const line = /^latchkey_requests_total\{function="sys",mount="sys",path="sys\/leader",operation="read",status_class="2xx"\} (\d+)$/m;
    const before = Number(line.exec(await read())?.[1] ?? 0);
    for (let i = 0; i < 5; i++) await call(svc.app, 'GET', '/v1/sys/leader', { token: svc.root });
    const text = await read();
    expect(Number(line.exec(text)![1])).toBe(before + 5);
    expect(text).toContain('# TYPE latchkey_requests_total counter\n');
    expect(text).toContain('# TYPE latchkey_request_duration_seconds histogram\n');
    expect(text).toMatch(
      /^latchkey_request_duration_seconds_bucket\{function="sys",mount="sys",operation="read",status_class="2xx",le="\+Inf"\} \d+$/m,
    );
    for (const l of text.split('\n').filter((x) => x && !x.startsWith('#'))) expect(l).toMatch(/^latchkey_/);
  });

  it.skipIf(!existsSync(PROMTOOL))('passes promtool check metrics', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/metrics?format=prometheus', { token: scraper });
    const { code, out } = await new Promise<{ code: number | null; out: string }>((ok) => {
      const p = execFile(PROMTOOL, ['check', 'metrics'], (err, stdout, stderr) =>
        ok({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      );
      p.stdin!.end(r.text);
    });
    expect(out).toBe('');
    expect(code).toBe(0);
  });
});

describe.skipIf(!existsSync(PROMETHEUS))('a real Prometheus scraping sys/metrics with a bearer token', () => {
  let served: Served;
  let prom: ChildProcess;
  let dir: string;
  let promUrl: string;
  let promLog = '';

  beforeAll(async () => {
    served = await listen(svc.app.fetch);
    dir = mkdtempSync(join(tmpdir(), 'latchkey-prom-'));
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: latchkey',
        '    metrics_path: /v1/sys/metrics',
        '    params:',
        '      format: [prometheus]',
        '    authorization:',
        '      type: Bearer',
        `      credentials: ${scraper}`,
        '    static_configs:',
        `      - targets: ['127.0.0.1:${served.port}']`,
        '',
      ].join('\n'),
    );
    prom = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prom.stderr!.on('data', (d: Buffer) => (promLog = (promLog + d.toString()).slice(-20000)));
    prom.stdout!.on('data', () => {});
  }, 60_000);

  afterAll(async () => {
    if (prom && prom.exitCode === null) {
      prom.kill('SIGTERM');
      await new Promise((ok) => prom.once('exit', ok));
    }
    await served?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function query(q: string): Promise<number | undefined> {
    try {
      const r = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
      if (!r.ok) return undefined;
      const body = (await r.json()) as { data: { result: { value: [number, string] }[] } };
      const v = body.data.result[0]?.value[1];
      return v === undefined ? undefined : Number(v);
    } catch {
      return undefined;
    }
  }

  /** Polls Prometheus until `q` is `want` (each scrape is 1 s apart) or the deadline passes; the last value seen. */
  async function until(q: string, want: (v: number | undefined) => boolean, seconds = 45): Promise<number | undefined> {
    const end = Date.now() + seconds * 1000;
    let v: number | undefined;
    while (Date.now() < end) {
      v = await query(q);
      if (want(v)) return v;
      await new Promise((ok) => setTimeout(ok, 250));
    }
    return v;
  }

  it('finds the counters equal to the requests made (37 requests → +37)', async () => {
    const q = 'sum(latchkey_requests_total{job="latchkey",path="sys/leader",operation="read",status_class="2xx"}) or vector(0)';
    // A first scrape: the target is up and authorised (a 403 would leave `up` at 0).
    expect(await until('up{job="latchkey"}', (v) => v === 1)).toBe(1);
    const local = () => localCount(LEADER);
    const before = await until(q, (v) => v === local());
    expect(before, promLog).toBe(local());
    for (let i = 0; i < 37; i++) expect((await servedGet('/v1/sys/leader')).status).toBe(200);
    expect(await until(q, (v) => v === before! + 37), promLog).toBe(before! + 37);
  }, 120_000);

  async function servedGet(path: string) {
    return fetch(`${served.url}${path}`, { headers: { 'x-vault-token': svc.root } });
  }
});

/** The local registry's count for these labels, as sys/metrics shows it. */
function localCount(labels: Record<string, string>): number {
  return (
    registry
      .json()
      .Counters.find((e) => e.Name === 'latchkey_requests_total' && Object.entries(labels).every(([k, v]) => e.Labels[k] === v))?.Sum ?? 0
  );
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', () => ok()));
  const port = (s.address() as AddressInfo).port;
  await new Promise((ok) => s.close(ok));
  return port;
}
