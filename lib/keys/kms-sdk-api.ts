/** Sealing's KMS operations through the official SDK client (tests and tools). */
import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { KmsApi } from './kms-api';

export function sdkKmsApi(client: KMSClient): KmsApi {
  return {
    generateDataKey: (input) => client.send(new GenerateDataKeyCommand(input)),
    decrypt: (input) => client.send(new DecryptCommand(input)),
  };
}
