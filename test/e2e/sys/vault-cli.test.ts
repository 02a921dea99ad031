/**
 * The requests the vault CLI makes, replayed over real HTTP exactly as its Go client sends them
 * (method, path, query, body, headers), and each answer's shape checked against Vault's API
 * documentation (website/content/api-docs/system/*.mdx, secret/kv/kv-v2.mdx).
 *
 * Sources (hashicorp/vault; OpenBao's bao CLI sends the same, internal/command/ and api/):
 * - every request: api/client.go `NewClient` adds `X-Vault-Request: true` to the client's headers,
 *   api/request.go `toRetryableHTTP` sets `X-Vault-Token`; `SetJSONBody` sends JSON with no
 *   Content-Type (Go's client adds only User-Agent and Accept-Encoding).
 * - reads: api/logical.go `Logical.Read` GET /v1/<path>; writes: `Logical.Write` PUT /v1/<path>
 *   with a JSON body; lists: `Logical.List` GET /v1/<path>?list=true (the LIST verb is rewritten to
 *   GET for "broader compatibility").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOUNTS } from '../../../lib/config';
import { loadEngines } from '../../../lib/engines';
import { listen, type Served } from '../../../lib/local/http-server';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let svc: TestService;
let server: Served;

/** One request as the vault CLI's Go client sends it. */
async function cli(method: 'GET' | 'PUT' | 'POST', path: string, token: string | undefined, body?: unknown) {
  const headers: Record<string, string> = { 'X-Vault-Request': 'true', 'User-Agent': 'Go-http-client/1.1', 'Accept-Encoding': 'gzip' };
  if (token) headers['X-Vault-Token'] = token;
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as Json };
}

/** Vault's response envelope (api/secret.go `Secret`), its data as `data`. */
const envelope = (data: unknown) => ({
  request_id: expect.any(String),
  lease_id: '',
  renewable: false,
  lease_duration: 0,
  data,
  wrap_info: null,
  warnings: null,
  auth: null,
});

const KV_MOUNTED = MOUNTS.some((m) => m.path === 'secret' && m.type === 'kv');

async function policy(name: string, paths: Record<string, string[]>): Promise<void> {
  const doc = { path: Object.fromEntries(Object.entries(paths).map(([p, capabilities]) => [p, { capabilities }])) };
  const r = await call(svc.app, 'PUT', `/v1/sys/policy/${name}`, { token: svc.root, body: { policy: JSON.stringify(doc) } });
  expect(r.status).toBe(204);
}

beforeAll(async () => {
  svc = await createTestService({ engines: await loadEngines() });
  server = await listen(svc.app.fetch, { port: 0 });
});

afterAll(async () => {
  await server?.close();
});

describe('vault status', () => {
  // command/status.go `StatusCommand.Run`: api/sys_seal.go `Sys.SealStatus` GET /v1/sys/seal-status,
  // then (command/format.go `buildSealStatusOutput` in current releases) api/sys_leader.go `Sys.Leader` GET /v1/sys/leader.
  it('reads sys/seal-status then sys/leader: unsealed, HA not enabled (seal-status.mdx, leader.mdx)', async () => {
    const token = await tokenWith(svc, ['default']);
    const seal = await cli('GET', '/v1/sys/seal-status', token);
    expect(seal.status).toBe(200);
    expect(seal.json).toMatchObject({
      type: expect.any(String),
      initialized: true,
      sealed: false,
      t: expect.any(Number),
      n: expect.any(Number),
      progress: 0,
      nonce: expect.any(String),
      version: expect.any(String),
      migration: false,
      recovery_seal: expect.any(Boolean),
      storage_type: expect.any(String),
    });
    const leader = await cli('GET', '/v1/sys/leader', token);
    expect(leader.status).toBe(200);
    // api/sys_leader.go `LeaderResponse`: the fields it decodes, with their types.
    expect(leader.json).toEqual({
      ha_enabled: false,
      is_self: false,
      active_time: '0001-01-01T00:00:00Z',
      leader_address: '',
      leader_cluster_address: '',
      performance_standby: false,
      performance_standby_last_remote_wal: 0,
    });
  });

  it('sys/leader needs a token (Latchkey serves only sys/health and sys/seal-status without one) and a policy can deny it', async () => {
    expect((await cli('GET', '/v1/sys/leader', undefined)).status).toBe(403);
    await policy('no-leader', { 'sys/leader': ['deny'] });
    const denied = await tokenWith(svc, ['default', 'no-leader']);
    expect((await cli('GET', '/v1/sys/leader', denied)).status).toBe(403);
  });
});

