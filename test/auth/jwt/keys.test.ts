/** Key sources against the OIDC issuer fake: JWKS, discovery, static keys; refetch on an unknown kid; refusals. */
import { generateKeyPairSync, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64url } from 'jose';
import { checkCaPem, createVerifier, parsePublicKeyPem } from '../../../lib/auth/jwt/keys';
import { startIssuer, type FakeIssuer } from '../../fakes/oidc/issuer';

let gh: FakeIssuer;
let eks: FakeIssuer;
let tls: FakeIssuer;
const claims = { sub: 'x', iat: 1 };

beforeAll(async () => {
  gh = await startIssuer({ algs: ['RS256', 'ES256', 'EdDSA'] });
  eks = await startIssuer({ issuerPath: '/id/EXAMPLED539D4633E53DE1B71EXAMPLE', jwksPath: '/keys' });
  tls = await startIssuer({ https: true });
});
afterAll(async () => {
  await Promise.all([gh.close(), eks.close(), tls.close()]);
});

const unsigned = (payload: object, header: object) =>
  `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}.`;

describe('a JWKS URL', () => {
  it('verifies RS256, and ES256 and EdDSA when allowed', async () => {
    const v = createVerifier({ kind: 'jwks', url: gh.jwksUrl, ca: '' });
    expect(await v.verify(await gh.sign(claims), ['RS256'])).toEqual(claims);
    expect(await v.verify(await gh.sign(claims, { key: gh.keys[1] }), ['RS256', 'ES256'])).toEqual(claims);
    expect(await v.verify(await gh.sign(claims, { key: gh.keys[2] }), ['EdDSA'])).toEqual(claims);
    await expect(v.verify(await gh.sign(claims, { key: gh.keys[1] }), ['RS256'])).rejects.toThrow('token signed with unexpected algorithm');
  });

  it('refuses alg none and an HMAC token keyed with the public key (algorithm confusion)', async () => {
    const v = createVerifier({ kind: 'jwks', url: gh.jwksUrl, ca: '' });
    await expect(v.verify(unsigned(claims, { alg: 'none', kid: gh.keys[0]!.kid }), ['RS256'])).rejects.toThrow('unexpected algorithm');
    const head = base64url.encode(JSON.stringify({ alg: 'HS256', kid: gh.keys[0]!.kid }));
    const body = base64url.encode(JSON.stringify(claims));
    const mac = createHmac('sha256', JSON.stringify(gh.keys[0]!.publicJwk)).update(`${head}.${body}`).digest('base64url');
    await expect(v.verify(`${head}.${body}.${mac}`, ['RS256'])).rejects.toThrow('unexpected algorithm');
    await expect(v.verify(`${head}.${body}.${mac}`, ['RS256', 'HS256'])).rejects.toThrow();
  });

  it('refuses a token signed by a key it does not hold, and a tampered token', async () => {
    const v = createVerifier({ kind: 'jwks', url: gh.jwksUrl, ca: '' });
    const stranger = await startIssuer();
    try {
      await expect(v.verify(await stranger.sign(claims), ['RS256'])).rejects.toThrow(/no key of the key set matches/);
      // Same kid as a real key, another key's signature.
      await expect(v.verify(await stranger.sign(claims, { header: { kid: gh.keys[0]!.kid } }), ['RS256'])).rejects.toThrow(
        'failed to verify',
      );
    } finally {
      await stranger.close();
    }
    const good = await gh.sign(claims);
    const [h, , s] = good.split('.');
    await expect(v.verify(`${h}.${base64url.encode('{"sub":"admin","iat":1}')}.${s}`, ['RS256'])).rejects.toThrow('failed to verify');
  });

  it('fetches again on an unknown kid once the cooldown has passed, and not before', async () => {
    const iss = await startIssuer();
    try {
      const v = createVerifier({ kind: 'jwks', url: iss.jwksUrl, ca: '' }, { cooldownMs: 60_000 });
      await v.verify(await iss.sign(claims), ['RS256']);
      expect(iss.fetches.jwks).toBe(1);
      const rotated = await iss.addKey();
      await expect(v.verify(await iss.sign(claims, { key: rotated }), ['RS256'])).rejects.toThrow(/no key of the key set matches/);
      for (let i = 0; i < 5; i++)
        await expect(v.verify(await iss.sign(claims, { header: { kid: `made-up-${i}` } }), ['RS256'])).rejects.toThrow();
      expect(iss.fetches.jwks).toBe(1);

      const eager = createVerifier({ kind: 'jwks', url: iss.jwksUrl, ca: '' }, { cooldownMs: 0 });
      const before = iss.fetches.jwks;
      await eager.verify(await iss.sign(claims), ['RS256']);
      const next = await iss.addKey();
      expect(await eager.verify(await iss.sign(claims, { key: next }), ['RS256'])).toEqual(claims);
      expect(iss.fetches.jwks).toBe(before + 2);
    } finally {
      await iss.close();
    }
  });

  it('fails on an unreachable URL, a junk answer or one over the size limit, naming no token', async () => {
    const iss = await startIssuer();
    try {
      iss.override('not json');
      await expect(createVerifier({ kind: 'jwks', url: iss.jwksUrl, ca: '' }).check()).rejects.toThrow();
      iss.override(JSON.stringify({ keys: [{ kty: 'RSA', n: 'x'.repeat(600 * 1024), e: 'AQAB' }] }));
      await expect(createVerifier({ kind: 'jwks', url: iss.jwksUrl, ca: '' }).check()).rejects.toThrow(/larger than/);
    } finally {
      await iss.close();
    }
    await expect(createVerifier({ kind: 'jwks', url: iss.jwksUrl, ca: '' }).check()).rejects.toThrow(/could not be fetched/);
  });

  it('trusts jwks_ca_pem for an https issuer, and refuses it without', async () => {
    const token = await tls.sign(claims);
    expect(await createVerifier({ kind: 'jwks', url: tls.jwksUrl, ca: tls.ca }).verify(token, ['RS256'])).toEqual(claims);
    await expect(createVerifier({ kind: 'jwks', url: tls.jwksUrl, ca: '' }).verify(token, ['RS256'])).rejects.toThrow(
      /could not be fetched/,
    );
  });
});

