/** rotate-root, the CLOUDA_* overrides, and secrets at rest. */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finaliseAllRotations } from '../../../lib/cloud-a/finalise-all';
import { call } from '../../helpers/service';
import { cloudABench, contributor, type Bench } from './helpers';

let b: Bench;
beforeAll(async () => {
  b = await cloudABench();
});
afterAll(() => b.close());

const req = (method: string, path: string, body?: unknown) =>
  call(b.svc.app, method, `/v1/cloud-a/${path}`, { token: b.svc.root, ...(body !== undefined ? { body } : {}) });
const rootApp = () => b.fake.state.applications.get(b.fake.root.objectId)!;
const secrets: string[] = [];

describe('rotate-root', () => {
  it('replaces the root secret: the new one is in use, the old one removed, neither is returned', async () => {
    const r = await req('POST', 'rotate-root');
    expect(r.status).toBe(200);
    expect(Object.keys(r.json!.data).sort()).toEqual(['display_name', 'end_date', 'secret_id']);
    expect(rootApp().passwordCredentials.map((p) => p.keyId)).toEqual([r.json!.data.secret_id]);
    const end = Date.parse(r.json!.data.end_date);
    expect(end - Date.now()).toBeGreaterThan(181 * 86400_000);
    secrets.push(b.fake.root.clientSecret, rootApp().passwordCredentials[0]!.secret);
    // The engine still works with its new secret.
    expect((await req('POST', 'roles/after', { cloud_a_roles: contributor(b) })).status).toBe(204);
  });

  it('waits (bounded) for a secret the directory does not accept yet', async () => {
    b.fake.state.propagationRefusals = 2;
    const r = await req('POST', 'rotate-root');
    b.fake.state.propagationRefusals = 0;
    expect(r.status).toBe(200);
    expect(r.json!.warnings).toBeNull();
    expect(rootApp().passwordCredentials).toHaveLength(1);
    secrets.push(rootApp().passwordCredentials[0]!.secret);
  });

  it('leaves the rotation pending when the secret is refused for longer; the scheduled finalisation completes it', async () => {
    b.fake.state.propagationRefusals = 50;
    const r = await req('POST', 'rotate-root');
    expect(r.status).toBe(200);
    expect(r.json!.warnings[0]).toMatch(/not accepted by the directory yet/);
    expect(rootApp().passwordCredentials).toHaveLength(2);
    // Meanwhile the old secret keeps working.
    expect((await req('POST', 'roles/during', { cloud_a_roles: contributor(b) })).status).toBe(204);
    for (const p of rootApp().passwordCredentials) p.refusalsLeft = 0;
    b.fake.state.propagationRefusals = 0;
    expect(await finaliseAllRotations(b.svc.deps, () => b.env)).toEqual({ 'cloud-a': 'finalised' });
    expect(rootApp().passwordCredentials).toHaveLength(1);
    expect(rootApp().passwordCredentials[0]!.keyId).toBe(r.json!.data.secret_id);
    expect(await finaliseAllRotations(b.svc.deps, () => b.env)).toEqual({ 'cloud-a': 'none' });
    secrets.push(rootApp().passwordCredentials[0]!.secret);
  });

  it('a failed password creation leaves no stray password after finalisation', async () => {
    b.fake.inject({ op: 'addPassword', status: 500, code: 'InjectedFault', after: true, count: 3 });
    expect((await req('POST', 'rotate-root')).status).toBe(502);
    expect(rootApp().passwordCredentials.length).toBeGreaterThan(1);
    expect(await finaliseAllRotations(b.svc.deps, () => b.env)).toEqual({ 'cloud-a': 'abandoned' });
    expect(rootApp().passwordCredentials).toHaveLength(1);
    expect((await req('POST', 'roles/still', { cloud_a_roles: contributor(b) })).status).toBe(204);
  });

  it('a new password created twice (an answer lost, then a retry) keeps only the one in use', async () => {
    b.fake.inject({ op: 'addPassword', status: 500, code: 'InjectedFault', after: true });
    const r = await req('POST', 'rotate-root');
    expect(r.status).toBe(200);
    expect(rootApp().passwordCredentials.map((p) => p.keyId)).toEqual([r.json!.data.secret_id]);
    secrets.push(rootApp().passwordCredentials[0]!.secret);
  });

  it('refuses to rotate a secret that comes from CLOUDA_CLIENT_SECRET', async () => {
    b.env.CLOUDA_CLIENT_SECRET = 'from-env';
    const r = await req('POST', 'rotate-root');
    delete b.env.CLOUDA_CLIENT_SECRET;
    expect(r).toMatchObject({
      status: 400,
      json: { errors: ['the client secret comes from CLOUDA_CLIENT_SECRET and cannot be rotated here'] },
    });
  });
});

