/**
 * Revoking a token revokes every lease it created, in every engine, and its child tokens with
 * theirs (issue 11, security defect 2). A token holding only the rule it needs creates a lease
 * and a child token that creates another; the token is then revoked by id, by accessor, by
 * itself or through its parent. Afterwards neither lease can be looked up, the engine has
 * undone what each created, and no token of the tree answers. When the engine's revocation
 * fails, the token is revoked all the same and the lease stays for the sweeper to finish.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../../../lib/sys/sweeper';
import { call } from '../../helpers/service';
import { leaseBench, type LeaseBench } from './token-leases-bench';
import { CLOUD_ENGINES, ENGINES, removeKeys, send, type EngineCase, type Issued } from './token-leases-engines';

let b: LeaseBench;
beforeAll(async () => {
  b = await leaseBench();
}, 60_000);
afterAll(async () => {
  await b?.close();
  removeKeys();
});

interface Minted {
  token: string;
  accessor: string;
}

/** A tree: an optional parent, the token under test and (usually) its child; each of the latter two holds a lease. */
interface Tree {
  parent?: Minted;
  holder: Minted;
  child?: Minted;
  leases: Issued[];
}

const api = (method: string, path: string, token: string, body?: unknown) =>
  call(b.svc.app, method, `/v1/${path}`, { token, ...(body !== undefined ? { body } : {}) });

async function mint(by: string, policies: string[], extra: Record<string, unknown> = {}): Promise<Minted> {
  const r = await api('POST', 'auth/token/create', by, { policies, ...extra });
  expect(r.status, r.text).toBe(200);
  return { token: r.json!.auth.client_token, accessor: r.json!.auth.accessor };
}

const written = new Set<string>();
/** A policy with the engine's rule and token creation (for the child), nothing else. */
async function policyFor(e: EngineCase): Promise<string> {
  const name = `lease-${ENGINES.indexOf(e)}`;
  if (written.has(name)) return name;
  const doc = { path: { ...e.rules, 'auth/token/create': { capabilities: ['create', 'update'] } } };
  const r = await api('PUT', `sys/policy/${name}`, b.svc.root, { policy: JSON.stringify(doc) });
  expect(r.status, r.text).toBe(204);
  written.add(name);
  return name;
}

async function grow(e: EngineCase, withParent: boolean, holderExtra: Record<string, unknown> = {}): Promise<Tree> {
  const policy = await policyFor(e);
  const parent = withParent ? await mint(b.svc.root, [policy]) : undefined;
  const holder = await mint(parent?.token ?? b.svc.root, [policy], holderExtra);
  const own = await e.issue(b, holder.token);
  // A use-limited token may not have children (as the reference).
  if (holderExtra.num_uses) return { ...(parent ? { parent } : {}), holder, leases: [own] };
  const child = await mint(holder.token, [policy]);
  const childs = await e.issue(b, child.token);
  return { ...(parent ? { parent } : {}), holder, child, leases: [own, childs] };
}

const leaseStatus = async (id: string) => (await api('PUT', 'sys/leases/lookup', b.svc.root, { lease_id: id })).status;
const selfStatus = async (t: Minted) => (await api('GET', 'auth/token/lookup-self', t.token)).status;

async function expectInForce(t: Tree, leases = t.leases) {
  for (const l of leases) {
    expect(await leaseStatus(l.leaseId), l.leaseId).toBe(200);
    await l.present();
  }
}

async function expectRevoked(t: Tree, leases = t.leases) {
  for (const l of leases) {
    expect(await leaseStatus(l.leaseId), `${l.leaseId} still leased`).toBe(400);
    await l.undone();
  }
  for (const m of [t.parent, t.holder, t.child]) if (m) expect(await selfStatus(m)).toBe(403);
  expect((await api('POST', 'auth/token/lookup-accessor', b.svc.root, { accessor: t.holder.accessor })).status).toBe(400);
}

