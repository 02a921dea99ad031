/**
 * The jwt auth method through the app: config and roles as the reference serves them, logins with
 * GitHub Actions and EKS service-account tokens signed by the OIDC issuer fake, every refusal the
 * issue names, and no JWT in a log line or in clear in the table.
 */
import { createHmac } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { base64url } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setLogLevel } from '../../../lib/log';
import { captureLogs } from '../../helpers/capture-logs';
import { call, createTestService, type TestService } from '../../helpers/service';
import { eksServiceAccountClaims, githubActionsClaims, startIssuer, type FakeIssuer } from '../../fakes/oidc/issuer';

let svc: TestService;
let gh: FakeIssuer;
let eks: FakeIssuer;

const root = (method: string, path: string, body?: unknown) =>
  call(svc.app, method, `/v1/auth/${path}`, { token: svc.root, ...(body !== undefined ? { body } : {}) });
const login = (mount: string, body: unknown) => call(svc.app, 'POST', `/v1/auth/${mount}/login`, { body });

const GH_ROLE = {
  role_type: 'jwt',
  user_claim: 'sub',
  bound_audiences: 'https://github.com/octo-org',
  bound_claims_type: 'glob',
  bound_claims: { repository: 'octo-org/octo-repo', ref: 'refs/heads/*' },
  claim_mappings: { repository: 'repository', ref: 'ref', workflow: 'workflow', actor: 'actor', run_id: 'run_id' },
  token_policies: 'deployer',
  token_ttl: '10m',
};

beforeAll(async () => {
  svc = await createTestService();
  gh = await startIssuer({ jwksPath: '/.well-known/jwks' });
  eks = await startIssuer({ issuerPath: '/id/EXAMPLED539D4633E53DE1B71EXAMPLE', jwksPath: '/keys' });
  await call(svc.app, 'PUT', '/v1/sys/policy/deployer', {
    token: svc.root,
    body: { policy: JSON.stringify({ path: { 'sys/policy/deployer': { capabilities: ['read'] } } }) },
  });
  // The default mount "jwt" stands for GitHub Actions (discovery); EKS is served by static-key config in its own tests.
  expect((await root('POST', 'jwt/config', { oidc_discovery_url: gh.issuer, bound_issuer: gh.issuer })).status).toBe(204);
  expect((await root('POST', 'jwt/role/deploy', GH_ROLE)).status).toBe(204);
});

afterAll(async () => {
  await Promise.all([gh.close(), eks.close()]);
});

afterEach(() => {
  setLogLevel('silent');
  vi.restoreAllMocks();
});

