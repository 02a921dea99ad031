/** KmsKeyWrapper against the KMS fake, alone and under the Sealer. */
import { KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KmsCallError, KmsKeyWrapper } from '../../lib/keys/kms-key';
import { sdkKmsApi } from '../../lib/keys/kms-sdk-api';
import { Sealer } from '../../lib/keys/sealed';
import { startKmsFake, type KmsFake } from '../fakes/kms-server';

let fake: KmsFake;
let client: KMSClient;
let keyId: string;
let wrapper: KmsKeyWrapper;
const ctx = { service: 'latchkey', scope: 'secret/app' };

beforeAll(async () => {
  fake = await startKmsFake({ accessKeyId: 'AKIDUNIT', secretAccessKey: 'unit-secret' });
  client = new KMSClient({ endpoint: fake.endpoint, region: 'us-east-1', credentials: fake.credentials, maxAttempts: 3 });
  ({ keyId } = await fake.createKey({ alias: 'alias/latchkey' }));
  wrapper = new KmsKeyWrapper({ api: sdkKmsApi(client), keyId });
});

afterAll(async () => {
  client.destroy();
  await fake.close();
});

beforeEach(() => {
  fake.clearFaults();
  fake.calls.length = 0;
});

async function failure(p: Promise<unknown>): Promise<KmsCallError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(KmsCallError);
  return e as KmsCallError;
}

describe('KmsKeyWrapper', () => {
  it('makes 32-byte data keys and unwraps them under the same context', async () => {
    expect(wrapper.kind).toBe('kms');
    const dk = await wrapper.generateDataKey(ctx);
    expect(dk.plaintext).toHaveLength(32);
    expect(dk.wrapped.includes(dk.plaintext)).toBe(false);
    expect((await wrapper.unwrap(dk.wrapped, { scope: ctx.scope, service: ctx.service })).equals(dk.plaintext)).toBe(true);
    expect(fake.calls.map((c) => [c.operation, c.keyId])).toEqual([
      ['GenerateDataKey', keyId],
      ['Decrypt', keyId],
    ]);
  });

  it('works through an alias', async () => {
    const byAlias = new KmsKeyWrapper({ api: sdkKmsApi(client), keyId: 'alias/latchkey' });
    const dk = await byAlias.generateDataKey(ctx);
    expect((await wrapper.unwrap(dk.wrapped, ctx)).equals(dk.plaintext)).toBe(true);
  });

  it('refuses another context, naming only the operation and the KMS error', async () => {
    const dk = await wrapper.generateDataKey(ctx);
    const e = await failure(wrapper.unwrap(dk.wrapped, { ...ctx, scope: 'secret/other' }));
    expect(e.message).toMatch(/^KMS Decrypt failed: InvalidCiphertextException/);
    expect(e).toMatchObject({ operation: 'Decrypt', errorName: 'InvalidCiphertextException' });
    for (const secret of [dk.plaintext, dk.wrapped]) {
      expect(e.message).not.toContain(secret.toString('base64'));
      expect(e.message).not.toContain(secret.toString('hex'));
    }
    expect(e.message).not.toContain('secret/other');
  });

  it('refuses a data key wrapped under another KMS key', async () => {
    const other = await fake.createKey();
    const dk = await new KmsKeyWrapper({ api: sdkKmsApi(client), keyId: other.keyId }).generateDataKey(ctx);
    expect((await failure(wrapper.unwrap(dk.wrapped, ctx))).errorName).toBe('IncorrectKeyException');
  });

  it('wraps KMS failures, and rides out throttling through SDK retries', async () => {
    fake.failNext('GenerateDataKey', 'KMSInvalidStateException');
    const e = await failure(wrapper.generateDataKey(ctx));
    expect(e.message).toMatch(/^KMS GenerateDataKey failed: KMSInvalidStateException \(request id [\w-]+\)$/);

    fake.failNext('Decrypt', 'ThrottlingException');
    const dk = await wrapper.generateDataKey(ctx);
    expect((await wrapper.unwrap(dk.wrapped, ctx)).equals(dk.plaintext)).toBe(true);

    const asym = await fake.createKey({ keySpec: 'ECC_NIST_P256', keyUsage: 'SIGN_VERIFY' });
    expect((await failure(new KmsKeyWrapper({ api: sdkKmsApi(client), keyId: asym.keyId }).generateDataKey(ctx))).errorName).toBe(
      'InvalidKeyUsageException',
    );
    expect((await failure(new KmsKeyWrapper({ api: sdkKmsApi(client), keyId: 'alias/missing' }).generateDataKey(ctx))).errorName).toBe(
      'NotFoundException',
    );
  });

  it('names network failures too', async () => {
    const dead = new KMSClient({ endpoint: 'http://127.0.0.1:1', region: 'us-east-1', credentials: fake.credentials, maxAttempts: 1 });
    const e = await failure(new KmsKeyWrapper({ api: sdkKmsApi(dead), keyId }).generateDataKey(ctx));
    expect(e.message).toBe('KMS GenerateDataKey failed: ECONNREFUSED');
    dead.destroy();
  });
});

