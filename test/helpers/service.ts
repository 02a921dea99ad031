/** An initialized service on a real DynamoDB-compatible store, for black-box app tests. */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { parseReply } from '../../lib/client/client';
import { appTransport } from '../../lib/client/transport';
import { createDeps } from '../../lib/composition';
import type { Deps } from '../../lib/deps';
import { parseAuditDevices, readEnvironment, type Mount } from '../../lib/config';
import type { EngineModule } from '../../lib/engines';
import { localApp } from '../../lib/local/app';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { sysFunctionApp } from '../../lib/sys-function';
import { initialize } from '../../lib/sys/init';
import { createTestStore } from './store';

export interface TestService {
  deps: Deps;
  app: Hono;
  root: string;
  table: string;
  client: Awaited<ReturnType<typeof createTestStore>>['client'];
}

export interface TestServiceOptions {
  now?: () => number;
  /** Engines to serve beside sys, routed as the local server routes them. */
  engines?: EngineModule[];
  mounts?: Mount[];
}

/**
 * A fresh table, initialised, with a root token. `app` serves sys and the given engines under
 * their mounts (infra/mounts.json unless `mounts`), exactly as the local server dispatches.
 */
export async function createTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const { store, client, table } = await createTestStore();
  const deps = createDeps({
    // Audit devices as the test process names them (vitest.config.ts: none), not the stdout default.
    env: {
      ...readEnvironment({}),
      tableName: table,
      audit: { devices: parseAuditDevices(process.env.AUDIT_DEVICES ?? 'none'), logRaw: process.env.AUDIT_LOG_RAW === 'true' },
    },
    store,
    wrapper: new LocalKeyWrapper(randomBytes(32)),
    ...(options.now ? { now: options.now } : {}),
    ...(options.mounts ? { mounts: options.mounts } : {}),
  });
  const engines = options.engines ?? [];
  for (const e of engines) if (e.revoker) deps.revokers.set(e.type, e.revoker(deps));
  const { rootToken } = await initialize(deps);
  const app = engines.length ? localApp(deps, engines) : sysFunctionApp(deps);
  return { deps, app, root: rootToken, table, client };
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: string | Uint8Array;
}

export async function call(app: Hono, method: string, path: string, o: CallOptions = {}) {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers['x-svc-token'] = o.token;
  let body: string | Uint8Array | undefined = o.raw;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  // The shared client's transport and reply reading, on the wire as given (the path as written,
  // LIST as the verb): the tests check what the edge does with exactly this request.
  const r = parseReply(
    await appTransport(app)({ method, url: `http://localhost${path}`, headers, ...(body !== undefined ? { body } : {}) }),
  );
  return { status: r.status, text: r.text, json: r.json, headers: r.headers };
}

/** Creates a token with the given policies (through the API, as a client would). */
export async function tokenWith(svc: TestService, policies: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const r = await call(svc.app, 'POST', '/v1/auth/token/create', { token: svc.root, body: { policies, ...extra } });
  if (r.status !== 200) throw new Error(`token create failed: ${r.text}`);
  return r.json!.auth.client_token as string;
}

/**
 * How many tokens the store holds: their accessor items in the sys partition (a token's accessor
 * is its first item written and its last removed), for checks that a refusal minted none.
 */
export async function tokenCount(svc: TestService): Promise<number> {
  const sys = svc.deps.store.partition('sys');
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await sys.listKeys('accessor/', { limit: 1000, ...(cursor ? { cursor } : {}) });
    n += page.items.length;
    cursor = page.cursor;
  } while (cursor);
  return n;
}