describe('OIDC discovery', () => {
  it('finds the JWKS of an EKS-style issuer under its path', async () => {
    const v = createVerifier({ kind: 'discovery', url: eks.issuer, ca: '' });
    await v.check();
    expect(eks.fetches.discovery).toBe(1);
    expect(await v.verify(await eks.sign(claims), ['RS256'])).toEqual(claims);
  });
  it('refuses a discovery document whose issuer is not the URL', async () => {
    const liar = await startIssuer({ claimedIssuer: 'https://token.actions.githubusercontent.com' });
    try {
      await expect(createVerifier({ kind: 'discovery', url: liar.issuer, ca: '' }).check()).rejects.toThrow(
        'does not match oidc_discovery_url',
      );
    } finally {
      await liar.close();
    }
  });
});

describe('static PEM keys', () => {
  it('verifies with any of the keys, refuses others', async () => {
    const v = createVerifier({ kind: 'static', pems: [gh.keys[1]!.publicPem, gh.keys[0]!.publicPem] });
    expect(await v.verify(await gh.sign(claims), ['RS256'])).toEqual(claims);
    expect(await v.verify(await gh.sign(claims, { key: gh.keys[1] }), ['ES256'])).toEqual(claims);
    await expect(v.verify(await eks.sign(claims), ['RS256'])).rejects.toThrow('failed to verify');
    await expect(v.verify(unsigned(claims, { alg: 'none' }), ['RS256'])).rejects.toThrow('unexpected algorithm');
  });
  it('parses public keys and certificates; refuses private keys and junk without quoting them', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(parsePublicKeyPem(publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'k').asymmetricKeyType).toBe('ec');
    const pkcs1 = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(parsePublicKeyPem(pkcs1, 'k').asymmetricKeyType).toBe('rsa');
    const priv = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => parsePublicKeyPem(priv, 'k')).toThrow('a private key was given');
    try {
      parsePublicKeyPem('-----BEGIN PUBLIC KEY-----\nAAAAsecret\n-----END PUBLIC KEY-----', 'k');
    } catch (e) {
      expect((e as Error).message).not.toContain('AAAAsecret');
    }
    expect(() => checkCaPem('nope', 'jwks_ca_pem')).toThrow('expected one or more PEM certificates');
    expect(() => checkCaPem(tls.ca, 'jwks_ca_pem')).not.toThrow();
  });
});
