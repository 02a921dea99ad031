/**
 * A deny on a folder hides its listing (issue 23 item 3), on every listable path the service
 * declares (each `list` operation of sys, auth/token, the auth methods and the engines' mounts;
 * the first test fails when one is added without a case here). For each folder a token holds
 * read and list (and sudo where the list needs it) on a parent glob and `deny` on `<folder>*`:
 * every spelling of the list is refused (LIST with and without the slash, ?list=true on both,
 * hvac's ?list=True), capabilities-self says deny, and a sibling folder, and the same grant
 * without the deny, still list. Every folder holds at least one item, so a wrong 200 would
 * show a name. Then the + and exact-rule cases, and the reads that answer a listing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOUNTS } from '../../../lib/config';
import { ENGINES } from '../../../lib/engine-list';
import { engineRoutes } from '../../../lib/engines';
import { authRoutes } from '../../../lib/auth/methods';
import { sysRoutes } from '../../../lib/sys/app';
import { call } from '../../helpers/service';
import { spellingBench, type SpellingBench } from '../http/spelling-bench';

let bench: SpellingBench;
let n = 0;

const asRoot = (method: string, path: string, body?: unknown) =>
  call(bench.svc.app, method, `/v1/${path}`, { token: bench.svc.root, body });
const as = (token: string, method: string, path: string, body?: unknown) => call(bench.svc.app, method, `/v1/${path}`, { token, body });

async function must(method: string, path: string, body?: unknown) {
  const r = await asRoot(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r;
}

/** A token holding only these rules (no default policy), plus what capabilities-self needs. */
async function holder(rules: Record<string, string[]>): Promise<string> {
  const name = `folder-${++n}`;
  const policy = {
    path: {
      'sys/capabilities-self': { capabilities: ['update'] },
      ...Object.fromEntries(Object.entries(rules).map(([p, c]) => [p, { capabilities: c }])),
    },
  };
  await must('PUT', `sys/policy/${name}`, { policy: JSON.stringify(policy) });
  const r = await must('POST', 'auth/token/create', { policies: [name], no_default_policy: true });
  return r.json!.auth.client_token as string;
}

/** The names a listing answers (root's view): the item a wrong 200 would leak. */
async function keysOf(token: string, folder: string): Promise<string[]> {
  const r = await as(token, 'LIST', folder);
  expect(r.status, `LIST ${folder}: ${r.text}`).toBe(200);
  // cloud-b answers the reference's flat shape, {"keys": [...]}.
  return (r.json!.data?.keys ?? r.json!.keys) as string[];
}

interface Folder {
  /** The listable folder, with its trailing slash. */
  folder: string;
  /** The parent glob granting read and list. */
  grant: string;
  /** The list needs sudo (sys/leases/lookup). */
  sudo?: boolean;
  /** A folder under the same grant, not denied, that lists. */
  sibling?: string;
}

const FOLDERS: Folder[] = [
  { folder: 'pki/roles/', grant: 'pki/*', sibling: 'pki/certs/' },
  { folder: 'pki/certs/', grant: 'pki/*', sibling: 'pki/roles/' },
  // A deny on the revoked folder leaves its parent listing alone.
  { folder: 'pki/certs/revoked/', grant: 'pki/*', sibling: 'pki/certs/' },
  { folder: 'pki/eab/', grant: 'pki/*', sibling: 'pki/roles/' },
  { folder: 'pki/issuers/', grant: 'pki/*', sibling: 'pki/keys/' },
  { folder: 'pki/keys/', grant: 'pki/*', sibling: 'pki/issuers/' },
  { folder: 'pki_int/roles/', grant: 'pki_int/*', sibling: 'pki_int/certs/' },
  { folder: 'pki_int/certs/', grant: 'pki_int/*', sibling: 'pki_int/roles/' },
  { folder: 'pki_int/certs/revoked/', grant: 'pki_int/*', sibling: 'pki_int/certs/' },
  { folder: 'pki_int/eab/', grant: 'pki_int/*', sibling: 'pki_int/roles/' },
  { folder: 'pki_int/issuers/', grant: 'pki_int/*', sibling: 'pki_int/keys/' },
  { folder: 'pki_int/keys/', grant: 'pki_int/*', sibling: 'pki_int/issuers/' },
  { folder: 'ssh/roles/', grant: 'ssh/*', sibling: 'ssh/issuers/' },
  { folder: 'ssh/issuers/', grant: 'ssh/*', sibling: 'ssh/roles/' },
  { folder: 'secret/metadata/', grant: 'secret/*' },
  { folder: 'secret/metadata/team/', grant: 'secret/*', sibling: 'secret/metadata/other/' },
  { folder: 'cloud-a/roles/', grant: 'cloud-a/*' },
  { folder: 'cloud-b/role/', grant: 'cloud-b/*' },
  { folder: 'cloud-b/roles/', grant: 'cloud-b/*' },
  { folder: 'sys/policy/', grant: 'sys/*', sibling: 'sys/policies/acl/' },
  { folder: 'sys/policies/acl/', grant: 'sys/*', sibling: 'sys/policy/' },
  { folder: 'sys/version-history/', grant: 'sys/*', sibling: 'sys/policy/' },
  { folder: 'sys/leases/lookup/', grant: 'sys/*', sudo: true, sibling: 'sys/policy/' },
  { folder: 'sys/leases/lookup/pki/issue/prod/', grant: 'sys/leases/lookup/*', sudo: true, sibling: 'sys/leases/lookup/pki/issue/other/' },
  { folder: 'auth/token/roles/', grant: 'auth/*', sibling: 'auth/approle/role/' },
  { folder: 'auth/approle/role/', grant: 'auth/*', sibling: 'auth/jwt/role/' },
  { folder: 'auth/approle/role/prod/secret-id/', grant: 'auth/approle/*', sibling: 'auth/approle/role/other/secret-id/' },
  { folder: 'auth/aws/role/', grant: 'auth/*', sibling: 'auth/jwt/role/' },
  { folder: 'auth/aws/roles/', grant: 'auth/*', sibling: 'auth/jwt/role/' },
  { folder: 'auth/jwt/role/', grant: 'auth/*', sibling: 'auth/approle/role/' },
];

