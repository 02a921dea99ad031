/**
 * The server half of bench/pki.ts, in its own process (one Node thread, as one Lambda is):
 * the local service (with its LIST-accepting TCP front) plus the same app served directly.
 * Prints one JSON line {front, direct, token} on stdout once ready.
 */
import { createAdaptorServer } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localApp } from '../lib/local/app';
import { startLocal } from '../lib/local/service';
import { loadEngines } from '../lib/engines';
import { setLogLevel } from '../lib/log';

setLogLevel('silent');
const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-pki-'));
const svc = await startLocal({ dataDir, port: 0 });
const direct = createAdaptorServer({ fetch: localApp(svc.deps, await loadEngines()).fetch });
await new Promise<void>((r) => direct.listen(0, '127.0.0.1', () => r()));
process.stdout.write(
  JSON.stringify({ front: svc.url, direct: `http://127.0.0.1:${(direct.address() as AddressInfo).port}`, token: svc.rootToken }) + '\n',
);
process.on('SIGTERM', () => {
  direct.close();
  void svc.close().then(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
