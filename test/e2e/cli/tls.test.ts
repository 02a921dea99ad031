/**
 * A service behind TLS from a private CA: the CLI refuses the unknown root (exit 1, one line),
 * and trusts it given by -ca-cert, LATCHKEY_CACERT or VAULT_CACERT.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { localhostTls } from '../../helpers/pki-cert';
import { freshHome, runCli } from './run-cli';

let local: LocalService;
let tls: Server;
let address: string;
let caFile: string;

beforeAll(async () => {
  local = await startLocal({ dataDir: mkdtempSync(join(tmpdir(), 'latchkey-cli-tls-')), port: 0, quiet: true });
  const m = await localhostTls();
  caFile = join(mkdtempSync(join(tmpdir(), 'latchkey-cli-ca-')), 'ca.pem');
  writeFileSync(caFile, m.caPem);
  // TLS in front of the local service: each request passed on as it came.
  tls = createServer({ cert: m.certPem, key: m.keyPem }, (req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && k !== 'host' && k !== 'connection'),
      ) as Record<string, string>;
      const body = parts.length ? Buffer.concat(parts) : undefined;
      void fetch(`${local.url}${req.url}`, { method: req.method!, headers, ...(body ? { body } : {}) }).then(async (r) => {
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await r.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', () => r()));
  address = `https://localhost:${(tls.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  tls?.close();
  await local?.close();
});

it('an unknown root is refused; -ca-cert, LATCHKEY_CACERT and VAULT_CACERT trust it', async () => {
  const env = { HOME: freshHome(), LATCHKEY_ADDR: address };
  const refused = await runCli(['read', '-field=initialized', 'sys/health'], { env });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^Error: .*certificate.*\n$/);
  for (const [args, extra] of [
    [[`-ca-cert=${caFile}`], {}],
    [[], { LATCHKEY_CACERT: caFile }],
    [[], { VAULT_CACERT: caFile }],
  ] as const) {
    const r = await runCli(['read', ...args, '-field=initialized', 'sys/health'], { env: { ...env, ...extra } });
    expect(r, JSON.stringify(extra)).toEqual({ code: 0, stdout: 'true', stderr: '' });
  }
  const missing = await runCli(['read', '-ca-cert=/nonexistent.pem', 'sys/health'], { env });
  expect(missing).toEqual({ code: 2, stdout: '', stderr: 'cannot read the CA certificate /nonexistent.pem: ENOENT\n' });
});
