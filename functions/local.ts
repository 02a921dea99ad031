/**
 * The local service: every function in one Node process on PORT (default 8200), on an embedded
 * persistent DynamoDB-compatible store under DATA_DIR (default ./data) and a local key file in
 * place of KMS. First start initialises and prints the root token once (also written to
 * DATA_DIR/root-token, mode 0600). The lease sweeper runs every minute, as its schedule does.
 */
import { Hono } from 'hono';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createCatalogApp } from '../lib/catalog/app';
import { catalogRouteSets } from '../lib/catalog/routes';
import { readEnvironment } from '../lib/config';
import { depsFromEnvironment, dynamoClient, type Deps } from '../lib/deps';
import { createEngineApp, engineRoutes, loadEngines, useEngineRevokers, type EngineModule } from '../lib/engines';
import { HttpError } from '../lib/errors';
import { errorResponse } from '../lib/http/envelope';
import { decodedPath } from '../lib/http/request-path';
import { serve } from '../lib/local/serve';
import { logError, logInfo } from '../lib/log';
import { functionFor } from '../lib/routing';
import { startEmbeddedDynamo } from '../lib/store/embedded';
import { ensureTable } from '../lib/store/setup';
import { createSysApp } from '../lib/sys/app';
import { initialize, isInitialized } from '../lib/sys/init';
import { sweep } from '../lib/sys/sweeper';

export interface LocalService {
  url: string;
  deps: Deps;
  rootToken?: string;
  close(): Promise<void>;
}

/** Builds the one-process dispatcher: the same path → function rule as API Gateway's routes. */
export function localApp(deps: Deps, engines: EngineModule[]): Hono {
  const apps = new Map<string, Hono>([['sys', createSysApp(deps, async () => [...engineRoutes(deps.mounts, engines), ...catalogRouteSets()])]]);
  for (const e of engines) apps.set(e.type, createEngineApp(e, deps));
  apps.set('catalog', createCatalogApp(deps));
  const app = new Hono();
  app.all('*', (c) => {
    // The same first check every function makes; routing then reads the same decoded path the
    // function routes and authorises on, so `/v1/sy%73/mounts` is sys here as it is there.
    let path: string;
    try {
      path = decodedPath(c.req.url);
    } catch (e) {
      return errorResponse(400, e instanceof HttpError ? e.messages : ['bad request path'], false, '');
    }
    const name = functionFor(path, deps.mounts);
    const target = name && apps.get(name);
    if (!target) return errorResponse(404, [`no handler for route "${path.slice(0, 256)}"`], false, '');
    return target.fetch(c.req.raw);
  });
  return app;
}

export async function startLocal(options: { dataDir?: string; port?: number; host?: string; quiet?: boolean } = {}): Promise<LocalService> {
  const dataDir = resolve(options.dataDir ?? process.env.DATA_DIR ?? 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'db') });
  const env = { ...readEnvironment(), dynamoEndpoint: dynamo.endpoint, localKeyFile: join(dataDir, 'local.key') };
  delete env.kmsKeyId;
  const deps = depsFromEnvironment(env);
  useEngineRevokers(deps);
  await ensureTable(dynamoClient(env), env.tableName);

  let rootToken: string | undefined;
  if (!(await isInitialized(deps))) {
    rootToken = (await initialize(deps)).rootToken;
    writeFileSync(join(dataDir, 'root-token'), rootToken + '\n', { mode: 0o600 });
  }

  const served = await serve(localApp(deps, await loadEngines()).fetch, {
    port: options.port ?? Number(process.env.PORT ?? 8200),
    host: options.host ?? process.env.HOST ?? '127.0.0.1',
  });
  // One sweep at a time, as the scheduled function runs: a long one is not joined by the next.
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweep(deps, 50_000)
      .then((r) => (r.leasesRevoked || r.leasesFailed || r.tokensRemoved) && logInfo('sweep', { function: 'sweeper', ...r }))
      .catch((e) => logError('sweep-fault', { function: 'sweeper' }, e))
      .finally(() => (sweeping = false));
  }, sweepInterval());
  timer.unref();
  return {
    url: served.url,
    deps,
    ...(rootToken ? { rootToken } : {}),
    close: async () => {
      clearInterval(timer);
      await served.close();
      await dynamo.close();
    },
  };
}

/** SWEEP_INTERVAL_MS: how often the local sweeper runs (default one minute, as deployed). */
function sweepInterval(): number {
  const v = Number(process.env.SWEEP_INTERVAL_MS ?? 60_000);
  return Number.isFinite(v) && v >= 100 ? v : 60_000;
}

const isMain = process.argv[1] && resolve(process.argv[1]).replace(/\.ts$/, '') === resolve(import.meta.dirname, 'local');
if (isMain) {
  const svc = await startLocal();
  const dataDir = resolve(process.env.DATA_DIR ?? 'data');
  if (svc.rootToken) {
    console.log(`Initialized. Root token (shown once; also in ${join(dataDir, 'root-token')}, mode 0600):\n${svc.rootToken}`);
  }
  console.log(`Latchkey listening on ${svc.url} (data in ${dataDir})`);
  const stop = () => void svc.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
