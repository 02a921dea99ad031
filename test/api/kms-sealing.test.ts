/** The whole service sealing with KMS (the fake, over its real wire protocol) instead of the local key. */
import { KMSClient } from '@aws-sdk/client-kms';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnvironment } from '../../lib/config';
import { createDeps } from '../../lib/deps';
import { KmsKeyWrapper } from '../../lib/keys/kms-key';
import { createSysApp } from '../../lib/sys/app';
import { initialize } from '../../lib/sys/init';
import { startKmsFake, type KmsFake } from '../fakes/kms-server';
import { call } from '../helpers/service';
import { createTestStore } from '../helpers/store';

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
    const env = { ...readEnvironment({}), tableName: table };
    const deps = createDeps({ env, store, wrapper: new KmsKeyWrapper({ client: kms, keyId: 'alias/latchkey-test' }) });
    const { rootToken } = await initialize(deps);
    expect(fake.calls.some((c) => c.operation === 'GenerateDataKey' && c.status === 200)).toBe(true);

    // A second "cold start": new deps, nothing cached, same table.
    fake.calls.length = 0;
    const cold = createDeps({ env, store, wrapper: new KmsKeyWrapper({ client: kms, keyId }) });
    const r = await call(createSysApp(cold), 'GET', '/v1/auth/token/lookup-self', { token: rootToken });
    expect(r.status).toBe(200);
    expect(fake.calls.filter((c) => c.operation === 'Decrypt')).toHaveLength(1);

    const raw = JSON.stringify((await client.send(new ScanCommand({ TableName: table }))).Items);
    expect(raw).toContain('\\"w\\":\\"kms\\"');
    expect(raw).not.toContain(rootToken.slice(3));
  });

  it('a KMS outage surfaces as a 500 with a safe message, not a leak', async () => {
    const { store, table } = await createTestStore();
    const env = { ...readEnvironment({}), tableName: table };
    const deps = createDeps({ env, store, wrapper: new KmsKeyWrapper({ client: kms, keyId }) });
    const { rootToken } = await initialize(deps);
    const cold = createDeps({ env, store, wrapper: new KmsKeyWrapper({ client: kms, keyId }) });
    fake.failNext('Decrypt', 'KMSInternalException', { count: 10 });
    const r = await call(createSysApp(cold), 'GET', '/v1/auth/token/lookup-self', { token: rootToken });
    fake.clearFaults();
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ errors: ['internal error'] });
  });
});
