/**
 * python3-hvac against a local Latchkey (startLocal): `auth.jwt.configure`, `create_role`,
 * `jwt_login` with a GitHub Actions token and an EKS service-account token signed by the OIDC
 * issuer fake, then the token in use; refusals come back as hvac's InvalidRequest.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { eksServiceAccountClaims, githubActionsClaims, startIssuer, type FakeIssuer } from '../../fakes/oidc/issuer';

let local: LocalService;
let gh: FakeIssuer;
let eks: FakeIssuer;
let out: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  local = await startLocal({ dataDir: mkdtempSync(join(tmpdir(), 'latchkey-jwt-')), port: 0, quiet: true });
  gh = await startIssuer();
  eks = await startIssuer({ issuerPath: '/id/EXAMPLED539D4633E53DE1B71EXAMPLE', jwksPath: '/keys' });
  const t = Math.floor(Date.now() / 1000);
  const tokens = {
    GH_JWT: await gh.sign(githubActionsClaims(gh.issuer, { aud: 'sts.amazonaws.com' })),
    GH_JWT_TAG: await gh.sign(githubActionsClaims(gh.issuer, { aud: 'sts.amazonaws.com', ref: 'refs/tags/v1.0.0' })),
    GH_JWT_EXPIRED: await gh.sign({
      ...githubActionsClaims(gh.issuer, { aud: 'sts.amazonaws.com' }),
      iat: t - 3600,
      nbf: t - 3600,
      exp: t - 1800,
    }),
    EKS_JWT: await eks.sign(eksServiceAccountClaims(eks.issuer)),
    EKS_JWT_OTHER: await eks.sign(eksServiceAccountClaims(eks.issuer, { serviceAccount: 'batch' })),
  };
  const { stdout } = await promisify(execFile)('/usr/bin/python3', [join(import.meta.dirname, 'jwt_hvac.py')], {
    env: {
      ...process.env,
      ...tokens,
      LATCHKEY_ADDR: local.url,
      LATCHKEY_TOKEN: local.rootToken!,
      GH_ISSUER: gh.issuer,
      EKS_ISSUER: eks.issuer,
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONWARNINGS: 'ignore::DeprecationWarning',
    },
    timeout: 60_000,
  });
  out = JSON.parse(stdout);
}, 90_000);

afterAll(async () => {
  await local?.close();
  await Promise.all([gh?.close(), eks?.close()]);
});

describe('python3-hvac: auth/jwt', () => {
  it('configures the mount and a role, reads them back and lists', () => {
    expect(out.config).toMatchObject({ oidc_discovery_url: gh.issuer, bound_issuer: gh.issuer });
    expect(out.role).toMatchObject({
      role_type: 'jwt',
      user_claim: 'sub',
      bound_claims_type: 'glob',
      token_policies: ['ci-read'],
      token_ttl: 900,
    });
    expect(out.roles).toEqual(['deploy']);
  });

  it('a GitHub Actions job logs in with jwt_login and uses its token', () => {
    expect(out.gh_login).toMatchObject({
      client_token: '<token>',
      policies: ['ci-read', 'default'],
      lease_duration: 900,
      metadata: {
        role: 'deploy',
        repository: 'octo-org/octo-repo',
        ref: 'refs/heads/main',
        workflow: 'example-workflow',
        run_id: '1234567890',
      },
    });
    expect(out.gh_authenticated).toBe(true);
    expect(out.gh_self).toMatchObject({
      display_name: 'jwt-repo:octo-org/octo-repo:ref:refs/heads/main',
      path: 'auth/jwt/login',
      orphan: true,
    });
    expect(out.gh_use).toEqual({ ok: 'ci-read' });
  });

  it('a tag build (outside refs/heads/*) and an expired token are refused as InvalidRequest', () => {
    expect(out.gh_other_branch).toMatchObject({ error: 'InvalidRequest', message: expect.stringMatching(/claim "ref" does not match/) });
    expect(out.gh_expired).toMatchObject({ error: 'InvalidRequest', message: expect.stringMatching(/token is expired/) });
  });

  it('a pod on EKS logs in with its service-account token; nested claims become metadata', () => {
    expect(out.eks_login).toMatchObject({
      metadata: { role: 'payments-api', namespace: 'payments', service_account: 'api' },
      policies: ['ci-read', 'default'],
    });
    expect(out.eks_use).toEqual({ ok: 'ci-read' });
    expect(out.eks_other_sa).toMatchObject({ error: 'InvalidRequest', message: expect.stringMatching(/invalid subject \(sub\) claim/) });
  });
});