beforeAll(async () => {
  bench = await spellingBench();
  // PKI, both mounts: a certificate on each role (leased, so the lease folders hold items), one revoked, an EAB key.
  await must('POST', 'pki_int/root/generate/internal', { common_name: 'Folder Int', ttl: '8760h' });
  for (const mount of ['pki', 'pki_int']) {
    for (const name of ['prod', 'other']) {
      await must('POST', `${mount}/roles/${name}`, {
        allowed_domains: 'example',
        allow_subdomains: true,
        max_ttl: '1h',
        generate_lease: true,
      });
      await must('POST', `${mount}/issue/${name}`, { common_name: `a.${name}.example`, ttl: '10m' });
    }
    const doomed = await must('POST', `${mount}/issue/other`, { common_name: 'b.other.example', ttl: '10m' });
    await must('POST', `${mount}/revoke`, { serial_number: doomed.json!.data.serial_number });
    await must('POST', `${mount}/acme/new-eab`);
  }
  // KV: a secret in two folders of secret/.
  for (const path of ['team/db', 'other/api']) await must('POST', `secret/data/${path}`, { data: { v: path } });
  // sys and auth items (a policy of each name, token roles, AppRole roles with secret ids, AWS
  // and JWT roles) come with the spelling bench.
  // Root sees an item in every folder, so each 403 below hides something.
  for (const f of FOLDERS) expect((await keysOf(bench.svc.root, f.folder)).length, f.folder).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  await bench?.close();
});

/** Every way to ask for the listing of `folder` is refused, and nothing in it is named. */
async function expectHidden(token: string, folder: string): Promise<void> {
  const items = await keysOf(bench.svc.root, folder);
  const bare = folder.slice(0, -1);
  for (const [method, path] of [
    ['LIST', folder],
    ['LIST', bare],
    ['GET', `${bare}?list=true`],
    ['GET', `${folder}?list=true`],
    ['GET', `${bare}?list=True`],
  ] as const) {
    const r = await as(token, method, path);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(403);
    for (const item of items) expect(r.text, `${method} ${path}`).not.toContain(item);
  }
  const caps = await as(token, 'POST', 'sys/capabilities-self', { paths: [folder] });
  expect(caps.status, caps.text).toBe(200);
  expect(caps.json!.data[folder], folder).toEqual(['deny']);
}