interface Mode {
  name: string;
  parent: boolean;
  holder?: Record<string, unknown>;
  /** Revokes the tree's holder; asserts the call's own answer. */
  revoke: (t: Tree) => Promise<void>;
}

const answers = (status: number) => async (r: ReturnType<typeof api>) => {
  const res = await r;
  expect(res.status, res.text).toBe(status);
};

const MODES: Mode[] = [
  {
    name: 'auth/token/revoke',
    parent: false,
    revoke: (t) => answers(204)(api('POST', 'auth/token/revoke', b.svc.root, { token: t.holder.token })),
  },
  {
    name: 'auth/token/revoke-accessor',
    parent: false,
    revoke: (t) => answers(204)(api('POST', 'auth/token/revoke-accessor', b.svc.root, { accessor: t.holder.accessor })),
  },
  { name: 'auth/token/revoke-self', parent: false, revoke: (t) => answers(204)(api('POST', 'auth/token/revoke-self', t.holder.token)) },
  {
    name: 'revoking its parent',
    parent: true,
    revoke: (t) => answers(204)(api('POST', 'auth/token/revoke', b.svc.root, { token: t.parent!.token })),
  },
  // Two uses: the lease, then a lookup-self that uses it up.
  {
    name: 'using up its num_uses',
    parent: false,
    holder: { num_uses: 2 },
    revoke: (t) => answers(200)(api('GET', 'auth/token/lookup-self', t.holder.token)),
  },
  {
    name: 'its expiry (sweeper)',
    parent: false,
    holder: { ttl: '30s' },
    revoke: async () => {
      b.clock.now += 31_000;
      await sweep(b.svc.deps, 10_000);
    },
  },
];

describe.each(ENGINES)('$name: revoking the token that created the lease', (engine) => {
  it.each(MODES)('$name revokes every lease of its tree and every token in it', async (mode) => {
    const tree = await grow(engine, mode.parent, mode.holder);
    await expectInForce(tree);
    await mode.revoke(tree);
    await expectRevoked(tree);
  });

  it('auth/token/revoke-orphan revokes its lease and leaves the child and its lease alone', async () => {
    const tree = await grow(engine, false);
    const [own, childs] = tree.leases as [Issued, Issued];
    const r = await api('POST', 'auth/token/revoke-orphan', b.svc.root, { token: tree.holder.token });
    expect(r.status, r.text).toBe(204);
    expect(await leaseStatus(own.leaseId)).toBe(400);
    await own.undone();
    expect(await selfStatus(tree.holder)).toBe(403);
    expect(await selfStatus(tree.child!)).toBe(200);
    await expectInForce(tree, [childs]);
    // The orphan's own revocation still takes its lease.
    expect((await api('POST', 'auth/token/revoke-self', tree.child!.token)).status).toBe(204);
    expect(await leaseStatus(childs.leaseId)).toBe(400);
    await childs.undone();
  });

  it('a token on its last use gets no leased secret, and no lease stays', async () => {
    const token = await mint(b.svc.root, [await policyFor(engine)], { num_uses: 1 });
    const prefix = `${engine.request.path}/`;
    const before = await b.svc.deps.leases.list(prefix);
    const r = await send(b, engine.request, token.token);
    // The reference answers 400 "Secret cannot be returned; token had one use left, ...": a 4xx naming it.
    expect(r.status, r.text).toBeGreaterThanOrEqual(400);
    expect(r.status, r.text).toBeLessThan(500);
    expect(r.json!.errors[0]).toMatch(/revoked|use/);
    expect(await b.svc.deps.leases.list(prefix)).toEqual(before);
    expect(await selfStatus(token)).toBe(403);
  });
});

