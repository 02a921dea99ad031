/**
 * The project's fuzzer (test/tools/fuzz.ts, `npm run fuzz`): a few seconds against a fresh local
 * instance answer the statuses a working service answers hostile input with and no finding;
 * against a server that fails, leaks or drops, each is found.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { reportLines, runFuzz } from './fuzz';

const ROOT = join(import.meta.dirname, '..', '..');
let bad: Server | undefined;
afterAll(() => bad?.close());

describe('npm run fuzz', () => {
  it('runs from the repository against a fresh instance: the expected statuses, 0 findings', async () => {
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'fuzz', '--', '--seconds', '4', '--seed', '7'], {
      cwd: ROOT,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^fuzz: \d+ requests, 0 findings \(0 distinct\)$/);
    const statuses = JSON.parse(lines.at(-2)!.replace(/^statuses: /, '')) as Record<string, number>;
    // Good requests succeed, hostile ones are refused as bad input, unauthenticated or unknown.
    for (const status of ['200', '204', '400', '403', '404']) expect(statuses[status], `status ${status}`).toBeGreaterThan(0);
    expect(Object.keys(statuses).filter((s) => Number(s) >= 500)).toEqual([]);
  }, 60_000);
});

describe('the fuzzer finds', () => {
  it('a 5xx, a secret or a stack trace in an answer, and a dropped connection', async () => {
    const doc = {
      paths: {
        '/boom/{name}': { get: {} },
        '/leak': {
          post: { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } } } },
        },
        '/stack': { get: {} },
        '/drop': { delete: {} },
      },
    };
    bad = createServer((req, res) => {
      const url = req.url ?? '';
      if (url.startsWith('/v1/sys/openapi')) return res.end(JSON.stringify(doc));
      if (url.startsWith('/v1/sys/health')) return res.end('{}');
      if (url.startsWith('/v1/boom/')) return res.writeHead(500).end('{"errors":["boom"]}');
      if (url.startsWith('/v1/leak')) return res.end('{"data":{"key":"s3cr3t-key-material"}}');
      if (url.startsWith('/v1/stack')) return res.writeHead(400).end('Error: x\n    at handler (/srv/lib/x.ts:10:5)');
      req.socket.destroy();
    });
    await new Promise<void>((ok) => bad!.listen(0, '127.0.0.1', ok));
    const base = `http://127.0.0.1:${(bad.address() as { port: number }).port}`;
    const report = await runFuzz({ base, token: 't', seconds: 1, concurrency: 2, secrets: ['s3cr3t-key-material'] });
    const found = report.distinct.join('\n');
    expect(found).toMatch(/^500 GET \/v1\/boom\//m);
    expect(found).toMatch(/^a secret in the answer to POST \/v1\/leak/m);
    expect(found).toMatch(/^a stack trace in the answer to GET \/v1\/stack/m);
    expect(found).toMatch(/^no answer \(.*\): DELETE \/v1\/drop/m);
    expect(reportLines(report).at(-1)).toBe(
      `fuzz: ${report.sent} requests, ${report.findings.length} findings (${report.distinct.length} distinct)`,
    );
  });
});
