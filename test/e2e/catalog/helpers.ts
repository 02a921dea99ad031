/** A service with the catalog app beside sys, on the real embedded store, with chosen settings. */
import type { Hono } from 'hono';
import { createCatalogApp } from '../../../lib/catalog/app';
import { parseCatalogSettings, type CatalogConfig } from '../../../lib/catalog/settings';
import { call, createTestService, type CallOptions, type TestService } from '../../helpers/service';

export interface CatalogService extends TestService {
  catalog: Hono;
  settings: CatalogConfig;
}

export async function catalogService(settings: Parameters<typeof parseCatalogSettings>[0] = {}): Promise<CatalogService> {
  const svc = await createTestService();
  // Behaviour tests run with ACLs off unless they set `acl` (the default, deployed, is on with deny).
  const parsed = parseCatalogSettings({ acl: { enabled: false }, ...settings }, {});
  return { ...svc, catalog: createCatalogApp(svc.deps, parsed), settings: parsed };
}

/** A catalog request; `token` goes in X-Catalog-Token. */
export function cat(svc: CatalogService, method: string, path: string, o: CallOptions & { catalogToken?: string } = {}) {
  const headers = { ...(o.headers ?? {}), ...(o.catalogToken ? { 'x-catalog-token': o.catalogToken } : {}) };
  return call(svc.catalog, method, path, { ...o, headers });
}

/** Writes a policy through sys and returns a token holding it. */
export async function tokenFor(svc: CatalogService, name: string, paths: Record<string, string[]>): Promise<string> {
  const policy = { path: Object.fromEntries(Object.entries(paths).map(([p, caps]) => [p, { capabilities: caps }])) };
  const put = await call(svc.app, 'PUT', `/v1/sys/policy/${name}`, { token: svc.root, body: { policy: JSON.stringify(policy) } });
  if (put.status !== 204) throw new Error(`policy write failed: ${put.status} ${put.text}`);
  const r = await call(svc.app, 'POST', '/v1/auth/token/create', { token: svc.root, body: { policies: [name] } });
  return r.json!.auth.client_token as string;
}