/** A declared pattern (`:x` one segment, `*x` the rest) as a test on a folder's slash-less path. */
function patternTest(pattern: string): RegExp {
  const segs = pattern
    .split('/')
    .map((s) => (s.startsWith(':') ? '[^/]+' : s.startsWith('*') ? '.+' : s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segs.join('/')}$`);
}

describe('a deny on <folder>/* hides the listing of every listable folder', () => {
  it('the cases below cover every declared list operation', () => {
    const sets = [...sysRoutes({ auth: authRoutes() }), ...engineRoutes(MOUNTS, ENGINES)];
    const declared = sets.flatMap((set) => set.paths.filter((p) => p.operations.list).map((p) => `${set.prefix}/${p.pattern}`));
    expect(declared.length).toBeGreaterThan(15);
    const uncovered = declared.filter((d) => !FOLDERS.some((f) => patternTest(d).test(f.folder.slice(0, -1))));
    expect(uncovered).toEqual([]);
  });

  it.each(FOLDERS)('$folder under $grant', async ({ folder, grant, sudo, sibling }) => {
    const caps = sudo ? ['read', 'list', 'sudo'] : ['read', 'list'];
    const denied = await holder({ [grant]: caps, [`${folder}*`]: ['deny'] });
    await expectHidden(denied, folder);
    if (sibling) expect((await keysOf(denied, sibling)).length, sibling).toBeGreaterThan(0);
    // The same grant without the deny lists the folder: the refusal above is the deny's.
    const open = await holder({ [grant]: caps });
    expect(await keysOf(open, folder)).toEqual(await keysOf(bench.svc.root, folder));
    const openCaps = await as(open, 'POST', 'sys/capabilities-self', { paths: [folder] });
    expect(openCaps.json!.data[folder]).toEqual([...caps].sort());
  });
});

describe('segment wildcards and exact rules on the folder', () => {
  it('a + segment deny (pki/roles/+) hides the listing; the sibling still lists', async () => {
    const t = await holder({ 'pki/*': ['read', 'list'], 'pki/roles/+': ['deny'] });
    await expectHidden(t, 'pki/roles/');
    expect((await keysOf(t, 'pki/certs/')).length).toBeGreaterThan(0);
    // The + matches each role as well: the deny covers the items, not just their names.
    expect((await as(t, 'GET', 'pki/roles/prod')).status).toBe(403);
  });

  it('an exact deny on pki/roles/ hides the listing, and only the listing', async () => {
    const t = await holder({ 'pki/*': ['read', 'list'], 'pki/roles/': ['deny'] });
    await expectHidden(t, 'pki/roles/');
    const role = await as(t, 'GET', 'pki/roles/prod');
    expect(role.status, role.text).toBe(200);
  });

  it('an exact deny on the slash-less pki/roles hides the listing too (the exact rule is tried without the slash)', async () => {
    const t = await holder({ 'pki/*': ['read', 'list'], 'pki/roles': ['deny'] });
    await expectHidden(t, 'pki/roles/');
    const caps = await as(t, 'POST', 'sys/capabilities-self', { paths: ['pki/roles'] });
    expect(caps.json!.data['pki/roles']).toEqual(['deny']);
    expect((await as(t, 'GET', 'pki/roles/prod')).status).toBe(200);
  });

  it("an exact grant on the slash-less pki/roles lists pki/roles/ (the reference's fallback, kept)", async () => {
    const t = await holder({ 'pki/roles': ['list'] });
    expect(await keysOf(t, 'pki/roles/')).toEqual(await keysOf(bench.svc.root, 'pki/roles/'));
  });
});

/** The order of the exact rules, `+` grants on a folder, and the reads that answer a listing. */
describe('the exact rule, + grants and reads that answer a listing', () => {
  // The exact rule of the path as asked comes first, the slash-less one only when there is none
  // (OpenBao's AllowOperation).
  it('an exact deny on pki/roles/ wins over an exact grant on the slash-less pki/roles', async () => {
    const t = await holder({ 'pki/roles': ['read', 'list'], 'pki/roles/': ['deny'] });
    await expectHidden(t, 'pki/roles/');
  });

  // Globs and segment wildcards are matched on the path with its slash first, then, when none
  // matches, on the slash-less path: so pki/+ lists pki/roles/.
  it('a + grant on the folder (auth/approle/role/+/secret-id) lists it', async () => {
    const t = await holder({ 'auth/approle/role/+/secret-id': ['list'] });
    expect((await keysOf(t, 'auth/approle/role/prod/secret-id/')).length).toBeGreaterThan(0);
  });

  // These lists answer a plain GET too (declared readLists): the read is refused where the
  // listing <folder>/ is denied, so the names stay hidden under every method.
  for (const [grant, path] of [
    ['ssh/*', 'ssh/roles'],
    ['cloud-b/*', 'cloud-b/role'],
    ['auth/*', 'auth/aws/role'],
    ['auth/*', 'auth/aws/roles'],
    ['sys/*', 'sys/policy/'],
  ] as const) {
    it(`a plain GET ${path} does not list past a deny on ${path.replace(/\/$/, '')}/*`, async () => {
      const folder = `${path.replace(/\/$/, '')}/`;
      const t = await holder({ [grant]: ['read', 'list'], [`${folder}*`]: ['deny'] });
      const items = await keysOf(bench.svc.root, folder);
      const r = await as(t, 'GET', path);
      expect(r.status, r.text).not.toBe(200);
      for (const item of items) expect(r.text).not.toContain(item);
    });
  }
});
