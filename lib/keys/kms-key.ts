/**
 * AWS KMS as the key-encryption key: data keys come from GenerateDataKey (AES-256) and are
 * unwrapped with Decrypt. The context is the KMS EncryptionContext, and Decrypt names the key,
 * so a data key wrapped under another KMS key or another context is refused by KMS itself.
 */
import { timedKms } from '../metrics/calls';
import type { DataKey, KeyWrapper } from './key-wrapper';
import type { KmsApi } from './kms-api';

/**
 * A failed KMS call. The message names only the operation and the KMS error name (plus the
 * request id for AWS support): SDK errors can echo request details, never worth logging here.
 */
export class KmsCallError extends Error {
  constructor(
    readonly operation: string,
    readonly errorName: string,
    readonly requestId?: string,
  ) {
    super(`KMS ${operation} failed: ${errorName}${requestId ? ` (request id ${requestId})` : ''}`);
    this.name = 'KmsCallError';
  }
}

function errorName(e: unknown): string {
  if (typeof e !== 'object' || e === null) return 'UnknownError';
  const { name, code } = e as { name?: unknown; code?: unknown };
  // Network failures carry a Node code (ECONNREFUSED...) that says more than their name.
  if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
  return typeof name === 'string' && /^\w{1,100}$/.test(name) ? name : 'UnknownError';
}

function requestId(e: unknown): string | undefined {
  const id = (e as { $metadata?: { requestId?: unknown } } | null)?.$metadata?.requestId;
  return typeof id === 'string' && /^[\w-]{1,100}$/.test(id) ? id : undefined;
}

async function call<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await timedKms(operation, run);
  } catch (e) {
    throw new KmsCallError(operation, errorName(e), requestId(e));
  }
}

export class KmsKeyWrapper implements KeyWrapper {
  readonly kind = 'kms';
  private readonly api: KmsApi;
  private readonly keyId: string;

  constructor(options: { api: KmsApi; keyId: string }) {
    if (!options.keyId) throw new Error('a KMS key id is required');
    this.api = options.api;
    this.keyId = options.keyId;
  }

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const out = await call('GenerateDataKey', () =>
      this.api.generateDataKey({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    if (out.Plaintext?.length !== 32 || !out.CiphertextBlob?.length) throw new KmsCallError('GenerateDataKey', 'MalformedResponse');
    return { plaintext: Buffer.from(out.Plaintext), wrapped: Buffer.from(out.CiphertextBlob) };
  }

  async unwrap(wrapped: Buffer, context: Record<string, string>): Promise<Buffer> {
    const out = await call('Decrypt', () => this.api.decrypt({ KeyId: this.keyId, CiphertextBlob: wrapped, EncryptionContext: context }));
    if (out.Plaintext?.length !== 32) throw new KmsCallError('Decrypt', 'MalformedResponse');
    return Buffer.from(out.Plaintext);
  }
}
