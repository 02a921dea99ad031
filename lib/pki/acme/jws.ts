/**
 * The JWS of every ACME POST (RFC 8555 section 6.2): flattened JSON serialisation, a protected
 * header with `alg`, `nonce`, `url` and exactly one of `jwk` / `kid`, verified with `jose`.
 * Account keys: ECDSA P-256/P-384/P-521, RSA (2048 bits or more, PKCS#1 v1.5 or PSS), Ed25519.
 */
import { calculateJwkThumbprint, flattenedVerify, importJWK, type JWK } from 'jose';
import { jsonLimitExceeded } from '../../http/json-limits';
import { AcmeProblem, malformed } from './problem';

export const ACCOUNT_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'];
const MAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'];

/** A public JWK as the store keeps it (only the members that name the key). */
export type AccountKey = { kty: string; crv?: string; x?: string; y?: string; n?: string; e?: string };

export interface FlattenedJws {
  protected: string;
  payload: string;
  signature: string;
}

export interface ProtectedHeader {
  alg: string;
  nonce?: string;
  url?: string;
  jwk?: AccountKey;
  kid?: string;
}

export interface ParsedJws {
  jws: FlattenedJws;
  header: ProtectedHeader;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/** JSON text parsed (`invalid` when it is not JSON), then held to the nesting and size limits of every request input. */
function parseJson(text: string, what: string, invalid: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw malformed(invalid);
  }
  const exceeded = jsonLimitExceeded(v);
  if (exceeded) throw malformed(`${what} ${exceeded}`);
  return v;
}

