/**
 * sys token lookup throughput through the local server (real HTTP on loopback, embedded
 * persistent store), sequential and with 8 concurrent clients.
 *   npx tsx bench/sys.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startLocal } from '../lib/local/service';
import { setLogLevel } from '../lib/log';
import { rate } from './_rate';

export async function run(): Promise<Record<string, number>> {
  setLogLevel('silent');
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-sys-'));
  const svc = await startLocal({ dataDir, port: 0 });
  try {
    const root = svc.rootToken!;
    const created = await fetch(`${svc.url}/v1/auth/token/create`, {
      method: 'POST',
      headers: { 'x-svc-token': root },
      body: JSON.stringify({ policies: ['default'], ttl: '1h' }),
    });
    const token = ((await created.json()) as { auth: { client_token: string } }).auth.client_token;
    const lookup = async () => {
      const r = await fetch(`${svc.url}/v1/auth/token/lookup-self`, { headers: { 'x-svc-token': token } });
      if (r.status !== 200) throw new Error(`lookup-self answered ${r.status}`);
      await r.arrayBuffer();
    };
    await rate(200, 4, lookup); // warm up
    const figures = {
      'token lookup-self, sequential (req/s)': await rate(2000, 1, lookup),
      'token lookup-self, 8 clients (req/s)': await rate(4000, 8, lookup),
    };
    for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(44)} ${v.toFixed(0)}`);
    return figures;
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