describe('Sealer over KMS', () => {
  it('seals and opens, with a fresh Sealer too', async () => {
    const sealer = new Sealer(wrapper);
    const sealed = await sealer.seal('hunter2-very-secret', 'p1', 'secret/app/db');
    expect(sealed.w).toBe('kms');
    expect(await sealer.openText(sealed, 'secret/app/db')).toBe('hunter2-very-secret');
    // A new Sealer has no cached key, so this one really goes through KMS Decrypt.
    fake.calls.length = 0;
    expect(await new Sealer(wrapper).openText(sealed, 'secret/app/db')).toBe('hunter2-very-secret');
    expect(fake.calls.map((c) => c.operation)).toEqual(['Decrypt']);
  });

  it('asks KMS for one data key per scope while it is reused', async () => {
    const sealer = new Sealer(wrapper);
    for (const x of ['a', 'b', 'c']) await sealer.seal(x, 'p2', `secret/${x}`);
    await sealer.seal('d', 'p3', 'secret/d');
    expect(fake.calls.map((c) => c.operation)).toEqual(['GenerateDataKey', 'GenerateDataKey']);
  });

  it('refuses a wrong aad and a wrong scope', async () => {
    const sealer = new Sealer(wrapper);
    const sealed = await sealer.seal('value', 'p1', 'secret/app/a');
    await expect(sealer.open(sealed, 'secret/app/b')).rejects.toThrow();
    // The scope is the KMS encryption context, so a changed scope fails at KMS itself.
    await expect(new Sealer(wrapper).open({ ...sealed, s: 'p9' }, 'secret/app/a')).rejects.toThrow(
      /KMS Decrypt failed: InvalidCiphertextException/,
    );
  });

  it('keeps no plaintext in the sealed JSON', async () => {
    const secret = 'correct horse battery staple';
    const sealed = await new Sealer(wrapper).seal(secret, 'p1', 'secret/app/pw');
    const json = JSON.stringify(sealed);
    for (const form of [secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex')]) {
      expect(json).not.toContain(form);
    }
    const dataKey = await wrapper.unwrap(Buffer.from(sealed.k, 'base64'), { service: 'latchkey', scope: 'p1' });
    expect(json).not.toContain(dataKey.toString('base64'));
    expect(Buffer.from(sealed.k, 'base64').includes(dataKey)).toBe(false);
  });

  it('refuses a value sealed by another kind of wrapper', async () => {
    const sealed = await new Sealer(wrapper).seal('v', 'p1', 'x');
    await expect(new Sealer(wrapper).open({ ...sealed, w: 'local' }, 'x')).rejects.toThrow(/sealed with local/);
  });
});