function decodeJsonPart(part: string, what: string): unknown {
  if (!B64URL.test(part)) throw malformed(`${what} is not base64url`);
  return parseJson(Buffer.from(part, 'base64url').toString('utf8'), what, `${what} is not base64url-encoded JSON`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The public members of a JWK, checked: no private parts, a key type this server takes. */
export function accountKeyOf(v: unknown): AccountKey {
  if (!isObject(v)) throw malformed('jwk is not a JSON object');
  if ('d' in v || 'p' in v || 'k' in v) throw new AcmeProblem('badPublicKey', 'the jwk must be a public key');
  const str = (name: string) => {
    const x = v[name];
    if (typeof x !== 'string' || !B64URL.test(x) || !x)
      throw new AcmeProblem('badPublicKey', `jwk member "${name}" is missing or not base64url`);
    return x;
  };
  switch (v.kty) {
    case 'EC': {
      if (v.crv !== 'P-256' && v.crv !== 'P-384' && v.crv !== 'P-521')
        throw new AcmeProblem('badPublicKey', 'EC keys must be on P-256, P-384 or P-521');
      return { kty: 'EC', crv: v.crv, x: str('x'), y: str('y') };
    }
    case 'RSA': {
      const n = str('n');
      const bits = Buffer.from(n, 'base64url').length * 8;
      if (bits < 2048 || bits > 8192) throw new AcmeProblem('badPublicKey', 'RSA keys must have 2048 to 8192 bits');
      return { kty: 'RSA', n, e: str('e') };
    }
    case 'OKP': {
      if (v.crv !== 'Ed25519') throw new AcmeProblem('badPublicKey', 'OKP keys must be Ed25519');
      return { kty: 'OKP', crv: 'Ed25519', x: str('x') };
    }
    default:
      throw new AcmeProblem('badPublicKey', 'unsupported key type: use EC, RSA or Ed25519');
  }
}

/** The key type each algorithm signs with. */
function algFitsKey(alg: string, key: AccountKey): boolean {
  if (alg === 'EdDSA') return key.kty === 'OKP';
  if (alg.startsWith('ES')) return key.kty === 'EC' && { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' }[alg] === key.crv;
  return key.kty === 'RSA';
}

/** Parses an ACME POST body; the content type must be application/jose+json (else 415). */
export function parseJws(
  body: Uint8Array | undefined,
  contentType: string | undefined,
  options: { nonce: 'required' | 'optional' } = { nonce: 'required' },
): ParsedJws {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/jose+json')
    throw new AcmeProblem('malformed', 'the Content-Type must be application/jose+json', { status: 415 });
  const outer = parseJson(Buffer.from(body ?? new Uint8Array()).toString('utf8'), 'the request body', 'the body is not JSON');
  if (!isObject(outer)) throw malformed('the body must be a flattened JWS (a JSON object)');
  if ('header' in outer || 'signatures' in outer) throw malformed('JWS unprotected headers and the general serialisation are not allowed');
  const { protected: p, payload, signature } = outer;
  if (typeof p !== 'string' || typeof payload !== 'string' || typeof signature !== 'string')
    throw malformed('the JWS must have string "protected", "payload" and "signature" members');
  const header = decodeJsonPart(p, 'the protected header');
  if (!isObject(header)) throw malformed('the protected header is not a JSON object');
  const alg = header.alg;
  if (typeof alg !== 'string' || !ACCOUNT_ALGORITHMS.includes(alg))
    throw new AcmeProblem('badSignatureAlgorithm', `unsupported JWS algorithm ${JSON.stringify(String(alg).slice(0, 20))}`, {
      algorithms: ACCOUNT_ALGORITHMS,
    });
  if ('jwk' in header === 'kid' in header) throw malformed('the protected header must have exactly one of "jwk" and "kid"');
  if (typeof header.url !== 'string') throw malformed('the protected header has no "url"');
  if (typeof header.nonce !== 'string' && (options.nonce === 'required' || header.nonce !== undefined))
    throw new AcmeProblem('badNonce', 'the protected header has no "nonce"');
  if ('kid' in header && typeof header.kid !== 'string') throw malformed('"kid" must be a string');
  const jwk = 'jwk' in header ? accountKeyOf(header.jwk) : undefined;
  if (jwk && !algFitsKey(alg, jwk))
    throw new AcmeProblem('badSignatureAlgorithm', `algorithm ${alg} does not fit the ${jwk.kty} key`, { algorithms: ACCOUNT_ALGORITHMS });
  return {
    jws: { protected: p, payload, signature },
    header: {
      alg,
      url: header.url,
      ...(typeof header.nonce === 'string' ? { nonce: header.nonce } : {}),
      ...(jwk ? { jwk } : {}),
      ...(typeof header.kid === 'string' ? { kid: header.kid } : {}),
    },
  };
}

/** Verifies the signature with `key`; the payload's text ('' for POST-as-GET). */
export async function verifyJws(parsed: ParsedJws, key: AccountKey): Promise<string> {
  if (!algFitsKey(parsed.header.alg, key))
    throw new AcmeProblem('badSignatureAlgorithm', `algorithm ${parsed.header.alg} does not fit the account's ${key.kty} key`, {
      algorithms: ACCOUNT_ALGORITHMS,
    });
  try {
    const publicKey = await importJWK(key as JWK, parsed.header.alg);
    const out = await flattenedVerify(parsed.jws, publicKey, { algorithms: [parsed.header.alg] });
    return Buffer.from(out.payload).toString('utf8');
  } catch {
    throw malformed('the JWS signature is invalid');
  }
}

/** The JSON payload of a verified JWS: undefined for POST-as-GET (an empty payload), else an object. */
export function payloadObject(text: string): Record<string, unknown> | undefined {
  if (text === '') return undefined;
  const v = parseJson(text, 'the JWS payload', 'the JWS payload is not JSON');
  if (!isObject(v)) throw malformed('the JWS payload must be a JSON object');
  return v;
}

/** RFC 7638 thumbprint, base64url (the account key's identity, and half of a key authorization). */
export const thumbprint = (key: AccountKey): Promise<string> => calculateJwkThumbprint(key as JWK, 'sha256');

/**
 * An external account binding (RFC 8555 section 7.3.4): a JWS with an HMAC `alg`, the EAB's `kid`
 * and the newAccount `url`, over the account's JWK. Returns the EAB id; `keyOf` gives its MAC key.
 */
export async function verifyEab(
  eab: unknown,
  url: string,
  accountKey: AccountKey,
  keyOf: (kid: string) => Promise<Buffer | undefined>,
): Promise<string> {
  const { jws, alg, kid } = eabParts(eab, url);
  const macKey = await keyOf(kid);
  if (!macKey) throw new AcmeProblem('unauthorized', 'unknown or used external account binding');
  const bound = boundAccountKey(await eabPayload(jws, macKey, alg));
  if ((await thumbprint(bound)) !== (await thumbprint(accountKey)))
    throw new AcmeProblem('unauthorized', 'the external account binding is for another key');
  return kid;
}

/** The EAB as a flattened JWS whose header has an HMAC `alg`, no nonce, the request's `url` and a `kid`. */
function eabParts(eab: unknown, url: string): { jws: FlattenedJws; alg: string; kid: string } {
  if (!isObject(eab) || typeof eab.protected !== 'string' || typeof eab.payload !== 'string' || typeof eab.signature !== 'string')
    throw malformed('externalAccountBinding must be a flattened JWS');
  const header = decodeJsonPart(eab.protected, 'the externalAccountBinding header');
  if (!isObject(header) || typeof header.alg !== 'string' || !MAC_ALGORITHMS.includes(header.alg))
    throw new AcmeProblem('badSignatureAlgorithm', 'externalAccountBinding must use HS256, HS384 or HS512', { algorithms: MAC_ALGORITHMS });
  if ('nonce' in header) throw malformed('externalAccountBinding must not have a nonce');
  if (header.url !== url) throw malformed('externalAccountBinding url does not match the request url');
  if (typeof header.kid !== 'string' || !header.kid) throw malformed('externalAccountBinding has no kid');
  return { jws: { protected: eab.protected, payload: eab.payload, signature: eab.signature }, alg: header.alg, kid: header.kid };
}

/** The EAB's payload, once its MAC verifies under the EAB's key. */
async function eabPayload(jws: FlattenedJws, macKey: Buffer, alg: string): Promise<Uint8Array> {
  try {
    return (await flattenedVerify(jws, macKey, { algorithms: [alg] })).payload;
  } catch {
    throw new AcmeProblem('unauthorized', 'the external account binding signature is invalid');
  }
}

/** The account JWK an EAB's payload binds. */
function boundAccountKey(payload: Uint8Array): AccountKey {
  try {
    return accountKeyOf(
      parseJson(
        Buffer.from(payload).toString('utf8'),
        'the externalAccountBinding payload',
        'the externalAccountBinding payload is not JSON',
      ),
    );
  } catch {
    throw malformed('the externalAccountBinding payload is not the account JWK');
  }
}
