/**
 * lease (lib/http/pipeline/lease.ts), the step after the handler: the secret a handler hands out
 * (`Result.secret`: what revocation needs, its TTL, max TTL, renewable) becomes a lease made by
 * the edge, under the request's mount and path and owned by the caller's token, and the answer
 * renders it as lease_id, lease_duration and renewable. Driven through a minimal Vault-style app
 * with test-only paths on a real test service's deps, with a revoker registered for the test
 * engine type so revocation can be watched.
 */
import type { Hono } from 'hono';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { f } from '../../../lib/http/fields';
import { definePath } from '../../../lib/http/path';
import { createVaultApi } from '../../../lib/http/vault-api';
import type { LeaseRecord } from '../../../lib/sys/leases';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

const mount = { path: 'edge', type: 'edge-test', defaultLeaseTtl: 0, maxLeaseTtl: 0 };
let svc: TestService;
let app: Hono;
const revoked: LeaseRecord[] = [];

const paths = [
  definePath({
    pattern: 'creds/:role',
    fields: { role: f.pathParam() },
    operations: {
      read: async (req) => ({
        data: { username: `u-${req.data.role}` },
        secret: { revoke: { user: `u-${req.data.role}` }, ttl: 600, maxTtl: 1200, renewable: true },
      }),
    },
    help: 'credentials with a lease',
  }),
  definePath({
    pattern: 'short',
    fields: {},
    operations: { read: async () => ({ data: { v: 1 }, secret: { revoke: { v: 1 }, ttl: 900, maxTtl: 300 } }) },
    help: 'a TTL past its max',
  }),
  definePath({
    pattern: 'elsewhere/:role',
    fields: { role: f.pathParam() },
    operations: { write: async (req) => ({ data: {}, secret: { revoke: {}, ttl: 60, path: `creds/${req.data.role}` } }) },
    help: 'a secret leased under another path of the mount',
  }),
  definePath({
    pattern: 'plain',
    fields: {},
    operations: { read: async () => ({ data: { v: 'no lease' } }) },
    help: 'an answer with no secret',
  }),
];

beforeAll(async () => {
  svc = await createTestService();
  svc.deps.revokers.set('edge-test', async (lease) => void revoked.push(lease));
  app = createVaultApi({ name: 'lease-test', deps: svc.deps, routes: [{ prefix: 'edge', mount, paths }] });
});
beforeEach(() => {
  revoked.length = 0;
});

async function accessorOf(token: string): Promise<string> {
  return (await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token })).json!.data.accessor as string;
}

describe("lease: a handler's secret", () => {
  it("is leased under the request's mount and path, and rendered as lease_id, lease_duration, renewable", async () => {
    const r = await call(app, 'GET', '/v1/edge/creds/web', { token: svc.root });
    expect(r.status).toBe(200);
    expect(r.json!.lease_id).toMatch(/^edge\/creds\/web\/[A-Za-z0-9_-]+$/);
    expect(r.json!.lease_duration).toBe(600);
    expect(r.json!.renewable).toBe(true);
    expect(r.json!.data).toEqual({ username: 'u-web' });
  });

  it("keeps what revocation needs, the engine type and the caller's accessor in the lease, never in the answer", async () => {
    const t = await tokenWith(svc, ['root']);
    const r = await call(app, 'GET', '/v1/edge/creds/db', { token: t });
    const lease = await svc.deps.leases.lookup(r.json!.lease_id as string);
    expect(lease).toMatchObject({
      mount: 'edge',
      engine: 'edge-test',
      revoke: { user: 'u-db' },
      owner: await accessorOf(t),
      renewable: true,
    });
    expect(lease.expire_time - lease.issue_time).toBe(600);
    expect(lease.max_expire_time - lease.issue_time).toBe(1200);
    expect(r.json).not.toHaveProperty('secret');
    expect(JSON.stringify(r.json)).not.toContain('revoke');
  });

  it("is owned by the caller's token: revoking the token revokes the lease through the engine's revoker", async () => {
    const t = await tokenWith(svc, ['root']);
    const r = await call(app, 'GET', '/v1/edge/creds/owned', { token: t });
    const id = r.json!.lease_id as string;
    expect((await call(svc.app, 'POST', '/v1/auth/token/revoke-self', { token: t })).status).toBe(204);
    expect(revoked.map((l) => [l.lease_id, l.revoke])).toEqual([[id, { user: 'u-owned' }]]);
    expect(await svc.deps.leases.exists(id)).toBe(false);
  });

  it('lasts its TTL, never past its max TTL', async () => {
    const r = await call(app, 'GET', '/v1/edge/short', { token: svc.root });
    expect(r.json!.lease_duration).toBe(300);
    expect(r.json!.renewable).toBe(false);
  });

  it("leaves a trailing slash of the request's path out of the lease id", async () => {
    const r = await call(app, 'GET', '/v1/edge/creds/slash/', { token: svc.root });
    expect(r.json!.lease_id).toMatch(/^edge\/creds\/slash\/[A-Za-z0-9_-]+$/);
  });

  it('is leased under another path of the mount when the secret names one', async () => {
    const r = await call(app, 'POST', '/v1/edge/elsewhere/ops', { token: svc.root, body: {} });
    expect(r.json!.lease_id).toMatch(/^edge\/creds\/ops\/[A-Za-z0-9_-]+$/);
  });
});

describe('lease: an answer without a secret', () => {
  it('makes no lease and renders an empty lease block', async () => {
    const before = await svc.deps.leases.list('edge/');
    const r = await call(app, 'GET', '/v1/edge/plain', { token: svc.root });
    expect(r.json).toMatchObject({ lease_id: '', lease_duration: 0, renewable: false, data: { v: 'no lease' } });
    expect(await svc.deps.leases.list('edge/')).toEqual(before);
  });
});