describe('vault token capabilities', () => {
  // command/token_capabilities.go `TokenCapabilitiesCommand.Run` → api/sys_capabilities.go
  // `Sys.CapabilitiesWithContext`: POST /v1/sys/capabilities-self when the token is the client's own,
  // else /v1/sys/capabilities, body {"token", "path"} either way; it reads data[path], then data.capabilities.
  it('PATH alone: POST sys/capabilities-self with the caller token and the path (capabilities-self.mdx)', async () => {
    await policy('app-read', { 'secret/data/app/*': ['read', 'list'] });
    const token = await tokenWith(svc, ['default', 'app-read']);
    const path = 'secret/data/app/db';
    const r = await cli('POST', '/v1/sys/capabilities-self', token, { token, path });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ data: { [path]: ['list', 'read'], capabilities: ['list', 'read'] } });
    expect(r.json).toMatchObject({ [path]: ['list', 'read'], capabilities: ['list', 'read'] });
    const none = await cli('POST', '/v1/sys/capabilities-self', token, { token, path: 'secret/data/other' });
    expect(none.json.data).toEqual({ 'secret/data/other': ['deny'], capabilities: ['deny'] });
    const root = await cli('POST', '/v1/sys/capabilities-self', svc.root, { token: svc.root, path });
    expect(root.json.data).toEqual({ [path]: ['root'], capabilities: ['root'] });
  });

  it('TOKEN PATH: POST sys/capabilities with the other token (capabilities.mdx); an unknown token is 400', async () => {
    await policy('app-write', { 'secret/data/app/*': ['create', 'update'], 'secret/data/app/locked': ['deny'] });
    const other = await tokenWith(svc, ['app-write']);
    const r = await cli('POST', '/v1/sys/capabilities', svc.root, { token: other, path: 'secret/data/app/db' });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ 'secret/data/app/db': ['create', 'update'], capabilities: ['create', 'update'] });
    const locked = await cli('POST', '/v1/sys/capabilities', svc.root, { token: other, path: 'secret/data/app/locked' });
    expect(locked.json.data.capabilities).toEqual(['deny']);
    const bad = await cli('POST', '/v1/sys/capabilities', svc.root, { token: 'hvs.nosuchtoken', path: 'x' });
    expect(bad).toMatchObject({ status: 400, json: { errors: ['invalid token'] } });
    // An ordinary path: a default-policy token may not ask about another token.
    const plain = await tokenWith(svc, ['default']);
    expect((await cli('POST', '/v1/sys/capabilities', plain, { token: other, path: 'x' })).status).toBe(403);
  });

  it('sys/capabilities-accessor answers by accessor, several paths at once without `capabilities` (capabilities-accessor.mdx)', async () => {
    const other = await call(svc.app, 'POST', '/v1/auth/token/create', { token: svc.root, body: { policies: ['app-write'] } });
    const accessor = other.json!.auth.accessor as string;
    const paths = ['secret/data/app/db', 'secret/data/app/locked', 'pki/issue/x'];
    const r = await cli('POST', '/v1/sys/capabilities-accessor', svc.root, { accessor, paths });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({
      'secret/data/app/db': ['create', 'update'],
      'secret/data/app/locked': ['deny'],
      'pki/issue/x': ['deny'],
    });
    const bad = await cli('POST', '/v1/sys/capabilities-accessor', svc.root, { accessor: 'nope', paths });
    expect(bad).toMatchObject({ status: 400, json: { errors: ['invalid accessor'] } });
    expect((await cli('POST', '/v1/sys/capabilities-accessor', svc.root, { accessor, paths: [] })).status).toBe(400);
  });
});

