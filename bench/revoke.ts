/**
 * Revoking a token that owns many leases: a parent token, CHILDREN child tokens, each holding one
 * leased PKI certificate (generate_lease), revoked through the local server. Every lease is
 * revoked at its engine (certificate revoked, CRL rebuilt) before the call answers.
 *   npx tsx bench/revoke.ts            (BENCH_CHILDREN=300 by default)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startLocal } from '../lib/local/service';
import { setLogLevel } from '../lib/log';

export async function run(): Promise<Record<string, number>> {
  setLogLevel('silent');
  const children = Number(process.env.BENCH_CHILDREN ?? 300);
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-revoke-'));
  const svc = await startLocal({ dataDir, port: 0 });
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const r = await fetch(`${svc.url}/v1/${path}`, {
      method,
      headers: { 'x-svc-token': token },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${path} answered ${r.status}: ${text}`);
    return text ? (JSON.parse(text) as Record<string, any>) : {}; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  try {
    const root = svc.rootToken!;
    await call('POST', 'pki/root/generate/internal', root, { common_name: 'Bench Root', ttl: '8760h', key_type: 'ec' });
    await call('POST', 'pki/roles/leased', root, { allow_any_name: true, key_type: 'ec', ttl: '1h', generate_lease: true });
    const parent = (await call('POST', 'auth/token/create', root, { ttl: '1h' })).auth.client_token as string;
    const started = performance.now();
    for (let i = 0; i < children; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, children - i) }, async (_, j) => {
          const child = (await call('POST', 'auth/token/create', parent, { ttl: '1h' })).auth.client_token as string;
          await call('POST', 'pki/issue/leased', child, { common_name: `c${i + j}.example.com` });
        }),
      );
    }
    const setup = performance.now() - started;
    const t0 = performance.now();
    await call('POST', 'auth/token/revoke', root, { token: parent });
    const revokeMs = performance.now() - t0;
    const figures = {
      [`set-up: ${children} child tokens + leased certificates (s)`]: setup / 1000,
      [`revoke the parent: ${children + 1} tokens, ${children} leases (s)`]: revokeMs / 1000,
      'per lease revoked (ms)': revokeMs / children,
    };
    for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(60)} ${v.toFixed(2)}`);
    return figures;
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
