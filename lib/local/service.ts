/**
 * The local service: every function in one Node process, on a persistent store under the data
 * directory and a local key file in place of KMS. The store is the embedded LevelDB store
 * (DATA_DIR/store, lib/store/level-store.ts; a dynalite DATA_DIR/db is copied into it once), or
 * with LOCAL_STORE=dynalite the DynamoDB store on dynalite (DATA_DIR/db). First start
 * initialises (the root token is returned once and written to DATA_DIR/root-token, mode 0600).
 * The lease sweeper runs on a timer, as its schedule does when deployed, and with it the PKI
 * schedule (due CRL rebuilds, auto-tidy), as functions/pki-tidy.ts does deployed, and every hour
 * the SSH tidy, as functions/ssh-tidy.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { catalogSettings } from '../catalog/settings';
import { readEnvironment } from '../config';
import { createDeps, depsFromEnvironment, dynamoClient } from '../composition';
import type { Deps } from '../deps';
import { loadEngines, useEngineRevokers } from '../engines';
import { LocalKeyWrapper } from '../keys/local-key';
import { logError, logInfo } from '../log';
import { startEmbeddedDynamo } from '../store/embedded';
import { LevelStore } from '../store/level-store';
import { tidyAllSshMounts } from '../ssh/scheduled-tidy';
import { migrateFromDynalite } from '../store/migrate-dynalite';
import { ensureTable } from '../store/setup';
import { initialize, isInitialized } from '../sys/init';
import { pkiSchedule } from '../pki/auto-tidy';
import { sweep } from '../sys/sweeper';
import { localApp } from './app';
import { listen } from './http-server';

export interface LocalService {
  url: string;
  deps: Deps;
  rootToken?: string;
  close(): Promise<void>;
}

export interface LocalOptions {
  /** Default DATA_DIR, else ./data. */
  dataDir?: string;
  /** Default PORT, else 8200. */
  port?: number;
  /** Default HOST, else 127.0.0.1. */
  host?: string;
  quiet?: boolean;
  /** Default LOCAL_STORE, else 'level' (the embedded store); 'dynalite' for the DynamoDB store on dynalite. */
  store?: LocalStoreKind;
}

export type LocalStoreKind = 'level' | 'dynalite';

