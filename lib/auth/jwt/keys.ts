/**
 * Where the keys that verify a token come from, and the signature check itself (npm `jose`):
 * a JWKS URL, an OIDC discovery URL (its `jwks_uri`), or static PEM public keys. Remote key
 * sets are fetched with a time limit and a size limit, cached (10 minutes), and fetched again
 * on a token whose `kid` they do not hold, at most once per cooldown (30 s) so that tokens with
 * made-up key ids cannot make us hammer the issuer. No HTTP request shapes here.
 */
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { compactVerify, createRemoteJWKSet, customFetch, errors, type CompactVerifyGetKey, type FetchImplementation } from 'jose';
import { InvalidInput } from '../../domain-errors';
import type { Claims } from './claims';
import { checkFetchUrl, FETCH_TIMEOUT_MS, getDocument, getJsonObject } from './fetch';

export const JWKS_CACHE_MAX_AGE_MS = 10 * 60 * 1000;
export const JWKS_REFETCH_COOLDOWN_MS = 30 * 1000;

export type KeySource =
  { kind: 'jwks'; url: string; ca: string } | { kind: 'discovery'; url: string; ca: string } | { kind: 'static'; pems: string[] };

export interface Verifier {
  /** Fetches what the source needs (a config write checks it this way). */
  check(): Promise<void>;
  /** The verified payload; throws InvalidInput naming what failed (never the token). */
  verify(token: string, algorithms: string[]): Promise<Claims>;
}

export interface RemoteOptions {
  cooldownMs?: number;
  cacheMaxAgeMs?: number;
}

/** A PEM public key (SPKI or PKCS#1) or certificate; private keys are refused. Messages never quote the PEM. */
export function parsePublicKeyPem(pem: string, field: string): KeyObject {
  const text = pem.trim();
  if (/PRIVATE KEY-----/.test(text)) throw new InvalidInput(`${field}: a private key was given; give the public key`);
  try {
    if (text.startsWith('-----BEGIN CERTIFICATE-----')) return new X509Certificate(text).publicKey;
    if (!/^-----BEGIN (RSA )?PUBLIC KEY-----/.test(text)) throw new Error('not a public key block');
    const key = createPublicKey(text);
    if (key.type !== 'public') throw new Error('not a public key');
    return key;
  } catch {
    throw new InvalidInput(`${field}: error parsing public key: expected a PEM public key or certificate`);
  }
}

/** One or more PEM CA certificates. */
export function checkCaPem(pem: string, field: string): void {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) throw new InvalidInput(`${field}: expected one or more PEM certificates`);
  for (const b of blocks) {
    try {
      new X509Certificate(b);
    } catch {
      throw new InvalidInput(`${field}: a certificate could not be parsed`);
    }
  }
}

function fetchWith(ca: string): FetchImplementation {
  return async (url, options) => {
    const { status, body } = await getDocument(checkFetchUrl(url, 'jwks_uri'), { ...(ca ? { ca } : {}), signal: options.signal });
    if (status < 200 || status > 599) throw new InvalidInput(`the key set answered ${status}`);
    return new Response(status === 204 || status === 304 ? null : body, { status, headers: { 'content-type': 'application/json' } });
  };
}

/** What jose's refusals mean, in words that carry nothing of the token. */
function explain(e: unknown): InvalidInput {
  if (e instanceof InvalidInput) return e;
  if (e instanceof errors.JOSEAlgNotAllowed) return new InvalidInput('token signed with unexpected algorithm');
  if (e instanceof errors.JWKSNoMatchingKey)
    return new InvalidInput('no key of the key set matches the token (unknown key id or algorithm)');
  if (e instanceof errors.JWSSignatureVerificationFailed) return new InvalidInput('failed to verify id token signature');
  if (e instanceof errors.JWKSTimeout) return new InvalidInput('the key set could not be fetched in time');
  if (e instanceof errors.JWKSInvalid) return new InvalidInput('the key set is not a valid JWKS');
  if (e instanceof errors.JOSENotSupported) return new InvalidInput('token uses an unsupported algorithm or key type');
  if (e instanceof errors.JWSInvalid || e instanceof errors.JWTInvalid) return new InvalidInput('token is not a valid compact JWS');
  if (e instanceof errors.JOSEError) return new InvalidInput(`token could not be verified (${e.code})`);
  if (e instanceof TypeError) return new InvalidInput('token could not be verified with the configured keys');
  return new InvalidInput('token could not be verified');
}

