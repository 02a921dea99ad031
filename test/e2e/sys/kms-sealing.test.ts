/** The whole service sealing with KMS (the fake, over its real wire protocol) instead of the local key. */
import { KMSClient } from '@aws-sdk/client-kms';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnvironment } from '../../../lib/config';
import { createDeps, kmsApi } from '../../../lib/composition';
import { KmsKeyWrapper } from '../../../lib/keys/kms-key';
import { sdkKmsApi } from '../../../lib/keys/kms-sdk-api';
import { sysFunctionApp } from '../../../lib/sys-function';
import { initialize } from '../../../lib/sys/init';
import { startKmsFake, type KmsFake } from '../../fakes/kms-server';
import { call } from '../../helpers/service';
import { createTestStore } from '../../helpers/store';

let fake: KmsFake;
let kms: KMSClient;
let keyId: string;

beforeAll(async () => {
  fake = await startKmsFake();
  kms = new KMSClient({ endpoint: fake.endpoint, region: 'us-east-1', credentials: fake.credentials });
  ({ keyId } = await fake.createKey({ alias: 'alias/latchkey-test' }));
});

afterAll(async () => {
  kms.destroy();
  await fake.close();
});

describe('sealing with KMS', () => {
  it('initialises, serves tokens, and a fresh process unseals through KMS Decrypt', async () => {
    const { store, client, table } = await createTestStore();
    const env = { ...readEnvironment({ AUDIT_DEVICES: 'none' }), tableName: table };
    const deps = createDeps({ env, store, wrapper: new KmsKeyWrapper({ api: sdkKmsApi(kms), keyId: 'alias/latchkey-test' }) });
    const { rootToken } = await initialize(deps);
    expect(fake.calls.some((c) => c.operation === 'GenerateDataKey' && c.status === 200)).toBe(true);

    // A second "cold start" as in production: new deps, the lean KMS client (SigV4 checked by the fake).
    fake.calls.length = 0;
    const lean = kmsApi({ ...env, kmsEndpoint: fake.endpoint }, () => fake.credentials);
    const cold = createDeps({ env, store, wrapper: new KmsKeyWrapper({ api: lean, keyId }) });
    const r = await call(sysFunctionApp(cold), 'GET', '/v1/auth/token/lookup-self', { token: rootToken });
    expect(r.status).toBe(200);
    expect(fake.calls.filter((c) => c.operation === 'Decrypt')).toHaveLength(1);

    const raw = JSON.stringify((await client.send(new ScanCommand({ TableName: table }))).Items);
    expect(raw).toContain('\\"w\\":\\"kms\\"');
    expect(raw).not.toContain(rootToken.slice(3));
  });

  it('the lean client is refused by KMS with a wrong secret, and the error leaks nothing', async () => {
    const env = readEnvironment({ AUDIT_DEVICES: 'none' });
    const bad = kmsApi({ ...env, kmsEndpoint: fake.endpoint }, () => ({ ...fake.credentials, secretAccessKey: 'not-the-secret' }));
    const wrapper = new KmsKeyWrapper({ api: bad, keyId });
    await expect(wrapper.generateDataKey({ service: 'latchkey', scope: 'x' })).rejects.toThrow(
      /^KMS GenerateDataKey failed: InvalidSignatureException$/,
    );
  });

  it('a KMS outage surfaces as a 500 with a safe message, not a leak', async () => {
    const { store, table } = await createTestStore();
    const env = { ...readEnvironment({ AUDIT_DEVICES: 'none' }), tableName: table };
    const deps = createDeps({ env, store, wrapper: new KmsKeyWrapper({ api: sdkKmsApi(kms), keyId }) });
    const { rootToken } = await initialize(deps);
    const cold = createDeps({ env, store, wrapper: new KmsKeyWrapper({ api: sdkKmsApi(kms), keyId }) });
    fake.failNext('Decrypt', 'KMSInternalException', { count: 10 });
    const r = await call(sysFunctionApp(cold), 'GET', '/v1/auth/token/lookup-self', { token: rootToken });
    fake.clearFaults();
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ errors: ['internal error'] });
  });
});
