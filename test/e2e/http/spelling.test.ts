/**
 * No item may be reachable under a spelling the policy check does not see (issue 11, defect 4).
 * For every engine's named items, a token holding only `allow <mount>/<items>/*, deny
 * <mount>/<items>/prod` tries the denied item under other spellings: case, percent-encoding,
 * trailing and encoded slashes, double slashes, dot segments. Reads and actions must be refused
 * with a 4xx; writes and deletes may create or remove another item, never touch `prod`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountPartition } from '../../../lib/mount-partition';
import { SshStore } from '../../../lib/ssh/ssh-store';
import { call } from '../../helpers/service';
import { spellingBench, tokenForPolicy, type SpellingBench } from './spelling-bench';

let b: SpellingBench;
beforeAll(async () => {
  b = await spellingBench();
}, 60_000);
afterAll(() => b?.close());

const ALL = ['create', 'read', 'update', 'delete', 'list'];

/** The ways to write `<items>/<name>` (and the mount) other than the canonical one. */
export function spellings(mount: string, items: string, name: string): string[] {
  const enc = (c: string) => `%${c.charCodeAt(0).toString(16)}`;
  const cap = name[0]!.toUpperCase() + name.slice(1);
  const tails = [
    `${items}/${name.toUpperCase()}`,
    `${items}/${cap}`,
    `${items.toUpperCase()}/${name}`,
    `${items}/${enc(name[0]!)}${name.slice(1)}`,
    `${items}/${name.slice(0, -1)}${enc(name.at(-1)!).toUpperCase()}`,
    `${items}/${name}/`,
    `${items}/${name}%2F`,
    `${items}/${name}//`,
    `${items}//${name}`,
    `${items}%2F${name}`,
    `${items}/./${name}`,
    `${items}/%2E/${name}`,
    `${items}/.%2F${name}`,
    `${items}/${name}/.`,
    `${items}/x/../${name}`,
    `${items}/x/%2e%2e/${name}`,
    `${items}/x%2F..%2F${name}`,
    `${items}/${name}%20`,
    `${items}/%20${name}`,
    `${items}/${name}%00`,
  ];
  const mounts = [mount.toUpperCase(), `${enc(mount[0]!)}${mount.slice(1)}`];
  return [...tails.map((t) => `${mount}/${t}`), ...mounts.map((m) => `${m}/${items}/${name}`)];
}

interface ItemCase {
  label: string;
  mount: string;
  items: string;
  name: string;
  other: string;
  read?: boolean;
  /** An operation that must never run for the denied item (issue, sign, creds). */
  action?: { method: 'GET' | 'POST'; body?: () => unknown };
  write?: () => unknown;
  del?: boolean;
  /** What the denied item is, read with root; writes and deletes must leave it as it was. */
  snapshot?: () => Promise<unknown>;
}

const rootRead = (path: string) => async () => {
  const r = await call(b.svc.app, 'GET', `/v1/${path}`, { token: b.svc.root });
  return { status: r.status, data: r.json?.data ?? r.json };
};

