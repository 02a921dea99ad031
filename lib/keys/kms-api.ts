/**
 * The two KMS operations sealing needs, with two implementations: the lean JSON client
 * (production, no SDK on the cold-start path) and the official SDK (kms-sdk-api.ts).
 */
import { AwsJsonClient } from '../aws/json-client';
import type { Credentials } from '../aws/sigv4';

/** The lean JSON client for KMS in `region` (or at `endpoint`). */
export function kmsClient(
  region: string,
  endpoint: string | undefined,
  credentials: () => Credentials,
  maxAttempts?: number,
): AwsJsonClient {
  return new AwsJsonClient({
    service: 'kms',
    region,
    endpoint: endpoint ?? `https://kms.${region}.amazonaws.com`,
    targetPrefix: 'TrentService',
    jsonVersion: '1.1',
    credentials,
    ...(maxAttempts ? { maxAttempts } : {}),
  });
}

/** What sealing sends (the deployed role must allow each: test/lambda/package.test.ts). */
export const KMS_SEALING_OPERATIONS = ['GenerateDataKey', 'Decrypt'] as const;

export interface KmsDataKeyInput {
  KeyId: string;
  EncryptionContext: Record<string, string>;
}

export interface KmsApi {
  generateDataKey(input: KmsDataKeyInput & { KeySpec: 'AES_256' }): Promise<{ Plaintext?: Uint8Array; CiphertextBlob?: Uint8Array }>;
  decrypt(input: KmsDataKeyInput & { CiphertextBlob: Uint8Array }): Promise<{ Plaintext?: Uint8Array }>;
}

const bytes = (v: unknown) => (typeof v === 'string' ? Buffer.from(v, 'base64') : undefined);

export function leanKmsApi(client: AwsJsonClient): KmsApi {
  return {
    async generateDataKey(input) {
      const out = await client.call<{ Plaintext?: string; CiphertextBlob?: string }>('GenerateDataKey', input);
      return { Plaintext: bytes(out.Plaintext), CiphertextBlob: bytes(out.CiphertextBlob) };
    },
    async decrypt(input) {
      const out = await client.call<{ Plaintext?: string }>('Decrypt', {
        ...input,
        CiphertextBlob: Buffer.from(input.CiphertextBlob).toString('base64'),
      });
      return { Plaintext: bytes(out.Plaintext) };
    },
  };
}
