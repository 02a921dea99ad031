/**
 * A signer whose private key never leaves AWS KMS: the digest is computed here and every
 * signature is a KMS Sign call (MessageType DIGEST), through the lean JSON client (the SDK
 * client would be most of the pki function's bundle and cold start).
 */
import { timedKms } from '../metrics/calls';
import { createHash } from 'node:crypto';
import { envCredentials, type AwsJsonClient } from '../aws/json-client';
import { UpstreamError } from '../domain-errors';
import { kmsClient } from './kms-api';
import { KmsCallError } from './kms-key';
import type { KeyType, SignatureAlgorithm, Signer } from './signer';

export interface KmsSignerOptions {
  keyId: string;
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

const clients = new Map<string, AwsJsonClient>();

function clientFor(o: KmsSignerOptions): AwsJsonClient {
  const cacheKey = `${o.region}|${o.endpoint ?? ''}|${o.credentials?.accessKeyId ?? ''}`;
  let c = clients.get(cacheKey);
  if (!c) {
    const given = o.credentials;
    c = kmsClient(o.region, o.endpoint, given ? () => given : () => envCredentials(), 3);
    clients.set(cacheKey, c);
  }
  return c;
}

const SPECS: Record<string, { keyType: KeyType; keyBits: number }> = {
  RSA_2048: { keyType: 'rsa', keyBits: 2048 },
  RSA_3072: { keyType: 'rsa', keyBits: 3072 },
  RSA_4096: { keyType: 'rsa', keyBits: 4096 },
  ECC_NIST_P256: { keyType: 'ec', keyBits: 256 },
  ECC_NIST_P384: { keyType: 'ec', keyBits: 384 },
  ECC_NIST_P521: { keyType: 'ec', keyBits: 521 },
};

function kmsError(operation: string, e: unknown): KmsCallError {
  const name = (e as { name?: unknown } | null)?.name;
  const code = (e as { code?: unknown } | null)?.code;
  const id =
    typeof code === 'string' && /^[A-Z_]+$/.test(code)
      ? code
      : typeof name === 'string' && /^\w{1,100}$/.test(name)
        ? name
        : 'UnknownError';
  return new KmsCallError(operation, id);
}

export class KmsSigner implements Signer {
  readonly kind = 'kms';

  private constructor(
    private readonly options: KmsSignerOptions,
    readonly keyType: KeyType,
    readonly keyBits: number,
    readonly spki: Buffer,
  ) {}

  /** Reads the key's public half and spec; refuses keys that cannot sign certificates. */
  static async open(options: KmsSignerOptions): Promise<KmsSigner> {
    let out: { KeySpec?: string; KeyUsage?: string; PublicKey?: string };
    try {
      out = await timedKms('GetPublicKey', () => clientFor(options).call('GetPublicKey', { KeyId: options.keyId }));
    } catch (e) {
      throw kmsError('GetPublicKey', e);
    }
    const spec = SPECS[out.KeySpec ?? ''];
    if (!spec || out.KeyUsage !== 'SIGN_VERIFY' || !out.PublicKey)
      throw new Error(`the KMS key is not an asymmetric signing key (${out.KeySpec ?? 'unknown'} ${out.KeyUsage ?? ''})`);
    return new KmsSigner(options, spec.keyType, spec.keyBits, Buffer.from(out.PublicKey, 'base64'));
  }

  async sign(data: Buffer, alg: SignatureAlgorithm): Promise<Buffer> {
    if (!alg.hash) throw new Error('KMS keys sign digests only');
    const digest = createHash(alg.hash).update(data).digest();
    const suffix = alg.hash.slice(3);
    const algorithm = this.keyType === 'rsa' ? `RSASSA_PKCS1_V1_5_SHA_${suffix}` : `ECDSA_SHA_${suffix}`;
    try {
      const out = await timedKms('Sign', () =>
        clientFor(this.options).call<{ Signature?: string }>('Sign', {
          KeyId: this.options.keyId,
          Message: digest.toString('base64'),
          MessageType: 'DIGEST',
          SigningAlgorithm: algorithm,
        }),
      );
      const signature = Buffer.from(out.Signature ?? '', 'base64');
      if (!signature.length) throw new Error('empty signature');
      return signature;
    } catch (e) {
      // The upstream failed, not the request: a 502 that names the KMS error, never its text.
      throw new UpstreamError(kmsError('Sign', e).message, { cause: e });
    }
  }
}