const CASES: ItemCase[] = [
  {
    label: 'pki roles',
    mount: 'pki',
    items: 'roles',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ allowed_domains: 'evil.example', allow_any_name: true }),
    snapshot: rootRead('pki/roles/prod'),
  },
  {
    label: 'pki config',
    mount: 'pki',
    items: 'config',
    name: 'urls',
    other: 'crl',
    read: true,
    write: () => ({ issuing_certificates: 'http://evil.example/ca' }),
    snapshot: rootRead('pki/config/urls'),
  },
  {
    label: 'pki issue',
    mount: 'pki',
    items: 'issue',
    name: 'prod',
    other: 'other',
    action: { method: 'POST', body: () => ({ common_name: 'www.prod.example' }) },
  },
  {
    label: 'pki sign',
    mount: 'pki',
    items: 'sign',
    name: 'prod',
    other: 'other',
    action: { method: 'POST', body: () => ({ csr: b.csr, common_name: 'www.prod.example' }) },
  },
  {
    label: 'pki sign-verbatim',
    mount: 'pki',
    items: 'sign-verbatim',
    name: 'prod',
    other: 'other',
    action: { method: 'POST', body: () => ({ csr: b.csr }) },
  },
  {
    label: 'ssh roles',
    mount: 'ssh',
    items: 'roles',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ key_type: 'ca', allow_user_certificates: true, allowed_users: 'root', default_user: 'root' }),
    snapshot: rootRead('ssh/roles/prod'),
  },
  {
    label: 'ssh sign',
    mount: 'ssh',
    items: 'sign',
    name: 'prod',
    other: 'other',
    action: { method: 'POST', body: () => ({ public_key: b.sshPublicKey }) },
  },
  {
    label: 'ssh creds',
    mount: 'ssh',
    items: 'creds',
    name: 'prod-otp',
    other: 'other-otp',
    action: { method: 'POST', body: () => ({ ip: '10.1.2.3' }) },
  },
  {
    label: 'ssh keys',
    mount: 'ssh',
    items: 'keys',
    name: 'prod',
    other: 'other',
    del: true,
    write: () => ({ key: b.otherAdminKey }),
    snapshot: async () => (await new SshStore(b.svc.deps, mountPartition(b.svc.deps, 'ssh', 'ssh')).getKey('prod')) ?? 'gone',
  },
  {
    label: 'cloud-a roles',
    mount: 'cloud-a',
    items: 'roles',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ ttl: 60 }),
    snapshot: rootRead('cloud-a/roles/prod'),
  },
  { label: 'cloud-a creds', mount: 'cloud-a', items: 'creds', name: 'prod', other: 'other', action: { method: 'GET' } },
  {
    label: 'cloud-b role',
    mount: 'cloud-b',
    items: 'role',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ ttl: 60 }),
    snapshot: rootRead('cloud-b/role/prod'),
  },
  { label: 'cloud-b creds', mount: 'cloud-b', items: 'creds', name: 'prod', other: 'other', action: { method: 'GET' } },
  {
    label: 'sys policies',
    mount: 'sys',
    items: 'policy',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ policy: JSON.stringify({ path: { 'x/*': { capabilities: ['read'] } } }) }),
    snapshot: rootRead('sys/policy/prod'),
  },
  {
    label: 'sys policies (acl)',
    mount: 'sys',
    items: 'policies/acl',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ policy: JSON.stringify({ path: { 'x/*': { capabilities: ['read'] } } }) }),
    snapshot: rootRead('sys/policies/acl/prod'),
  },
  {
    label: 'token roles',
    mount: 'auth/token',
    items: 'roles',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ allowed_policies: 'x' }),
    snapshot: rootRead('auth/token/roles/prod'),
  },
  {
    label: 'approle roles',
    mount: 'auth/approle',
    items: 'role',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ token_policies: 'x' }),
    snapshot: rootRead('auth/approle/role/prod'),
  },
  {
    label: 'aws roles',
    mount: 'auth/aws',
    items: 'role',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ bound_iam_principal_arn: 'arn:aws:iam::123456789012:role/x' }),
    snapshot: rootRead('auth/aws/role/prod'),
  },
  {
    label: 'jwt roles',
    mount: 'auth/jwt',
    items: 'role',
    name: 'prod',
    other: 'other',
    read: true,
    del: true,
    write: () => ({ role_type: 'jwt', user_claim: 'sub', bound_audiences: 'x' }),
    snapshot: rootRead('auth/jwt/role/prod'),
  },
];

const tokens = new Map<string, string>();
async function tokenFor(c: ItemCase): Promise<string> {
  if (!tokens.has(c.label)) {
    const policy = `spelling-${c.label.replace(/\W+/g, '-')}`;
    tokens.set(
      c.label,
      await tokenForPolicy(b.svc, policy, { [`${c.mount}/${c.items}/*`]: ALL, [`${c.mount}/${c.items}/${c.name}`]: ['deny'] }),
    );
  }
  return tokens.get(c.label)!;
}

