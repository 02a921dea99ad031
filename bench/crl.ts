/**
 * CRL builds at scale (issue 26, item 4): one issuer (EC P-256) with 1k / 10k / 100k revoked
 * certificates (random 16-byte serials, written straight through the store), each size in a
 * child process of its own so peak memory is that build's: the complete CRL's build time, its
 * size, the process's peak RSS and the heap's growth during the build; then, with auto_rebuild
 * and enable_delta, a few new revocations, each rebuilding the delta at once (its build time and
 * size). The store is the embedded one (LevelDB in process) unless BENCH_CRL_STORE=dynalite
 * (the DynamoDB store over HTTP to dynalite, chunking values over 300 KB as deployed).
 *
 *   npx tsx bench/crl.ts                         (sizes 1000,10000,100000)
 *   BENCH_CRL_SIZES=1000,10000 BENCH_CRL_STORE=dynalite npx tsx bench/crl.ts
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDeps } from '../lib/composition';
import { readEnvironment } from '../lib/config';
import type { Deps } from '../lib/deps';
import { LocalKeyWrapper } from '../lib/keys/local-key';
import { setLogLevel } from '../lib/log';
import { mountPartition } from '../lib/mount-partition';
import { generateRoot } from '../lib/pki/ca';
import { afterRevocation, rebuildCrl } from '../lib/pki/crl';
import { DEFAULT_CRL } from '../lib/pki/config';
import { pkiRepository } from '../lib/pki/issuer';
import { REVOKED_INDEX, expiryIndexSort, type RevokedRecord } from '../lib/pki/storage';
import { DynamoStore } from '../lib/store/dynamo-store';
import { sdkDynamoApi } from '../lib/store/sdk-api';
import { startEmbeddedDynamo } from '../lib/store/embedded';
import { LevelStore } from '../lib/store/level-store';
import { ensureTable } from '../lib/store/setup';
import type { Store } from '../lib/store/store';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

const DELTA_REVOCATIONS = 5;

interface Figures {
  revoked: number;
  store: string;
  setupS: number;
  completeMs: number;
  completeBytes: number;
  peakRssMb: number;
  heapGrowthMb: number;
  deltaMs: number;
  deltaBytes: number;
  deltaEntries: number;
}

async function openStore(kind: string, dir: string): Promise<{ store: Store; table: string; close: () => Promise<void> }> {
  if (kind === 'dynalite') {
    const dynamo = await startEmbeddedDynamo({ path: join(dir, 'db') });
    const client = new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    await ensureTable(client, 'bench');
    return { store: new DynamoStore(sdkDynamoApi(client), 'bench'), table: 'bench', close: () => dynamo.close() };
  }
  const store = await LevelStore.open(join(dir, 'store'), { sync: false });
  return { store, table: 'bench', close: () => store.close() };
}

/** Samples RSS and heap while `fn` runs. */
async function sampled<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; peakRss: number; heapGrowth: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  let peakRss = process.memoryUsage().rss;
  let peakHeap = heap0;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 2);
  const t0 = performance.now();
  try {
    const value = await fn();
    const m = process.memoryUsage();
    return { value, ms: performance.now() - t0, peakRss: Math.max(peakRss, m.rss), heapGrowth: Math.max(peakHeap, m.heapUsed) - heap0 };
  } finally {
    clearInterval(timer);
  }
}