describe('vault list', () => {
  // command/list.go `ListCommand.Run`: appends "/", then sanitizePath drops it; api/logical.go
  // `Logical.List` sends GET /v1/<path>?list=true.
  it('GET sys/policies/acl?list=true answers data.keys (policies.mdx)', async () => {
    const r = await cli('GET', '/v1/sys/policies/acl?list=true', svc.root);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject(envelope({ keys: expect.arrayContaining(['default', 'app-read']) }));
  });
});

describe.runIf(KV_MOUNTED)('vault kv put / get / metadata get / list on secret/ (KV version 2)', () => {
  let token: string;
  beforeAll(async () => {
    await policy('kv-app', { 'secret/data/app/*': ['create', 'read', 'update'], 'secret/metadata/app/*': ['read', 'list'] });
    token = await tokenWith(svc, ['default', 'kv-app']);
  });

  // command/kv_helpers.go `kvPreflightVersionRequest`: GET /v1/sys/internal/ui/mounts/<path as given>;
  // it reads data.path (the mount) and data.options.version ("2": the data/ and metadata/ prefixes);
  // a 404 means "an old server: version 1", any other error stops the command.
  const preflight = async (path: string) => {
    const r = await cli('GET', `/v1/sys/internal/ui/mounts/${path}`, token);
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ path: 'secret/', type: 'kv', options: { version: '2' }, accessor: expect.any(String) });
    expect(r.json.data).toMatchObject({ config: expect.any(Object), description: expect.any(String), local: false, seal_wrap: false });
    return r;
  };

  it('kv put secret/app/db: preflight, then PUT secret/data/app/db {"data", "options": {}} (kv-v2.mdx, Create/Update Secret)', async () => {
    await preflight('secret/app/db');
    // command/kv_put.go `KVPutCommand.Run`: addPrefixToKVPath(…, "data"), body {"data": {...}, "options": {}}.
    const r = await cli('PUT', '/v1/secret/data/app/db', token, { data: { user: 'admin', pass: 's3cret' }, options: {} });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({
      created_time: expect.any(String),
      custom_metadata: null,
      deletion_time: '',
      destroyed: false,
      version: 1,
    });
  });

  it('kv get secret/app/db: preflight, then GET secret/data/app/db (kv-v2.mdx, Read Secret Version)', async () => {
    await preflight('secret/app/db');
    // command/kv_get.go `KVGetCommand.Run` → command/kv_helpers.go `kvReadRequest`: GET, with ?version=N only for -version.
    const r = await cli('GET', '/v1/secret/data/app/db', token);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({
      data: { user: 'admin', pass: 's3cret' },
      metadata: { created_time: expect.any(String), custom_metadata: null, deletion_time: '', destroyed: false, version: 1 },
    });
    // A missing secret: 404, which kvReadRequest takes for "No value found".
    expect((await cli('GET', '/v1/secret/data/app/missing', token)).status).toBe(404);
  });

  it('kv metadata get secret/app/db: preflight, then GET secret/metadata/app/db (kv-v2.mdx, Read Secret Metadata)', async () => {
    await preflight('secret/app/db');
    // command/kv_metadata_get.go `KVMetadataGetCommand.Run`: addPrefixToKVPath(…, "metadata") → Logical.Read.
    const r = await cli('GET', '/v1/secret/metadata/app/db', token);
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({
      cas_required: false,
      created_time: expect.any(String),
      current_version: 1,
      delete_version_after: expect.any(String),
      max_versions: expect.any(Number),
      oldest_version: expect.any(Number),
      updated_time: expect.any(String),
      versions: { '1': { created_time: expect.any(String), deletion_time: '', destroyed: false } },
    });
    expect(r.json.data).toHaveProperty('custom_metadata');
  });

  it('list secret/metadata/app: GET ?list=true answers the keys (kv-v2.mdx, List Secrets)', async () => {
    const r = await cli('GET', '/v1/secret/metadata/app?list=true', token);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ keys: ['db'] });
  });

  it('the preflight for the mount itself and a deeper path answer the same mount', async () => {
    const a = await preflight('secret');
    const b = await preflight('secret/app/a/b/c');
    expect(b.json.data).toEqual(a.json.data);
  });
});

