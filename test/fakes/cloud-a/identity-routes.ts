/** The token authority of the cloud-A fake: client credentials, OpenID metadata, bearer checks. */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Ctx, Reply } from './server';

/** Issued access tokens: the client they belong to and their audience. */
export type Tokens = Map<string, { appId: string; audience: string }>;

function token(ctx: Ctx, tokens: Tokens): Reply {
  const b = ctx.body;
  if (b.grant_type !== 'client_credentials')
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'AADSTS70003: grant type not supported' } };
  const who = ctx.state.authenticate(String(b.client_id ?? ''), String(b.client_secret ?? ''));
  if (who === 'unknown-client') {
    return {
      status: 400,
      body: {
        error: 'unauthorized_client',
        error_description: `AADSTS700016: Application with identifier '${String(b.client_id)}' was not found in the directory.`,
      },
    };
  }
  if (who === 'bad-secret')
    return { status: 401, body: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' } };
  const access = randomBytes(24).toString('base64url');
  tokens.set(access, { appId: who.appId, audience: String(b.scope ?? '').replace(/\/\.default$/, '') });
  return { status: 200, body: { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: access } };
}

function openid(ctx: Ctx, tenant: string): Reply {
  const base = `${ctx.origin}/${tenant}`;
  return {
    status: 200,
    body: {
      token_endpoint: `${base}/oauth2/v2.0/token`,
      authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
      device_authorization_endpoint: `${base}/oauth2/v2.0/devicecode`,
      end_session_endpoint: `${base}/oauth2/v2.0/logout`,
      issuer: `${base}/v2.0`,
      jwks_uri: `${base}/discovery/v2.0/keys`,
      response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
      tenant_region_scope: null,
    },
  };
}

export function identityRoute(ctx: Ctx, tokens: Tokens): { op: string; run: () => Reply } | undefined {
  const p = ctx.url.pathname;
  if (/^\/[^/]+\/oauth2\/v2\.0\/token$/.test(p) && ctx.method === 'POST') return { op: 'token', run: () => token(ctx, tokens) };
  const oid = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(p);
  return oid ? { op: 'openid', run: () => openid(ctx, oid[1]!) } : undefined;
}

/** Whether the request carries a token issued here for this API. */
export function bearerOk(req: IncomingMessage, tokens: Tokens, api: 'graph' | 'arm'): boolean {
  const t = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const who = t ? tokens.get(t) : undefined;
  return !!who && who.audience.includes(api === 'graph' ? 'graph' : 'management');
}
