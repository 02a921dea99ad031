/**
 * A small OIDC issuer for the jwt auth method's tests: it generates its signing keys, serves
 * `<issuer>/.well-known/openid-configuration` (issuer + jwks_uri, as jose's createRemoteJWKSet and
 * the reference's go-oidc read it) and the JWKS at `jwks_uri`, counts the fetches, rotates keys,
 * and signs tokens shaped as GitHub Actions and EKS issue them. Over http, or https with a
 * certificate from a fresh test CA (`ca`).
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { localhostTls } from '../../helpers/pki-cert';

export type SigningAlg = 'RS256' | 'RS384' | 'PS256' | 'ES256' | 'ES384' | 'EdDSA';

export interface IssuerKey {
  kid: string;
  alg: SigningAlg;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** SPKI PEM of the public key, for jwt_validation_pubkeys. */
  publicPem: string;
}

export interface IssuerOptions {
  /** Path of the issuer under the server ("/id/ABC" for an EKS-style issuer; "" for GitHub's). */
  issuerPath?: string;
  /** Path of the JWKS under the issuer ("/.well-known/jwks" as GitHub, "/keys" as EKS). */
  jwksPath?: string;
  https?: boolean;
  /** Key algorithms to start with (default one RS256 key). */
  algs?: SigningAlg[];
  /** Answer the discovery document with this issuer instead of the real one (a mismatch test). */
  claimedIssuer?: string;
}

export interface FakeIssuer {
  issuer: string;
  jwksUrl: string;
  /** The test CA's PEM (https only). */
  ca: string;
  keys: IssuerKey[];
  /** JWKS and discovery fetches so far. */
  fetches: { jwks: number; discovery: number };
  addKey(alg?: SigningAlg): Promise<IssuerKey>;
  /** Serves `body` at the JWKS path instead of the key set (size-limit and junk tests); undefined restores it. */
  override(body: string | undefined): void;
  sign(claims: Record<string, unknown>, o?: { key?: IssuerKey; header?: Record<string, unknown> }): Promise<string>;
  close(): Promise<void>;
}

let counter = 0;

async function makeKey(alg: SigningAlg): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const kid = `k${++counter}-${alg.toLowerCase()}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicJwk, publicPem: await exportSPKI(publicKey) };
}

export async function startIssuer(o: IssuerOptions = {}): Promise<FakeIssuer> {
  const issuerPath = o.issuerPath ?? '';
  const jwksPath = issuerPath + (o.jwksPath ?? '/.well-known/jwks');
  const keys: IssuerKey[] = [];
  for (const alg of o.algs ?? ['RS256']) keys.push(await makeKey(alg));
  const fetches = { jwks: 0, discovery: 0 };
  let overridden: string | undefined;
  let base = '';

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (req.method === 'GET' && path === `${issuerPath}/.well-known/openid-configuration`) {
      fetches.discovery++;
      return json({
        issuer: o.claimedIssuer ?? base + issuerPath,
        jwks_uri: base + jwksPath,
        subject_types_supported: ['public', 'pairwise'],
        response_types_supported: ['id_token'],
        claims_supported: ['sub', 'aud', 'exp', 'iat', 'iss', 'jti', 'nbf'],
        id_token_signing_alg_values_supported: [...new Set(keys.map((k) => k.alg))],
        scopes_supported: ['openid'],
      });
    }
    if (req.method === 'GET' && path === jwksPath) {
      fetches.jwks++;
      return json(overridden ?? { keys: keys.map((k) => k.publicJwk) });
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  };

  let server: Server;
  let ca = '';
  if (o.https) {
    const tls = await localhostTls();
    ca = tls.caPem;
    server = createHttpsServer({ key: tls.keyPem, cert: tls.certPem }, handler);
  } else server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `${o.https ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer: base + issuerPath,
    jwksUrl: base + jwksPath,
    ca,
    keys,
    fetches,
    async addKey(alg: SigningAlg = 'RS256') {
      const k = await makeKey(alg);
      keys.push(k);
      return k;
    },
    override(body) {
      overridden = body;
    },
    async sign(claims, so = {}) {
      const key = so.key ?? keys[0]!;
      return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...(so.header ?? {}) }).sign(key.privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

const now = () => Math.floor(Date.now() / 1000);

/**
 * The claims of a GitHub Actions OIDC token (docs.github.com "About security hardening with
 * OpenID Connect"), for `repo` on `ref`, issued by `issuer` for `aud`.
 */
export function githubActionsClaims(
  issuer: string,
  o: { repo?: string; ref?: string; aud?: string; environment?: string } = {},
): Record<string, unknown> {
  const repo = o.repo ?? 'octo-org/octo-repo';
  const ref = o.ref ?? 'refs/heads/main';
  const [owner] = repo.split('/');
  const t = now();
  return {
    jti: 'example-id-5f5f6c1a',
    sub: o.environment ? `repo:${repo}:environment:${o.environment}` : `repo:${repo}:ref:${ref}`,
    aud: o.aud ?? 'https://github.com/octo-org',
    ref,
    sha: 'example-sha-9d1c',
    repository: repo,
    repository_owner: owner,
    repository_owner_id: '6654321',
    repository_id: '74',
    repository_visibility: 'private',
    actor_id: '12',
    actor: 'octocat',
    workflow: 'example-workflow',
    workflow_ref: `${repo}/.github/workflows/deploy.yml@${ref}`,
    job_workflow_ref: `${repo}/.github/workflows/deploy.yml@${ref}`,
    head_ref: '',
    base_ref: '',
    event_name: 'push',
    ref_type: 'branch',
    ref_protected: 'true',
    ...(o.environment ? { environment: o.environment } : {}),
    run_id: '1234567890',
    run_number: '7',
    run_attempt: '1',
    runner_environment: 'github-hosted',
    iss: issuer,
    nbf: t - 5,
    exp: t + 300,
    iat: t - 5,
  };
}

/**
 * The claims of an EKS projected service-account token (kubectl create token / the pod's
 * projected volume): `system:serviceaccount:<ns>:<sa>`, the nested "kubernetes.io" claim.
 */
export function eksServiceAccountClaims(
  issuer: string,
  o: { namespace?: string; serviceAccount?: string; aud?: string[] } = {},
): Record<string, unknown> {
  const ns = o.namespace ?? 'payments';
  const sa = o.serviceAccount ?? 'api';
  const t = now();
  return {
    aud: o.aud ?? ['sts.amazonaws.com'],
    exp: t + 86400,
    iat: t,
    iss: issuer,
    jti: '5d6a2c9e-1f0e-4ad5-9c8b-0e0d9c1f2a3b',
    'kubernetes.io': {
      namespace: ns,
      node: { name: 'ip-192-168-12-34.us-west-2.compute.internal', uid: 'c0ffee00-1111-2222-3333-444455556666' },
      pod: { name: `${sa}-7d9f8b6c5-x2x4z`, uid: '0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9' },
      serviceaccount: { name: sa, uid: '9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0' },
    },
    nbf: t,
    sub: `system:serviceaccount:${ns}:${sa}`,
  };
}