function payloadOf(bytes: Uint8Array): Claims {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new InvalidInput('token payload is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidInput('token payload is not a JSON object');
  return parsed as Claims;
}

/** Verifies with a key resolver; when several keys match (no kid), tries each as jose suggests. */
async function verifyWith(token: string, getKey: CompactVerifyGetKey, algorithms: string[]): Promise<Claims> {
  try {
    return payloadOf((await compactVerify(token, getKey, { algorithms })).payload);
  } catch (e) {
    if (!(e instanceof errors.JWKSMultipleMatchingKeys)) throw explain(e);
    for await (const key of e) {
      try {
        return payloadOf((await compactVerify(token, key, { algorithms })).payload);
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw explain(inner);
      }
    }
    throw new InvalidInput('failed to verify id token signature');
  }
}

class RemoteVerifier implements Verifier {
  private keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(
    private readonly resolveJwksUrl: () => Promise<URL>,
    private readonly ca: string,
    private readonly options: RemoteOptions,
  ) {}

  private async keySet() {
    if (!this.keys) {
      const url = await this.resolveJwksUrl();
      this.keys = createRemoteJWKSet(url, {
        timeoutDuration: FETCH_TIMEOUT_MS,
        cooldownDuration: this.options.cooldownMs ?? JWKS_REFETCH_COOLDOWN_MS,
        cacheMaxAge: this.options.cacheMaxAgeMs ?? JWKS_CACHE_MAX_AGE_MS,
        [customFetch]: fetchWith(this.ca),
      });
    }
    return this.keys;
  }

  async check(): Promise<void> {
    try {
      await (await this.keySet()).reload();
    } catch (e) {
      throw explain(e);
    }
  }

  async verify(token: string, algorithms: string[]): Promise<Claims> {
    let keys;
    try {
      keys = await this.keySet();
    } catch (e) {
      throw explain(e);
    }
    return verifyWith(token, keys, algorithms);
  }
}

/** The discovery document's jwks_uri; its issuer must be the discovery URL itself, as OIDC requires. */
async function discoverJwksUrl(discoveryUrl: string, ca: string): Promise<URL> {
  const base = checkFetchUrl(discoveryUrl, 'oidc_discovery_url');
  const wellKnown = new URL(`${base.href.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  const doc = await getJsonObject(wellKnown, ca ? { ca } : {});
  if (doc.issuer !== discoveryUrl) throw new InvalidInput('the issuer of the OIDC discovery document does not match oidc_discovery_url');
  if (typeof doc.jwks_uri !== 'string') throw new InvalidInput('the OIDC discovery document has no jwks_uri');
  return checkFetchUrl(doc.jwks_uri, 'jwks_uri');
}

class StaticVerifier implements Verifier {
  private readonly keys: KeyObject[];

  constructor(pems: string[]) {
    this.keys = pems.map((p) => parsePublicKeyPem(p, 'jwt_validation_pubkeys'));
  }

  async check(): Promise<void> {}

  async verify(token: string, algorithms: string[]): Promise<Claims> {
    let last: unknown = new InvalidInput('failed to verify id token signature');
    for (const key of this.keys) {
      try {
        return payloadOf((await compactVerify(token, key, { algorithms })).payload);
      } catch (e) {
        // A key of another type (an EC key for an RS256 token) is a TypeError or "not supported": try the next.
        if (e instanceof errors.JOSEAlgNotAllowed || e instanceof errors.JWSInvalid || e instanceof InvalidInput) throw explain(e);
        last = e instanceof TypeError || e instanceof errors.JOSENotSupported ? new InvalidInput('failed to verify id token signature') : e;
      }
    }
    throw explain(last);
  }
}

export function createVerifier(source: KeySource, options: RemoteOptions = {}): Verifier {
  switch (source.kind) {
    case 'static':
      return new StaticVerifier(source.pems);
    case 'jwks':
      return new RemoteVerifier(async () => checkFetchUrl(source.url, 'jwks_url'), source.ca, options);
    case 'discovery': {
      let found: Promise<URL> | undefined;
      const resolve = () => {
        // Discovered once per verifier; a failure is not kept, so the next login tries again.
        found ??= discoverJwksUrl(source.url, source.ca).catch((e: unknown) => {
          found = undefined;
          throw e;
        });
        return found;
      };
      return new RemoteVerifier(resolve, source.ca, options);
    }
  }
}

/** Verifiers by mount and source, so key sets stay cached between logins (and Lambda invocations). */
const verifiers = new Map<string, { fingerprint: string; verifier: Verifier }>();
const MAX_CACHED = 64;

export function cachedVerifier(scope: string, source: KeySource): Verifier {
  const fingerprint = JSON.stringify(source);
  const hit = verifiers.get(scope);
  if (hit?.fingerprint === fingerprint) return hit.verifier;
  const verifier = createVerifier(source);
  remember(scope, fingerprint, verifier);
  return verifier;
}

/** After a config write: the freshly checked verifier replaces whatever was cached for the mount. */
export function rememberVerifier(scope: string, source: KeySource, verifier: Verifier): void {
  remember(scope, JSON.stringify(source), verifier);
}

function remember(scope: string, fingerprint: string, verifier: Verifier): void {
  verifiers.delete(scope);
  if (verifiers.size >= MAX_CACHED) verifiers.delete(verifiers.keys().next().value!);
  verifiers.set(scope, { fingerprint, verifier });
}
