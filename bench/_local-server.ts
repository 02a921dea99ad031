/**
 * The server half of bench/local-store.ts: the local service (the `npm start` listener) on the
 * store named by argv[2] (level | dynalite), in its own process (one Node thread), on a fresh
 * data directory. Prints one JSON line {url, token} once ready; on SIGTERM prints the embedded
 * store's group-commit counts {batches, plans} (when it runs on it), cleans up and exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocal, type LocalStoreKind } from '../lib/local/service';
import { setLogLevel } from '../lib/log';
import { LevelStore } from '../lib/store/level-store';

setLogLevel('silent');
const store = (process.argv[2] ?? 'level') as LocalStoreKind;
const dataDir = mkdtempSync(join(tmpdir(), `latchkey-bench-${store}-`));
const svc = await startLocal({ dataDir, port: 0, store });
process.stdout.write(JSON.stringify({ url: svc.url, token: svc.rootToken }) + '\n');
process.on('SIGTERM', () => {
  const s = svc.deps.store;
  if (s instanceof LevelStore) process.stdout.write(JSON.stringify(s.writer.stats) + '\n');
  void svc.close().then(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