const send = (token: string, method: string, path: string, body?: unknown) =>
  call(b.svc.app, method, `/v1/${path}`, { token, ...(body !== undefined ? { body } : {}) });
const refused = (r: { status: number }) => r.status >= 400 && r.status < 500;
const describeFailure = (path: string, method: string, r: { status: number; text: string }) =>
  `${method} ${path} answered ${r.status} ${r.text.slice(0, 200)}`;

describe.each(CASES)('$label: a deny on the canonical name holds under every other spelling', (c) => {
  it('the policy works: the other item is served, the denied one is 403', async () => {
    const token = await tokenFor(c);
    const [method, body] = c.read ? ['GET', undefined] : [c.action?.method ?? 'POST', c.action?.body?.() ?? c.write?.()];
    if (c.read || c.action) expect((await send(token, method, `${c.mount}/${c.items}/${c.other}`, body)).status).toBeLessThan(300);
    expect((await send(token, method, `${c.mount}/${c.items}/${c.name}`, body)).status).toBe(403);
  });

  it.runIf(c.read || c.action)('reads and actions under another spelling are refused with a 4xx', async () => {
    const token = await tokenFor(c);
    const method = c.read ? 'GET' : c.action!.method;
    for (const path of spellings(c.mount, c.items, c.name)) {
      const r = await send(token, method, path, c.action?.body?.());
      expect(refused(r), describeFailure(path, method, r)).toBe(true);
    }
  });
});

describe.each(CASES.filter((c) => c.write || c.del))(
  '$label: writes and deletes under another spelling leave the denied item alone',
  (c) => {
    it('never changes or removes it', async () => {
      const token = await tokenFor(c);
      const before = await c.snapshot!();
      for (const path of spellings(c.mount, c.items, c.name)) {
        for (const [method, body] of [...(c.write ? [['POST', c.write()]] : []), ...(c.del ? [['DELETE', undefined]] : [])] as [
          string,
          unknown,
        ][]) {
          const r = await send(token, method, path, body);
          expect(r.status, describeFailure(path, method, r)).toBeLessThan(500);
          expect(await c.snapshot!(), describeFailure(path, method, r)).toEqual(before);
        }
      }
    });
  },
);

