/**
 * The bench of the spelling test: every engine (PKI, SSH, cloud-A and cloud-B on their fakes)
 * behind the local dispatcher, with items named `prod` (denied) and `other` (allowed) in each,
 * and a catalog with ACLs on (default deny) on the same token and policy store.
 */
import type { Hono } from 'hono';
import { createCatalogApp } from '../../../lib/catalog/app';
import { parseCatalogSettings } from '../../../lib/catalog/settings';
import { makeCloudAEngine } from '../../../lib/cloud-a/engine';
import { makeCloudBEngine } from '../../../lib/cloud-b/engine';
import { kvEngine } from '../../../lib/kv/engine';
import { pkiEngine } from '../../../lib/pki/engine';
import { sshEngine } from '../../../lib/ssh/engine';
import { startCloudAFake, type CloudAFake } from '../../fakes/cloud-a/server';
import { fakeTls } from '../../fakes/cloud-a/tls';
import { startCloudBFake, type CloudBFake } from '../../fakes/cloud-b/server';
import { call, createTestService, type TestService } from '../../helpers/service';
import { makeCsr } from '../../helpers/openssl';
import { keygen, tempDir } from '../../helpers/ssh-keys';

export interface SpellingBench {
  svc: TestService;
  catalog: Hono;
  csr: string;
  sshPublicKey: string;
  adminKey: string;
  /** A second admin key, for writes that must not replace the first. */
  otherAdminKey: string;
  close(): Promise<void>;
}

async function must(svc: TestService, method: string, path: string, body?: unknown, app: Hono = svc.app) {
  const r = await call(app, method, path, {
    token: svc.root,
    headers: { 'x-catalog-token': svc.root },
    ...(body !== undefined ? { body } : {}),
  });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r;
}

async function startFakes(): Promise<{ a: CloudAFake; b: CloudBFake; aEnv: Record<string, string>; bEnv: Record<string, string> }> {
  const tls = await fakeTls();
  const a = await startCloudAFake(tls);
  const b = await startCloudBFake(tls);
  const aEnv = {
    CLOUDA_AUTHORITY_URL: a.url,
    CLOUDA_GRAPH_URL: a.url,
    CLOUDA_RESOURCE_MANAGER_URL: a.url,
    CLOUDA_CA_CERT: tls.ca,
    CLOUDA_RETRY_DELAY_MS: '5',
  };
  const bEnv = { CLOUDB_RAM_ENDPOINT: b.url, CLOUDB_STS_ENDPOINT: b.url, CLOUDB_METADATA_ENDPOINT: b.url, CLOUDB_CA_CERT: tls.ca };
  return { a, b, aEnv, bEnv };
}

export async function spellingBench(): Promise<SpellingBench> {
  const { a, b, aEnv, bEnv } = await startFakes();
  const svc = await createTestService({
    engines: [pkiEngine, sshEngine, makeCloudAEngine(() => aEnv), makeCloudBEngine(() => bEnv), kvEngine],
  });
  const catalog = createCatalogApp(svc.deps, parseCatalogSettings({ acl: { enabled: true, default_policy: 'deny' } }, {}));
  const dir = tempDir('latchkey-spelling-');
  const user = keygen(dir, 'ed25519');
  const admin = keygen(dir, 'ed25519');
  const otherAdmin = keygen(dir, 'ed25519');

  await must(svc, 'POST', '/v1/pki/root/generate/internal', { common_name: 'Spelling Root', ttl: '87600h' });
  await must(svc, 'POST', '/v1/ssh/config/ca', { key_type: 'ed25519' });
  await must(svc, 'POST', '/v1/cloud-a/config', {
    subscription_id: a.state.subscriptionId,
    tenant_id: a.state.tenantId,
    client_id: a.root.clientId,
    client_secret: a.root.clientSecret,
  });
  await must(svc, 'POST', '/v1/cloud-b/config', { access_key: b.state.root.id, secret_key: b.state.root.secret });
  const contributor = JSON.stringify([{ role_name: 'Contributor', scope: `/subscriptions/${a.state.subscriptionId}` }]);
  for (const name of ['prod', 'other']) {
    await must(svc, 'POST', `/v1/pki/roles/${name}`, { allowed_domains: 'example', allow_subdomains: true, max_ttl: '1h' });
    await must(svc, 'POST', `/v1/ssh/roles/${name}`, {
      key_type: 'ca',
      allow_user_certificates: true,
      allowed_users: '*',
      default_user: `${name}-user`,
    });
    await must(svc, 'POST', `/v1/ssh/roles/${name}-otp`, { key_type: 'otp', default_user: `${name}-user`, cidr_list: '10.0.0.0/8' });
    await must(svc, 'POST', `/v1/ssh/keys/${name}`, { key: admin.privText });
    await must(svc, 'POST', `/v1/cloud-a/roles/${name}`, { cloud_a_roles: contributor, ttl: 600 });
    await must(svc, 'POST', `/v1/cloud-b/role/${name}`, { remote_policies: 'name:AliyunOSSReadOnlyAccess,type:System', ttl: 600 });
    // sys and auth: a policy, a token role, an AppRole role with a secret id, AWS and JWT roles.
    await must(svc, 'PUT', `/v1/sys/policy/${name}`, { policy: JSON.stringify({ path: { [`${name}/*`]: { capabilities: ['read'] } } }) });
    await must(svc, 'POST', `/v1/auth/token/roles/${name}`, { allowed_policies: name });
    await must(svc, 'POST', `/v1/auth/approle/role/${name}`, { token_policies: name });
    await must(svc, 'POST', `/v1/auth/approle/role/${name}/secret-id`);
    await must(svc, 'POST', `/v1/auth/aws/role/${name}`, { bound_iam_principal_arn: `arn:aws:iam::123456789012:role/${name}` });
    await must(svc, 'POST', `/v1/auth/jwt/role/${name}`, { role_type: 'jwt', user_claim: 'sub', bound_audiences: name });
    const kv = await call(catalog, 'PUT', `/v1/kv/app/${name}`, { raw: `${name}-marker`, headers: { 'x-catalog-token': svc.root } });
    if (kv.text !== 'true') throw new Error(`kv seed: ${kv.status} ${kv.text}`);
    await must(
      svc,
      'PUT',
      '/v1/catalog/register',
      { Node: name, Address: `10.0.0.${name === 'prod' ? 1 : 2}`, Service: { Service: name, Port: 8000 } },
      catalog,
    );
  }
  const csr = makeCsr('/CN=www.prod.example', ['-newkey', 'rsa:2048']);
  return {
    svc,
    catalog,
    csr,
    sshPublicKey: user.pubText,
    adminKey: admin.privText,
    otherAdminKey: otherAdmin.privText,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
}

/** Writes a policy and answers a token holding it alone. */
export async function tokenForPolicy(svc: TestService, name: string, paths: Record<string, string[]>): Promise<string> {
  const policy = { path: Object.fromEntries(Object.entries(paths).map(([p, capabilities]) => [p, { capabilities }])) };
  await must(svc, 'PUT', `/v1/sys/policy/${name}`, { policy: JSON.stringify(policy) });
  const r = await must(svc, 'POST', '/v1/auth/token/create', { policies: [name], no_default_policy: true });
  return r.json!.auth.client_token as string;
}
