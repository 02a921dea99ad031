/**
 * The local entry: `npm start` (which execs `node --import tsx functions/local.ts`, so the PID
 * npm starts runs this file with no shell or loader process between). Starts the local service
 * (lib/local/service.ts: every function in one process on PORT, default 8200, with its data under
 * DATA_DIR, default ./data), prints the root token on first start, and on SIGINT/SIGTERM closes
 * the server and the store (releasing its lock) and prints one line. A start that fails (the data
 * directory or the port in use) prints one line saying what to do and exits 1; LOG_LEVEL=debug
 * adds the stack. Tests and benchmarks import lib/local/service.ts, never this file.
 */
import { join, resolve } from 'node:path';
import { startLocal, type LocalService } from '../lib/local/service';

const dataDir = resolve(process.env.DATA_DIR ?? 'data');
let svc: LocalService;
try {
  svc = await startLocal();
} catch (e) {
  const message = e instanceof Error ? e.message : String(e);
  console.error(`latchkey: cannot start: ${message}`);
  if (process.env.LOG_LEVEL === 'debug' && e instanceof Error) console.error(e.stack);
  process.exit(1);
}
if (svc.rootToken) {
  console.log(`Initialized. Root token (shown once; also in ${join(dataDir, 'root-token')}, mode 0600):\n${svc.rootToken}`);
}
console.log(`Latchkey listening on ${svc.url} (data in ${dataDir})`);

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  // A second signal while closing: stop now (the store's own files stay consistent; its last
  // unsynced batch, if LOCAL_STORE_SYNC=false, may be lost).
  if (stopping) process.exit(1);
  stopping = true;
  svc.close().then(
    () => {
      console.log(`Latchkey stopped (${signal}); the store in ${dataDir} is closed`);
      process.exit(0);
    },
    (e: unknown) => {
      console.error(`latchkey: stopping (${signal}) failed: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