async function one(size: number, kind: string): Promise<Figures> {
  setLogLevel('silent');
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-bench-crl-'));
  const { store, table, close } = await openStore(kind, dir);
  try {
    const deps: Deps = createDeps({
      env: { ...readEnvironment({}), tableName: table },
      store,
      wrapper: new LocalKeyWrapper(randomBytes(32)),
    });
    const part = mountPartition(deps, 'pki', 'bench');
    const r = { commonName: 'Bench CRL Root', altNames: [], ipSans: [], uriSans: [], otherSans: [], excludeCnFromSans: true, subject: {} };
    const request = { ...r, ttl: 86_400 * 365, maxPathLength: -1, permittedDnsDomains: [], signatureBits: 0 };
    const choice = { type: 'internal' as const, keyType: 'ec' as const, keyBits: 256, keyParamsGiven: true };
    const issuerId = (await generateRoot(deps, part, request, choice, 10 * 365 * 86_400, { issuerName: 'bench' })).issuerId;
    const now = Date.now();
    const record = (): RevokedRecord => {
      const serial = randomBytes(16).toString('hex');
      return { serial, revokedAt: now - 3600_000, notAfter: now + 30 * 86_400_000, issuer: 'x', issuerId };
    };
    const t0 = performance.now();
    for (let i = 0; i < size; i += 1000) {
      const items = Array.from({ length: Math.min(1000, size - i) }, () => {
        const v = record();
        return { key: `revoked/${v.serial}`, value: v, index: { name: REVOKED_INDEX, sort: expiryIndexSort(v.notAfter, v.serial) } };
      });
      await part.batchPut(items);
    }
    const setupS = (performance.now() - t0) / 1000;
    const complete = await sampled(() => rebuildCrl(deps, part, issuerId));

    // Deltas: auto_rebuild and enable_delta, a base, then a few revocations, each rebuilding the delta at once.
    await pkiRepository(deps, part).writeConfig('crl', { ...DEFAULT_CRL, autoRebuild: true, enableDelta: true });
    await rebuildCrl(deps, part, issuerId);
    let deltaMs = 0;
    for (let i = 0; i < DELTA_REVOCATIONS; i++) {
      const v = { ...record(), revokedAt: Date.now() };
      await part.put(`revoked/${v.serial}`, v, { index: { name: REVOKED_INDEX, sort: expiryIndexSort(v.notAfter, v.serial) } });
      const t = performance.now();
      await afterRevocation(deps, part, v);
      deltaMs += performance.now() - t;
    }
    const delta = (await part.get<{ der: string }>(`crl-delta/${issuerId}`))!.value;
    const deltaDer = Buffer.from(delta.der, 'base64');
    return {
      revoked: size,
      store: kind,
      setupS,
      completeMs: complete.ms,
      completeBytes: complete.value.length,
      peakRssMb: complete.peakRss / 2 ** 20,
      heapGrowthMb: complete.heapGrowth / 2 ** 20,
      deltaMs: deltaMs / DELTA_REVOCATIONS,
      deltaBytes: deltaDer.length,
      deltaEntries: DELTA_REVOCATIONS,
    };
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<Figures[]> {
  const sizes = (process.env.BENCH_CRL_SIZES ?? '1000,10000,100000').split(',').map(Number);
  const kind = process.env.BENCH_CRL_STORE ?? 'level';
  const out: Figures[] = [];
  console.log(
    `${'revoked'.padStart(8)} ${'store'.padStart(9)} ${'set-up s'.padStart(9)} ${'complete ms'.padStart(12)} ${'CRL KB'.padStart(8)} ` +
      `${'peak RSS MB'.padStart(12)} ${'heap +MB'.padStart(9)} ${'delta ms'.padStart(9)} ${'delta B'.padStart(8)}`,
  );
  for (const size of sizes) {
    const json = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', import.meta.filename, '--child', String(size)], {
      env: { ...process.env, BENCH_CRL_STORE: kind },
      maxBuffer: 1 << 20,
    }).toString();
    const f = JSON.parse(json.trim().split('\n').pop()!) as Figures;
    out.push(f);
    console.log(
      `${String(f.revoked).padStart(8)} ${f.store.padStart(9)} ${f.setupS.toFixed(1).padStart(9)} ${f.completeMs.toFixed(0).padStart(12)} ` +
        `${(f.completeBytes / 1024).toFixed(0).padStart(8)} ${f.peakRssMb.toFixed(0).padStart(12)} ${f.heapGrowthMb.toFixed(0).padStart(9)} ` +
        `${f.deltaMs.toFixed(1).padStart(9)} ${String(f.deltaBytes).padStart(8)}`,
    );
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--child');
  if (i > 0) console.log(JSON.stringify(await one(Number(process.argv[i + 1]), process.env.BENCH_CRL_STORE ?? 'level')));
  else await run();
}
