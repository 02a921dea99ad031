/**
 * The catalog as deployed is closed: ACLs on, default deny (infra/mounts.json), so an anonymous
 * caller can neither write nor read a key nor register a node. The local server keeps its
 * documented open default (the file's `local` entry), and only off Lambda.
 */
import { describe, expect, it } from 'vitest';
import { createCatalogApp } from '../../lib/catalog/app';
import { catalogEntry, catalogSettings } from '../../lib/catalog/settings';
import { call, createTestService } from '../helpers/service';

const ON_LAMBDA = { AWS_LAMBDA_FUNCTION_NAME: 'latchkey-dev-catalog' };

describe('the deployed catalog settings', () => {
  it('are ACLs on with default deny', () => {
    expect(catalogSettings(ON_LAMBDA)).toMatchObject({ aclEnabled: true, defaultPolicy: 'deny' });
  });

  it('keep the open local default off Lambda only, and only where the file says so', () => {
    expect(catalogSettings({})).toMatchObject({ aclEnabled: false, defaultPolicy: 'allow' });
    expect(catalogEntry({ acl: { enabled: true }, local: { acl: { enabled: false } } }, ON_LAMBDA)).toEqual({ acl: { enabled: true } });
    expect(catalogEntry({ acl: { enabled: true } }, {})).toEqual({ acl: { enabled: true } });
  });

  it('refuse anonymous KV writes and reads and registrations; a token with a policy gets in', async () => {
    const svc = await createTestService();
    const catalog = createCatalogApp(svc.deps, catalogSettings(ON_LAMBDA));
    const put = await call(catalog, 'PUT', '/v1/kv/app/secret', { raw: 's3cret' });
    expect(put.status).toBe(403);
    expect((await call(catalog, 'GET', '/v1/kv/app/secret')).status).toBe(403);
    const reg = await call(catalog, 'PUT', '/v1/catalog/register', { body: { Node: 'n1', Address: '10.0.0.1' } });
    expect(reg.status).toBe(403);
    expect((await call(catalog, 'GET', '/v1/catalog/nodes')).text).toBe('[]');

    const policy = { path: { 'catalog/kv/app/*': { capabilities: ['create', 'update', 'read'] } } };
    await call(svc.app, 'PUT', '/v1/sys/policy/app', { token: svc.root, body: { policy: JSON.stringify(policy) } });
    const token = (await call(svc.app, 'POST', '/v1/auth/token/create', { token: svc.root, body: { policies: ['app'] } })).json!.auth
      .client_token as string;
    const ok = await call(catalog, 'PUT', '/v1/kv/app/secret', { raw: 's3cret', headers: { 'x-catalog-token': token } });
    expect(ok.text).toBe('true');
    expect(ok.headers.get('x-catalog-default-acl-policy')).toBe('deny');
  });
});