describe('one decoded path for routing and authorisation', () => {
  it('the local dispatcher routes the decoded path, as the function does: /v1/sy%73/mounts is sys/mounts', async () => {
    const plain = await call(b.svc.app, 'GET', '/v1/sys/mounts', { token: b.svc.root });
    const encoded = await call(b.svc.app, 'GET', '/v1/sy%73/mounts', { token: b.svc.root });
    expect(encoded.status).toBe(200);
    expect(encoded.json!.data).toEqual(plain.json!.data);
  });

  it('an encoded mount or slash reaches the same item and the same policy check', async () => {
    const token = await tokenFor(CASES.find((c) => c.label === 'cloud-b role')!);
    for (const path of ['/v1/%63loud-b/role/prod', '/v1/cloud-b%2Frole%2Fprod', '/v1/cloud-b/role%2Fprod']) {
      expect((await call(b.svc.app, 'GET', path, { token: b.svc.root })).status, path).toBe(200);
      expect((await call(b.svc.app, 'GET', path, { token })).status, path).toBe(403);
    }
  });

  it('a dot segment made of encoded slashes is refused with 400 naming it, on every function', async () => {
    for (const path of [
      '/v1/cloud-b/role/x%2F..%2Fprod',
      '/v1/sys/policy/x%2F..%2Fdefault',
      '/v1/pki/roles/.%2Fprod',
      '/v1/kv/app/x%2F..%2Fprod',
    ]) {
      const r = await call(b.svc.app, 'GET', path, { token: b.svc.root });
      expect(r.status, path).toBe(400);
      expect(r.text, path).toMatch(/request path contains a .*segment/);
    }
  });

  it('names Vault folds to lower case are folded before authorization: every spelling is the one item, under its policy', async () => {
    const folded: [string, unknown][] = [
      ['sys/policy', { policy: JSON.stringify({ path: { 'y/*': { capabilities: ['read'] } } }) }],
      ['sys/policies/acl', { policy: JSON.stringify({ path: { 'y/*': { capabilities: ['read'] } } }) }],
      ['auth/approle/role', { token_policies: 'y' }],
      ['auth/aws/role', { bound_iam_principal_arn: 'arn:aws:iam::123456789012:role/y' }],
      ['cloud-a/roles', { cloud_a_roles: JSON.stringify((await rootRead('cloud-a/roles/prod')()).data.cloud_a_roles), ttl: 60 }],
      ['cloud-b/role', { remote_policies: 'name:AliyunOSSReadOnlyAccess,type:System', ttl: 60 }],
    ];
    for (const [items, body] of folded) {
      const w = await call(b.svc.app, 'POST', `/v1/${items}/MixedCase`, { token: b.svc.root, body });
      expect(w.status, `${items}: ${w.text}`).toBeLessThan(300);
      for (const spelling of ['mixedcase', 'MIXEDCASE', 'mixedCase']) {
        const r = await call(b.svc.app, 'GET', `/v1/${items}/${spelling}`, { token: b.svc.root });
        expect(r.status, `${items}/${spelling}`).toBe(200);
      }
      const keys = await call(b.svc.app, 'LIST', `/v1/${items}`, { token: b.svc.root });
      const names = (keys.json!.data?.keys ?? keys.json!.keys) as string[];
      expect(names, items).toContain('mixedcase');
      expect(names, items).not.toContain('MixedCase');
      // A grant on the lower-case name holds for every spelling; a deny on it likewise.
      const only = await tokenForPolicy(b.svc, `only-${items.replace(/\W+/g, '-')}`, { [`${items}/mixedcase`]: ['read'] });
      expect((await call(b.svc.app, 'GET', `/v1/${items}/MIXEDCASE`, { token: only })).status, items).toBe(200);
      expect((await call(b.svc.app, 'DELETE', `/v1/${items}/MixedCase`, { token: b.svc.root })).status, items).toBe(204);
      expect((await call(b.svc.app, 'GET', `/v1/${items}/mixedcase`, { token: b.svc.root })).status, items).toBe(404);
    }
  });

  it('JWT role names keep their case, as in Vault: role/Prod is another role than role/prod', async () => {
    const body = { role_type: 'jwt', user_claim: 'sub', bound_audiences: 'x' };
    expect((await call(b.svc.app, 'POST', '/v1/auth/jwt/role/CaseKept', { token: b.svc.root, body })).status).toBe(204);
    expect((await call(b.svc.app, 'GET', '/v1/auth/jwt/role/CaseKept', { token: b.svc.root })).status).toBe(200);
    expect((await call(b.svc.app, 'GET', '/v1/auth/jwt/role/casekept', { token: b.svc.root })).status).toBe(404);
  });
});

describe('pki cert/<serial>: unauthenticated, as in the reference', () => {
  // `cert/*` is served without a token (contract section 3, the reference engine's
  // unauthenticated paths): no policy applies to it, so no deny can be bypassed. Every spelling
  // of a serial (`aa:bb`, `AA-BB`) names the same public certificate.
  it('serves the same certificate under every serial spelling, without a token', async () => {
    const issued = await call(b.svc.app, 'POST', '/v1/pki/issue/other', { token: b.svc.root, body: { common_name: 'a.other.example' } });
    const serial = issued.json!.data.serial_number as string;
    const spellingsOf = [
      serial,
      serial.toUpperCase(),
      serial.replaceAll(':', '-'),
      serial.replaceAll(':', '-').toUpperCase(),
      encodeURIComponent(serial),
    ];
    for (const s of spellingsOf) {
      const r = await call(b.svc.app, 'GET', `/v1/pki/cert/${s}`);
      expect(r.status, s).toBe(200);
      expect(r.json!.data.certificate, s).toBe(issued.json!.data.certificate);
    }
  });
});