describe('sys/internal/ui/mounts: what the preflight meets when it cannot go on', () => {
  it('a path under no mount is 403 with Vault\u2019s preflight words (so mounts cannot be probed)', async () => {
    const r = await cli('GET', '/v1/sys/internal/ui/mounts/nonexistent/x', svc.root);
    expect(r).toMatchObject({ status: 403, json: { errors: [expect.stringContaining('preflight capability check returned 403')] } });
    expect(r.json.errors[0]).toContain('"nonexistent/x/"');
  });

  it('a mount the token reaches nothing under is 403; no token is 403', async () => {
    const plain = await tokenWith(svc, ['default']);
    const r = await cli('GET', '/v1/sys/internal/ui/mounts/pki/roles/x', plain);
    expect(r.status).toBe(403);
    expect(r.json.errors[0]).toContain('preflight capability check returned 403');
    expect((await cli('GET', '/v1/sys/internal/ui/mounts/pki', undefined)).status).toBe(403);
  });

  it('a grant anywhere under the mount is enough, without a rule on the sys path (internal-ui-mounts.mdx)', async () => {
    await policy('pki-issue', { 'pki/issue/web': ['update'] });
    const t = await tokenWith(svc, ['pki-issue']);
    const r = await cli('GET', '/v1/sys/internal/ui/mounts/pki/issue/web', t);
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ path: 'pki/', type: 'pki', options: null });
  });

  it('GET sys/internal/ui/mounts lists only the mounts the token reaches, secret and auth (internal-ui-mounts.mdx)', async () => {
    await policy('pki-issue', { 'pki/issue/web': ['update'] });
    const t = await tokenWith(svc, ['default', 'pki-issue']);
    const r = await cli('GET', '/v1/sys/internal/ui/mounts', t);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.data.secret)).toEqual(['pki/']);
    expect(r.json.data.secret['pki/']).toMatchObject({ type: 'pki', description: expect.any(String), options: null });
    // The default policy reaches auth/token/ (lookup-self and friends).
    expect(Object.keys(r.json.data.auth)).toEqual(['token/']);
    const all = await cli('GET', '/v1/sys/internal/ui/mounts', svc.root);
    expect(Object.keys(all.json.data.secret).sort()).toEqual(MOUNTS.map((m) => `${m.path}/`).sort());
    expect(Object.keys(all.json.data.auth)).toContain('approle/');
  });
});

describe('other sys calls clients make', () => {
  it('sys/mounts lists every mount, the KV ones with their options (mounts.mdx)', async () => {
    const r = await cli('GET', '/v1/sys/mounts', svc.root);
    expect(Object.keys(r.json.data).sort()).toEqual(MOUNTS.map((m) => `${m.path}/`).sort());
    for (const m of MOUNTS) expect(r.json.data[`${m.path}/`]).toMatchObject({ type: m.type, options: m.options ?? null });
  });

  it('sys/key-status: term and install_time (key-status.mdx)', async () => {
    const r = await cli('GET', '/v1/sys/key-status', svc.root);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ term: 1, install_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/) });
    expect(Date.parse(r.json.data.install_time)).not.toBeNaN();
  });

  it('LIST sys/version-history: the running version with its install time (version-history.mdx)', async () => {
    const r = await cli('GET', '/v1/sys/version-history?list=true', svc.root);
    expect(r.status).toBe(200);
    const { version } = (await cli('GET', '/v1/sys/seal-status', undefined)).json;
    expect(r.json.data).toEqual({
      keys: [version],
      key_info: {
        [version]: {
          timestamp_installed: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
          previous_version: null,
          commit_date: null,
        },
      },
    });
  });

  it('sys/host-info is a 400 saying why (no host on Lambda)', async () => {
    const r = await cli('GET', '/v1/sys/host-info', svc.root);
    expect(r).toMatchObject({ status: 400, json: { errors: [expect.stringContaining('Lambda')] } });
  });

  it('each is an ordinary authenticated path: a token without a grant is refused', async () => {
    const plain = await tokenWith(svc, ['default']);
    for (const p of ['/v1/sys/key-status', '/v1/sys/version-history?list=true', '/v1/sys/host-info'])
      expect((await cli('GET', p, plain)).status, p).toBe(403);
    expect((await cli('POST', '/v1/sys/capabilities-self', plain, { paths: ['x'] })).status).toBe(200);
  });
});