describe('an engine whose revocation fails', () => {
  const faults = [
    {
      engine: CLOUD_ENGINES.cloudA,
      inject: () => b.cloudA.inject({ op: 'deleteApplication', status: 500, code: 'InjectedFault', count: 1000 }),
      clear: () => b.cloudA.clearFaults(),
    },
    {
      engine: CLOUD_ENGINES.cloudB,
      inject: () => b.cloudB.inject({ action: 'DeleteUser', status: 500, code: 'InternalError', count: 1000 }),
      clear: () => b.cloudB.clearFaults(),
    },
  ];

  it.each(faults)('$engine.name: the token is revoked, the leases stay for retry, a later sweep removes them', async (f) => {
    const tree = await grow(f.engine, false);
    f.inject();
    try {
      const r = await api('POST', 'auth/token/revoke', b.svc.root, { token: tree.holder.token });
      expect(r.status, r.text).toBe(204);
      for (const m of [tree.holder, tree.child!]) expect(await selfStatus(m)).toBe(403);
      for (const l of tree.leases) {
        expect(await leaseStatus(l.leaseId), 'kept for retry').toBe(200);
        const kept = await b.svc.deps.leases.lookup(l.leaseId);
        expect(kept.attempts).toBeGreaterThanOrEqual(1);
        expect(kept.last_error).toMatch(/Injected|Internal/);
        expect(kept.next_attempt * 1000).toBeGreaterThan(b.clock.now);
      }
    } finally {
      f.clear();
    }
    // Not yet due: the sweeper leaves them for their back-off.
    await sweep(b.svc.deps, 10_000);
    for (const l of tree.leases) expect(await leaseStatus(l.leaseId)).toBe(200);
    b.clock.now += 3600_000;
    await sweep(b.svc.deps, 10_000);
    await expectRevoked(tree);
  });
});

/**
 * A dynamic key whose token is revoked while its install script runs: the revocation's uninstall
 * runs before the install, so the issue path must uninstall itself and answer 403, leaving no key
 * and no lease. The install here waits for a gate the test opens only after the revocation
 * answered, so the order is fixed, not timed.
 */
describe('a token revoked while its lease is being created', () => {
  it('SSH dynamic key: no key stays installed and no lease stays', async () => {
    const rules = { 'ssh/creds/gated': { capabilities: ['update'] } };
    expect((await api('PUT', 'sys/policy/gated', b.svc.root, { policy: JSON.stringify({ path: rules }) })).status).toBe(204);
    const holder = await mint(b.svc.root, ['gated']);
    const keysBefore = b.authorizedKeys();
    const pending = api('POST', 'ssh/creds/gated', holder.token, { ip: '127.0.0.1' });
    const leased = async () => (await api('LIST', 'sys/leases/lookup/ssh/creds/gated', b.svc.root)).json?.data?.keys?.length ?? 0;
    for (let i = 0; i < 400 && !(await leased()); i++) await new Promise((r) => setTimeout(r, 25));
    expect(await leased(), 'the lease is written before the install').toBe(1);
    expect((await api('POST', 'auth/token/revoke', b.svc.root, { token: holder.token })).status).toBe(204);
    writeFileSync(b.installGate, '');
    const r = await pending;
    const keysAfter = b.authorizedKeys();
    // Not left for the check below: the known defect is reported once, here.
    if (keysAfter !== keysBefore) writeFileSync(b.authorizedKeysFile, keysBefore);
    expect(keysAfter, 'a key installed after its token was revoked').toBe(keysBefore);
    expect(await leased()).toBe(0);
    if (r.status !== 200) expect(r.json!.errors[0], r.text).toMatch(/revoked/);
  });
});

describe('after every case above', () => {
  it('nothing any revoked token created is left: no lease, no cloud object, no installed key', async () => {
    for (const mount of ['pki/', 'ssh/', 'cloud-a/', 'cloud-b/']) expect(await b.svc.deps.leases.list(mount), mount).toEqual([]);
    expect(b.cloudA.state.leftovers({ apps: [b.cloudA.root.objectId] })).toEqual({
      applications: [],
      servicePrincipals: [],
      roleAssignments: [],
      groupMembers: [],
    });
    expect(b.cloudB.state.leftovers()).toEqual({ users: [], customPolicies: [], accessKeys: [] });
    expect(b.authorizedKeys().trim()).toBe('');
  });
});