describe('config', () => {
  it('reads back what was written', async () => {
    const r = await root('GET', 'jwt/config');
    expect(r.json!.data).toMatchObject({
      oidc_discovery_url: gh.issuer,
      bound_issuer: gh.issuer,
      jwks_url: '',
      jwt_validation_pubkeys: [],
      jwt_supported_algs: [],
    });
  });

  it('needs exactly one key source', async () => {
    const none = await root('POST', 'jwt/config', { bound_issuer: 'x' });
    expect(none.status).toBe(400);
    expect(none.json!.errors[0]).toMatch(/exactly one of 'jwt_validation_pubkeys', 'jwks_url' or 'oidc_discovery_url'/);
    const two = await root('POST', 'jwt/config', { jwks_url: gh.jwksUrl, oidc_discovery_url: gh.issuer });
    expect(two.status).toBe(400);
  });

  it('refuses the fields it does not implement, naming them', async () => {
    const r = await root('POST', 'jwt/config', {
      oidc_discovery_url: gh.issuer,
      oidc_client_id: 'app',
      oidc_client_secret: 's3cr3t-value',
      provider_config: { provider: 'azure' },
    });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/oidc_client_id, oidc_client_secret, provider_config/);
    expect(r.text).not.toContain('s3cr3t-value');
    expect((await root('POST', 'jwt/config', { oidc_discovery_url: gh.issuer, namespace_in_state: false })).json!.errors[0]).toMatch(
      /namespace_in_state/,
    );
  });

  it('validates PEM keys, CA certificates and algorithms at write time', async () => {
    const bad = await root('POST', 'jwt/config', {
      jwt_validation_pubkeys: [
        '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAsecretish\n-----END PUBLIC KEY-----',
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.json!.errors[0]).toMatch(/error parsing public key/);
    expect(bad.text).not.toContain('secretish');
    expect((await root('POST', 'jwt/config', { jwks_url: gh.jwksUrl, jwks_ca_pem: 'not a cert' })).json!.errors[0]).toMatch(/jwks_ca_pem/);
    const hs = await root('POST', 'jwt/config', { jwks_url: gh.jwksUrl, jwt_supported_algs: ['RS256', 'HS256'] });
    expect(hs.status).toBe(400);
    expect(hs.json!.errors[0]).toMatch(/unsupported signing algorithm HS256/);
    expect((await root('POST', 'jwt/config', { jwks_url: gh.jwksUrl, jwt_supported_algs: 'none' })).status).toBe(400);
  });

  it('refuses a key source that does not answer', async () => {
    const dead = await startIssuer();
    const url = dead.jwksUrl;
    await dead.close();
    const r = await root('POST', 'jwt/config', { jwks_url: url });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/error checking jwks URL/);
    const liar = await startIssuer({ claimedIssuer: 'https://elsewhere.example' });
    try {
      const l = await root('POST', 'jwt/config', { oidc_discovery_url: liar.issuer });
      expect(l.json!.errors[0]).toMatch(/error checking oidc discovery URL: the issuer of the OIDC discovery document does not match/);
    } finally {
      await liar.close();
    }
    // The failed writes left the config as it was.
    expect((await root('GET', 'jwt/config')).json!.data.oidc_discovery_url).toBe(gh.issuer);
  });
});

describe('roles', () => {
  it('reads a role back in the reference names, with token fields', async () => {
    const r = await root('GET', 'jwt/role/deploy');
    expect(r.json!.data).toMatchObject({
      role_type: 'jwt',
      user_claim: 'sub',
      bound_audiences: ['https://github.com/octo-org'],
      bound_claims_type: 'glob',
      bound_claims: { repository: 'octo-org/octo-repo', ref: 'refs/heads/*' },
      claim_mappings: { repository: 'repository' },
      clock_skew_leeway: 60,
      expiration_leeway: 150,
      not_before_leeway: 150,
      token_policies: ['deployer'],
      token_ttl: 600,
    });
  });

  it('lists, updates only the given fields, keeps the case of names as Vault does (Temp and temp are two roles), deletes', async () => {
    expect((await root('POST', 'jwt/role/Temp', { user_claim: 'sub', bound_subject: 'y' })).status).toBe(204);
    expect((await root('GET', 'jwt/role/Temp')).json!.data).toMatchObject({ bound_subject: 'y' });
    expect((await root('GET', 'jwt/role/temp')).status).toBe(404);
    expect((await root('DELETE', 'jwt/role/Temp')).status).toBe(204);
    expect((await root('POST', 'jwt/role/temp', { user_claim: 'sub', bound_subject: 'x' })).status).toBe(204);
    expect((await root('POST', 'jwt/role/temp', { token_ttl: 60 })).status).toBe(204);
    expect((await root('GET', 'jwt/role/temp')).json!.data).toMatchObject({ bound_subject: 'x', user_claim: 'sub', token_ttl: 60 });
    expect((await root('LIST', 'jwt/role')).json!.data.keys).toEqual(['deploy', 'temp']);
    expect((await root('DELETE', 'jwt/role/temp')).status).toBe(204);
    expect((await root('GET', 'jwt/role/temp')).status).toBe(404);
  });

  it('refuses oidc roles, a role without user_claim or any bound constraint, a reserved mapping', async () => {
    const oidc = await root('POST', 'jwt/role/web', { role_type: 'oidc', user_claim: 'sub', bound_subject: 'x' });
    expect(oidc.status).toBe(400);
    expect(oidc.json!.errors[0]).toMatch(/role_type 'oidc' is not supported/);
    expect(
      (await root('POST', 'jwt/role/web', { user_claim: 'sub', bound_subject: 'x', allowed_redirect_uris: 'https://x/cb' })).json!
        .errors[0],
    ).toMatch(/allowed_redirect_uris/);
    expect((await root('POST', 'jwt/role/web', { bound_subject: 'x' })).json!.errors[0]).toMatch(/a user claim must be defined/);
    expect((await root('POST', 'jwt/role/web', { user_claim: 'sub' })).json!.errors[0]).toMatch(/at least one bound constraint/);
    expect(
      (await root('POST', 'jwt/role/web', { user_claim: 'sub', bound_subject: 'x', claim_mappings: { sub: 'role' } })).json!.errors[0],
    ).toMatch(/reserved/);
    expect((await root('POST', 'jwt/role/web', { user_claim: 'sub', bound_claims_type: 'glob', bound_claims: { a: 1 } })).status).toBe(400);
    expect((await root('POST', 'jwt/role/web', { user_claim: 'sub', bound_subject: 'x', clock_skew_leeway: 'soon' })).status).toBe(400);
    expect((await root('GET', 'jwt/role/web')).status).toBe(404);
  });
});