export async function startLocal(options: LocalOptions = {}): Promise<LocalService> {
  const dataDir = resolve(options.dataDir ?? process.env.DATA_DIR ?? 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const { deps, close: closeStore } = await openStore(dataDir, options.store ?? storeKind(process.env.LOCAL_STORE));
  useEngineRevokers(deps);

  let rootToken: string | undefined;
  if (!(await isInitialized(deps))) {
    rootToken = (await initialize(deps)).rootToken;
    writeFileSync(join(dataDir, 'root-token'), rootToken + '\n', { mode: 0o600 });
  }

  // The catalog as the local server documents it: the `local` overlay of infra/mounts.json
  // (open, for development on loopback). Asked for here by name; every other composition is closed.
  const app = localApp(deps, await loadEngines(), { catalog: catalogSettings({ overlay: 'local' }) });
  const port = options.port ?? Number(process.env.PORT ?? 8200);
  const host = options.host ?? process.env.HOST ?? '127.0.0.1';
  const served = await listen(app.fetch, { port, host }).catch(async (e: unknown) => {
    await closeStore();
    throw listenFailure(e, host, port);
  });
  const stopSweeper = startSweeper(deps);
  return {
    url: served.url,
    deps,
    ...(rootToken ? { rootToken } : {}),
    close: async () => {
      stopSweeper();
      await served.close();
      await closeStore();
    },
  };
}

/** A listen error as what to do: the port in use or not ours to take. */
function listenFailure(e: unknown, host: string, port: number): unknown {
  const code = (e as { code?: string } | undefined)?.code;
  if (code === 'EADDRINUSE')
    return new Error(`port ${port} on ${host} is in use by another process: stop that process, or give this one another PORT`, {
      cause: e,
    });
  if (code === 'EACCES')
    return new Error(`port ${port} on ${host} needs privileges this process lacks: give it a PORT above 1023`, { cause: e });
  if (code === 'EADDRNOTAVAIL')
    return new Error(`${host} is not an address of this machine: set HOST to one (127.0.0.1 by default)`, { cause: e });
  return e;
}

export function storeKind(setting: string | undefined): LocalStoreKind {
  if (setting === undefined || setting === '' || setting === 'level') return 'level';
  if (setting === 'dynalite') return 'dynalite';
  throw new Error(`LOCAL_STORE=${setting}: expected level (the default) or dynalite`);
}

/**
 * LOCAL_STORE_SYNC: `true` (default), each batch is fsynced before its writes are answered;
 * `false`, written to the OS only (survives kill -9 of the service, not a power cut or an OS crash).
 */
function syncSetting(setting: string | undefined): boolean {
  if (setting === undefined || setting === '' || setting === 'true') return true;
  if (setting === 'false') return false;
  throw new Error(`LOCAL_STORE_SYNC=${setting}: expected true (the default) or false`);
}

/** Deps on the chosen store under `dataDir`, and how to close that store (also lib/local/root.ts's). */
export async function openStore(dataDir: string, kind: LocalStoreKind): Promise<{ deps: Deps; close: () => Promise<void> }> {
  const env = { ...readEnvironment(), localKeyFile: join(dataDir, 'local.key') };
  delete env.kmsKeyId;
  // The local audit device: DATA_DIR/audit.log, unless AUDIT_DEVICES names others.
  if (process.env.AUDIT_DEVICES === undefined) env.audit = { ...env.audit, devices: [{ type: 'file', path: join(dataDir, 'audit.log') }] };
  if (kind === 'dynalite') {
    const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'db') });
    env.dynamoEndpoint = dynamo.endpoint;
    const deps = depsFromEnvironment(env);
    await ensureTable(dynamoClient(env), env.tableName);
    return { deps, close: () => dynamo.close() };
  }
  delete env.dynamoEndpoint;
  const store = await LevelStore.open(join(dataDir, 'store'), { sync: syncSetting(process.env.LOCAL_STORE_SYNC) });
  try {
    const copied = await migrateFromDynalite(store, join(dataDir, 'db'), env.tableName);
    if (copied !== undefined) logInfo('store-migrated', { function: 'local', from: 'dynalite', items: copied });
  } catch (e) {
    await store.close();
    throw e;
  }
  const deps = createDeps({ env, store, wrapper: LocalKeyWrapper.fromFile(env.localKeyFile) });
  return { deps, close: () => store.close() };
}

/** How often the local SSH tidy runs, as functions/ssh-tidy.ts's schedule deployed. */
const SSH_TIDY_MS = 3600_000;

/**
 * One sweep (then the PKI schedule, and the SSH tidy when an hour has passed) at a time, as the
 * scheduled functions run: a long one is not joined by the next. Returns the stop.
 */
function startSweeper(deps: Deps): () => void {
  let sweeping = false;
  let sshTidiedAt = Date.now();
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweep(deps, 50_000)
      .then((r) => (r.leasesRevoked || r.leasesFailed || r.tokensRemoved) && logInfo('sweep', { function: 'sweeper', ...r }))
      .catch((e) => logError('sweep-fault', { function: 'sweeper' }, e))
      .then(() => pkiSchedule(deps, Date.now() + 50_000))
      .then((r) => r.crl.some((m) => m.complete || m.delta || m.failed) && logInfo('pki-schedule', { function: 'pki-tidy', crl: r.crl }))
      .catch((e) => logError('pki-schedule-fault', { function: 'pki-tidy' }, e))
      .then(async () => {
        if (Date.now() - sshTidiedAt < SSH_TIDY_MS) return;
        sshTidiedAt = Date.now();
        const report = await tidyAllSshMounts(deps);
        if (report.some((m) => m.removed)) logInfo('ssh-tidy', { function: 'ssh-tidy', report });
      })
      .catch((e) => logError('ssh-tidy-fault', { function: 'ssh-tidy' }, e))
      .finally(() => (sweeping = false));
  }, sweepInterval());
  timer.unref();
  return () => clearInterval(timer);
}

/** SWEEP_INTERVAL_MS: how often the local sweeper runs (default one minute, as deployed). */
function sweepInterval(): number {
  const v = Number(process.env.SWEEP_INTERVAL_MS ?? 60_000);
  return Number.isFinite(v) && v >= 100 ? v : 60_000;
}
