/**
 * The local entry: `npm start`. Starts the local service (lib/local/service.ts: every function in
 * one process on PORT, default 8200, with its data under DATA_DIR, default ./data), prints the
 * root token on first start, and stops on SIGINT/SIGTERM. Tests and benchmarks import
 * lib/local/service.ts, never this file.
 */
import { join, resolve } from 'node:path';
import { startLocal } from '../lib/local/service';

const svc = await startLocal();
const dataDir = resolve(process.env.DATA_DIR ?? 'data');
if (svc.rootToken) {
  console.log(`Initialized. Root token (shown once; also in ${join(dataDir, 'root-token')}, mode 0600):\n${svc.rootToken}`);
}
console.log(`Latchkey listening on ${svc.url} (data in ${dataDir})`);
const stop = () => void svc.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