describe('login with a GitHub Actions token', () => {
  it('gets a token with the role, display name, metadata and alias; the token works', async () => {
    const jwt = await gh.sign(githubActionsClaims(gh.issuer));
    const r = await login('jwt', { role: 'deploy', jwt });
    expect(r.status).toBe(200);
    const auth = r.json!.auth;
    expect(auth).toMatchObject({
      policies: ['default', 'deployer'],
      lease_duration: 600,
      renewable: true,
      orphan: true,
      metadata: {
        role: 'deploy',
        repository: 'octo-org/octo-repo',
        ref: 'refs/heads/main',
        workflow: 'example-workflow',
        actor: 'octocat',
        run_id: '1234567890',
      },
    });
    const token = auth.client_token as string;
    const self = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token });
    expect(self.json!.data).toMatchObject({
      display_name: 'jwt-repo:octo-org/octo-repo:ref:refs/heads/main',
      path: 'auth/jwt/login',
      meta: { role: 'deploy' },
    });
    expect((await call(svc.app, 'GET', '/v1/sys/policy/deployer', { token })).status).toBe(200);
    expect((await call(svc.app, 'GET', '/v1/sys/policy/default', { token })).status).toBe(403);
  });

  it('takes the config default_role when the login names none', async () => {
    expect((await login('jwt', { jwt: await gh.sign(githubActionsClaims(gh.issuer)) })).json!.errors[0]).toBe('missing role');
    // Role names keep their case (as in Vault): the default role is named as the role is.
    await root('POST', 'jwt/config', { oidc_discovery_url: gh.issuer, bound_issuer: gh.issuer, default_role: 'deploy' });
    try {
      expect((await login('jwt', { jwt: await gh.sign(githubActionsClaims(gh.issuer)) })).status).toBe(200);
    } finally {
      await root('POST', 'jwt/config', { oidc_discovery_url: gh.issuer, bound_issuer: gh.issuer });
    }
  });

  it('accepts a rotated signing key once the config is written again (the key set is fetched then)', async () => {
    // The refetch on an unknown kid, and its cooldown, are tested on the verifier (test/auth/jwt/keys.test.ts).
    const rotated = await gh.addKey();
    const before = gh.fetches.jwks;
    expect((await root('POST', 'jwt/config', { oidc_discovery_url: gh.issuer, bound_issuer: gh.issuer })).status).toBe(204);
    expect(gh.fetches.jwks).toBe(before + 1);
    expect((await login('jwt', { role: 'deploy', jwt: await gh.sign(githubActionsClaims(gh.issuer), { key: rotated }) })).status).toBe(200);
    expect(gh.fetches.jwks).toBe(before + 1);
  });
});

