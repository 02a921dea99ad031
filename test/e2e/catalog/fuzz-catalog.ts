/**
 * Fuzz sys + the catalog alone (no engines), on the test store:
 *   npx tsx test/e2e/catalog/fuzz-catalog.ts [--acl] --seconds 120 --seed 1
 * `npm run fuzz` is the whole-service run; this one does not load the engine list, and with
 * `--acl` serves the catalog with ACLs on (default deny) and the fuzzer's token as the default
 * token, so every request goes through the policy checks. The fuzzer sends its token as
 * X-Svc-Token, which the catalog does not read, hence the default token. Its token may not
 * renew or revoke itself: the default policy's exact `auth/token/renew-self` and
 * `revoke-self` rules are more specific than a `revoke*` glob, so they are denied by name.
 */
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createCatalogApp } from '../../../lib/catalog/app';
import { catalogRouteSets } from '../../../lib/catalog/routes';
import { parseCatalogSettings } from '../../../lib/catalog/settings';
import { setLogLevel } from '../../../lib/log';
import { functionFor } from '../../../lib/routing';
import { sysFunctionApp } from '../../../lib/sys-function';
import { call, createTestService } from '../../helpers/service';

const FUZZER = resolve(import.meta.dirname, '../../tools/fuzz.ts');
setLogLevel('silent');
const acl = process.argv.includes('--acl');
const args = process.argv.slice(2).filter((a) => a !== '--acl');

const svc = await createTestService();
const sys = sysFunctionApp(svc.deps, async () => catalogRouteSets());
const deny = { capabilities: ['deny'] };
const policy = {
  path: {
    '*': { capabilities: ['create', 'read', 'update', 'delete', 'list', 'sudo'] },
    'auth/token/revoke*': deny,
    'auth/token/renew*': deny,
    'auth/token/renew-self': deny,
    'auth/token/revoke-self': deny,
    'sys/policy/fuzzer': deny,
  },
};
await call(sys, 'PUT', '/v1/sys/policy/fuzzer', { token: svc.root, body: { policy: JSON.stringify(policy) } });
const token = (await call(sys, 'POST', '/v1/auth/token/create', { token: svc.root, body: { policies: ['fuzzer'], ttl: '24h' } })).json!.auth
  .client_token as string;
const settings = parseCatalogSettings(
  acl ? { acl: { enabled: true, default_policy: 'deny', tokens: { default: token } } } : { acl: { enabled: false } },
  {},
);
const catalog = createCatalogApp(svc.deps, settings);

const app = new Hono();
const catalogStatuses: Record<string, number> = {};
app.all('*', async (c) => {
  if (functionFor(new URL(c.req.url).pathname, []) !== 'catalog') return sys.fetch(c.req.raw);
  const res = await catalog.fetch(c.req.raw);
  const label = res.status === 403 ? `403 ${await res.clone().text()}` : String(res.status);
  catalogStatuses[label] = (catalogStatuses[label] ?? 0) + 1;
  return res;
});
const server = createAdaptorServer({ fetch: app.fetch });
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
const { port } = server.address() as AddressInfo;
const child = spawn(process.execPath, ['--import', 'tsx', FUZZER, '--base', `http://127.0.0.1:${port}`, '--token', token, ...args], {
  stdio: 'inherit',
});
const code = await new Promise<number>((done) => child.on('exit', (c) => done(c ?? 1)));
await new Promise<void>((r) => server.close(() => r()));
const total = Object.values(catalogStatuses).reduce((a, b) => a + b, 0);
console.log(`catalog: ${total} requests, statuses ${JSON.stringify(catalogStatuses)}`);
process.exit(code);