describe('catalog: keys and names are exact, listings filter per item', () => {
  const catalogPaths = {
    'catalog/kv/app/*': ALL,
    'catalog/kv/app/prod': ['deny'],
    'catalog/service/*': ['read'],
    'catalog/service/prod': ['deny'],
    'catalog/node/*': ['read'],
    'catalog/node/prod': ['deny'],
  };
  let token: string;
  const cat = (method: string, path: string, raw?: string) =>
    call(b.catalog, method, path, { headers: { 'x-catalog-token': token }, ...(raw !== undefined ? { raw } : {}) });
  const prodValue = async () => (await call(b.catalog, 'GET', '/v1/kv/app/prod?raw', { headers: { 'x-catalog-token': b.svc.root } })).text;
  const leaks = (r: { status: number; text: string }, ...markers: string[]) => r.status < 300 && markers.some((m) => r.text.includes(m));
  const MARKERS = ['prod-marker', Buffer.from('prod-marker').toString('base64'), '"app/prod"'];

  beforeAll(async () => {
    token = await tokenForPolicy(b.svc, 'spelling-catalog', catalogPaths);
  });

  it('the policy works: app/other is served, app/prod is 403', async () => {
    expect((await cat('GET', '/v1/kv/app/other?raw')).text).toBe('other-marker');
    expect((await cat('GET', '/v1/kv/app/prod')).status).toBe(403);
  });

  it('no spelling, prefix listing or key listing shows app/prod', async () => {
    const reads = [
      ...spellings('kv', 'app', 'prod').map((p) => `/v1/${p}`),
      '/v1/kv/app/pro?recurse',
      '/v1/kv/app?recurse',
      '/v1/kv/?recurse',
      '/v1/kv/app/?keys',
      '/v1/kv/?keys',
      '/v1/kv/app/pr?keys&separator=/',
    ];
    for (const path of reads) {
      const r = await cat('GET', path);
      expect(r.status, path).toBeLessThan(500);
      expect(leaks(r, ...MARKERS), `${path}: ${r.status} ${r.text.slice(0, 200)}`).toBe(false);
    }
  });

  it('no spelling of a write or delete, recursive or not, touches app/prod', async () => {
    const paths = [...spellings('kv', 'app', 'prod').map((p) => `/v1/${p}`)];
    for (const path of paths) {
      expect((await cat('PUT', path, 'evil')).status, path).toBeLessThan(500);
      expect((await cat('DELETE', path)).status, path).toBeLessThan(500);
      expect(await prodValue(), path).toBe('prod-marker');
    }
    for (const path of ['/v1/kv/app/pro?recurse', '/v1/kv/app/?recurse', '/v1/kv/app?recurse']) {
      expect((await cat('DELETE', path)).status, path).toBeLessThan(500);
      expect(await prodValue(), path).toBe('prod-marker');
    }
  });

  it('services and nodes: no spelling or listing shows prod', async () => {
    const paths = [
      ...spellings('catalog', 'service', 'prod').map((p) => `/v1/${p}`),
      ...spellings('catalog', 'node', 'prod').map((p) => `/v1/${p}`),
      '/v1/catalog/services',
      '/v1/catalog/nodes',
      '/v1/agent/members',
      '/v1/catalog/service/other',
      '/v1/catalog/node/other',
    ];
    for (const path of paths) {
      const r = await cat('GET', path);
      expect(r.status, path).toBeLessThan(500);
      expect(leaks(r, '"prod"', '10.0.0.1'), `${path}: ${r.status} ${r.text.slice(0, 200)}`).toBe(false);
    }
  });
});