describe('refusals (each with a message that carries no token)', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const refusals: [string, () => Promise<string>, RegExp][] = [
    [
      'expired',
      () => gh.sign({ ...githubActionsClaims(gh.issuer), iat: now() - 900, nbf: now() - 900, exp: now() - 300 }),
      /token is expired/,
    ],
    [
      'not yet valid (nbf)',
      () => gh.sign({ ...githubActionsClaims(gh.issuer), nbf: now() + 600, exp: now() + 900 }),
      /token not yet valid/,
    ],
    [
      'issued in the future (iat)',
      () => gh.sign({ ...githubActionsClaims(gh.issuer), nbf: now() - 5, iat: now() + 600 }),
      /issued in the future/,
    ],
    ['wrong issuer', () => gh.sign(githubActionsClaims('https://token.actions.githubusercontent.com')), /invalid issuer \(iss\) claim/],
    ['wrong audience', () => gh.sign(githubActionsClaims(gh.issuer, { aud: 'sts.amazonaws.com' })), /invalid audience \(aud\) claim/],
    ['alg none', async () => unsigned(githubActionsClaims(gh.issuer), { alg: 'none', typ: 'JWT' }), /unexpected algorithm/],
    ['HS256 keyed with the public key', async () => hmacWithPublicKey(githubActionsClaims(gh.issuer)), /unexpected algorithm/],
    [
      'an unknown key',
      async () => {
        const stranger = await startIssuer();
        try {
          return await stranger.sign(githubActionsClaims(gh.issuer));
        } finally {
          await stranger.close();
        }
      },
      /no key of the key set matches/,
    ],
    [
      'a bound claim not matching (glob on ref)',
      () => gh.sign(githubActionsClaims(gh.issuer, { ref: 'refs/tags/v1' })),
      /error validating claims: claim "ref" does not match/,
    ],
    [
      'a bound claim not matching (repository)',
      () => gh.sign(githubActionsClaims(gh.issuer, { repo: 'octo-org/other' })),
      /claim "repository" does not match/,
    ],
    [
      'the user claim missing',
      async () => {
        const c = githubActionsClaims(gh.issuer);
        delete c.sub;
        return gh.sign(c);
      },
      /claim "sub" not found in token/,
    ],
    ['garbage', async () => 'not-a-jwt', /not a compact JWS/],
  ];

  it.each(refusals)('refuses %s', async (_what, make, message) => {
    const jwt = await make();
    const r = await login('jwt', { role: 'deploy', jwt });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(message);
    expect(r.text).not.toContain(jwt.split('.')[1] || jwt);
  });

  it('refuses a bound_subject mismatch', async () => {
    await root('POST', 'jwt/role/main-only', {
      user_claim: 'sub',
      bound_audiences: 'https://github.com/octo-org',
      bound_subject: 'repo:octo-org/octo-repo:ref:refs/heads/main',
    });
    expect((await login('jwt', { role: 'main-only', jwt: await gh.sign(githubActionsClaims(gh.issuer)) })).status).toBe(200);
    const r = await login('jwt', { role: 'main-only', jwt: await gh.sign(githubActionsClaims(gh.issuer, { ref: 'refs/heads/dev' })) });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/invalid subject \(sub\) claim/);
  });

  it('refuses a token with an audience on a role bound to none (the reference rule)', async () => {
    await root('POST', 'jwt/role/no-aud', { user_claim: 'sub', bound_claims: { repository: 'octo-org/octo-repo' } });
    const r = await login('jwt', { role: 'no-aud', jwt: await gh.sign(githubActionsClaims(gh.issuer)) });
    expect(r.json!.errors[0]).toMatch(/audience claim found in JWT but no audiences bound to the role/);
  });

  it('refuses an unknown role, a missing jwt, and a CIDR-bound role from an unknown address', async () => {
    expect((await login('jwt', { role: 'nope', jwt: 'a.b.c' })).json!.errors[0]).toMatch(/role "nope" could not be found/);
    expect((await login('jwt', { role: 'deploy' })).json!.errors[0]).toBe('missing token');
    await root('POST', 'jwt/role/cidr', {
      user_claim: 'sub',
      bound_audiences: 'https://github.com/octo-org',
      token_bound_cidrs: '10.0.0.0/8',
    });
    expect((await login('jwt', { role: 'cidr', jwt: await gh.sign(githubActionsClaims(gh.issuer)) })).status).toBe(403);
  });
});