describe('CLOUDA_* environment variables', () => {
  it('override stored parameters', async () => {
    b.env.CLOUDA_TENANT_ID = 'other-tenant';
    b.env.CLOUDA_CLIENT_ID = 'other-client';
    const r = await req('POST', 'roles/env', { cloud_a_roles: contributor(b) });
    delete b.env.CLOUDA_TENANT_ID;
    delete b.env.CLOUDA_CLIENT_ID;
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/AADSTS700016: Application with identifier 'other-client'/);
    expect(b.fake.calls.some((c) => c.op === 'token')).toBe(true);
  });

  it('configure the engine on their own', async () => {
    const app = b.fake.state.applications.get(b.fake.root.objectId)!;
    const pw = b.fake.state.addPassword(app, 'env', undefined, 0);
    Object.assign(b.env, {
      CLOUDA_TENANT_ID: b.fake.state.tenantId,
      CLOUDA_SUBSCRIPTION_ID: b.fake.state.subscriptionId,
      CLOUDA_CLIENT_ID: app.appId,
      CLOUDA_CLIENT_SECRET: pw.secret,
    });
    await req('DELETE', 'config');
    const r = await req('POST', 'roles/env', { cloud_a_roles: contributor(b) });
    for (const k of ['CLOUDA_TENANT_ID', 'CLOUDA_SUBSCRIPTION_ID', 'CLOUDA_CLIENT_ID', 'CLOUDA_CLIENT_SECRET']) delete b.env[k];
    expect(r.status).toBe(204);
    app.passwordCredentials.splice(app.passwordCredentials.indexOf(pw), 1);
    const c = await req('POST', 'config', {
      subscription_id: b.fake.state.subscriptionId,
      tenant_id: b.fake.state.tenantId,
      client_id: app.appId,
      client_secret: app.passwordCredentials[0]!.secret,
    });
    expect(c.status).toBe(204);
  });

  it('choose the cloud with environment', async () => {
    b.env.CLOUDA_ENVIRONMENT = 'Nowhere';
    const r = await req('POST', 'roles/x', { cloud_a_roles: contributor(b) });
    delete b.env.CLOUDA_ENVIRONMENT;
    expect(r).toMatchObject({ status: 400, json: { errors: [expect.stringMatching(/unknown environment "Nowhere"/)] } });
    expect((await req('POST', 'config', { environment: 'azurechinacloud' })).status).toBe(204);
    expect((await req('POST', 'roles/china', { cloud_a_roles: contributor(b) })).status).toBe(204);
  });
});

describe('secrets at rest', () => {
  it('no client secret (root or issued) is in the table in clear', async () => {
    const issued = await req('GET', 'creds/after');
    expect(issued.status).toBe(200);
    secrets.push(issued.json!.data.client_secret);
    const items = await b.svc.client.send(new ScanCommand({ TableName: b.svc.table }));
    const raw = JSON.stringify(items.Items);
    expect(raw).toContain('cloud-a/cloud-a');
    for (const s of secrets) expect(raw).not.toContain(s);
  });
});
