/**
 * The functions of serverless.yml, generated from infra/mounts.json (the same file lib/config.ts
 * reads): `sys`, one function per engine type whose functions/<type>.ts exists, routed from
 * every mount of that type, the catalog when functions/catalog.ts exists, and the sweeper.
 * The path -> function rule is lib/routing.ts's; test/lambda/package.test.ts checks they agree.
 */
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { readSettings } = require('./settings.cjs');

const ROOT = join(__dirname, '..');
/** The fixed prefixes of sys and the catalog: infra/surfaces.json, the file lib/config.ts and lib/routing.ts read. */
const { sys_prefixes: SYS_PREFIXES, catalog_prefixes: CATALOG_PREFIXES } = require('./surfaces.json');

const hasSource = (name) => existsSync(join(ROOT, 'functions', `${name}.ts`));
const routes = (prefixes) => prefixes.map((p) => ({ httpApi: { method: 'ANY', path: `/v1/${p}/{proxy+}` } }));

function readMounts(file = join(__dirname, 'mounts.json')) {
  return JSON.parse(readFileSync(file, 'utf8')).mounts;
}

/** { functionName: [path prefixes] } for the functions that exist. */
function routeTable(mounts = readMounts(), exists = hasSource) {
  const table = { sys: SYS_PREFIXES };
  for (const m of mounts) {
    // Two functions on one prefix would be two identical API Gateway routes: fail here, not at deploy.
    if ([...SYS_PREFIXES, ...CATALOG_PREFIXES].includes(m.path)) throw new Error(`mount path "${m.path}" is reserved`);
    if (!exists(m.type)) continue;
    (table[m.type] ??= []).push(m.path);
  }
  if (exists('catalog')) table.catalog = [...(table.catalog ?? []), ...CATALOG_PREFIXES];
  return table;
}

const http = (name, prefixes) => ({
  handler: `functions/${name}.handler`,
  description: `Latchkey ${name}: /v1/${prefixes.join(', /v1/')}`,
  memorySize: 512,
  timeout: 29,
  events: routes(prefixes),
});

/** The functions sys and the sweeper invoke (engines and the catalog), by name. */
function invokedFunctions(mounts = readMounts(), exists = hasSource) {
  return Object.keys(routeTable(mounts, exists)).filter((n) => n !== 'sys');
}

/**
 * LATCHKEY_FUNCTIONS for sys and the sweeper: engine type -> deployed function name
 * (the framework names functions <service>-<stage>-<name>, i.e. <stack name>-<name>).
 */
function functionsEnvironment(mounts = readMounts(), exists = hasSource) {
  const map = Object.fromEntries(invokedFunctions(mounts, exists).map((n) => [n, `\${AWS::StackName}-${n}`]));
  return { LATCHKEY_FUNCTIONS: { 'Fn::Sub': JSON.stringify(map) } };
}

/** The role of each function (infra/iam.cjs): "cloud-a-rotate" -> "LatchkeyCloudARotateRole". */
const roleLogicalId = (name) =>
  `Latchkey${name
    .split('-')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('')}Role`;

/** Each function's own role, its reserved concurrency (a setting) and, for PKI, its managed keys. */
function withSettings(out, settings) {
  for (const name of Object.keys(settings.reservedConcurrency)) {
    if (!out[name]) throw new Error(`infra/settings.json: reserved_concurrency names an unknown function ${JSON.stringify(name)}`);
  }
  const managed = Object.keys(settings.managedKeys).length ? JSON.stringify(settings.managedKeys) : undefined;
  for (const [name, fn] of Object.entries(out)) {
    fn.role = roleLogicalId(name);
    if (settings.reservedConcurrency[name] !== undefined) fn.reservedConcurrency = settings.reservedConcurrency[name];
    if (managed && (name === 'pki' || name === 'pki-tidy')) fn.environment = { ...fn.environment, MANAGED_KEYS: managed };
  }
  return out;
}

function buildFunctions(mounts = readMounts(), exists = hasSource, settings = readSettings()) {
  const out = {};
  for (const [name, prefixes] of Object.entries(routeTable(mounts, exists))) out[name] = http(name, prefixes);
  out.sys.environment = functionsEnvironment(mounts, exists);
  out.sweeper = {
    handler: 'functions/sweeper.handler',
    description: 'Latchkey lease sweeper: revokes due leases, drops expired tokens',
    memorySize: 256,
    // The sweep keeps 5 s of its remaining time; under a minute so runs do not overlap much.
    timeout: 55,
    events: [{ schedule: 'rate(1 minute)' }],
    environment: functionsEnvironment(mounts, exists),
  };
  if (exists('pki-tidy')) {
    out['pki-tidy'] = {
      handler: 'functions/pki-tidy.handler',
      description:
        'Latchkey PKI schedule: due tidies (config/auto-tidy) and CRL rebuilds (config/crl auto_rebuild, enable_delta), tidies cut short resumed',
      // 512 MB: a complete CRL of 100,000 revocations adds about 100 MB while it is built (BENCHMARKS.md).
      memorySize: 512,
      timeout: 300,
      events: [{ schedule: 'rate(5 minutes)' }],
    };
  }
  if (exists('ssh-tidy')) {
    out['ssh-tidy'] = {
      handler: 'functions/ssh-tidy.handler',
      description: 'Latchkey SSH tidy: removes the records of long-expired certificates, so the KRL stops naming them',
      memorySize: 256,
      timeout: 300,
      events: [{ schedule: 'rate(1 hour)' }],
    };
  }
  if (exists('cloud-a-rotate')) {
    out['cloud-a-rotate'] = {
      handler: 'functions/cloud-a-rotate.handler',
      description: 'Latchkey cloud-A rotate-root finalisation: switches to a new root secret once accepted, removes the old ones',
      memorySize: 256,
      timeout: 60,
      events: [{ schedule: 'rate(5 minutes)' }],
    };
  }
  return withSettings(out, settings);
}

module.exports = {
  CATALOG_PREFIXES,
  SYS_PREFIXES,
  readMounts,
  routeTable,
  invokedFunctions,
  roleLogicalId,
  buildFunctions,
  functions: buildFunctions(),
};