describe('login with an EKS service-account token', () => {
  it('verifies with static keys or discovery; names the user by JSON pointer and maps nested claims', async () => {
    const eksMount = 'jwt';
    const saved = (await root('GET', `${eksMount}/config`)).json!.data;
    try {
      for (const config of [{ jwt_validation_pubkeys: [eks.keys[0]!.publicPem] }, { oidc_discovery_url: eks.issuer }]) {
        expect((await root('POST', `${eksMount}/config`, { ...config, bound_issuer: eks.issuer })).status).toBe(204);
        await root('POST', `${eksMount}/role/payments`, {
          role_type: 'jwt',
          bound_audiences: 'sts.amazonaws.com',
          user_claim: '/kubernetes.io/serviceaccount/name',
          user_claim_json_pointer: true,
          bound_claims: { '/kubernetes.io/namespace': 'payments' },
          claim_mappings: {
            '/kubernetes.io/namespace': 'namespace',
            '/kubernetes.io/serviceaccount/name': 'service_account',
            '/kubernetes.io/pod/name': 'pod',
            sub: 'subject',
          },
        });
        const ok = await login(eksMount, { role: 'payments', jwt: await eks.sign(eksServiceAccountClaims(eks.issuer)) });
        expect(ok.status).toBe(200);
        expect(ok.json!.auth.metadata).toEqual({
          role: 'payments',
          namespace: 'payments',
          service_account: 'api',
          pod: 'api-7d9f8b6c5-x2x4z',
          subject: 'system:serviceaccount:payments:api',
        });
        const self = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: ok.json!.auth.client_token });
        expect(self.json!.data.display_name).toBe('jwt-api');
        const other = await login(eksMount, {
          role: 'payments',
          jwt: await eks.sign(eksServiceAccountClaims(eks.issuer, { namespace: 'default' })),
        });
        expect(other.json!.errors[0]).toMatch(/claim "\/kubernetes.io\/namespace" does not match/);
      }
    } finally {
      await root('POST', `${eksMount}/config`, { oidc_discovery_url: saved.oidc_discovery_url, bound_issuer: saved.bound_issuer });
    }
  });
});

describe('secrets', () => {
  it('no JWT in a log line or in clear in the table', async () => {
    const lines = captureLogs();
    const good = await gh.sign(githubActionsClaims(gh.issuer));
    const bad = await gh.sign(githubActionsClaims(gh.issuer, { repo: 'octo-org/other' }));
    expect((await login('jwt', { role: 'deploy', jwt: good })).status).toBe(200);
    expect((await login('jwt', { role: 'deploy', jwt: bad })).status).toBe(400);
    expect((await login('jwt', { role: 'deploy', jwt: `${good}x` })).status).toBe(400);
    const logged = lines.join('');
    const raw = JSON.stringify((await svc.client.send(new ScanCommand({ TableName: svc.table }))).Items);
    for (const jwt of [good, bad]) {
      for (const part of jwt.split('.')) {
        expect(logged).not.toContain(part);
        expect(raw).not.toContain(part);
      }
    }
  });
});

function unsigned(payload: object, header: object): string {
  return `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}.`;
}

/** The classic confusion: HS256 with the issuer's public key (its PEM) as the HMAC secret. */
function hmacWithPublicKey(payload: object): string {
  const head = base64url.encode(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: gh.keys[0]!.kid }));
  const body = base64url.encode(JSON.stringify(payload));
  return `${head}.${body}.${createHmac('sha256', gh.keys[0]!.publicPem).update(`${head}.${body}`).digest('base64url')}`;
}
