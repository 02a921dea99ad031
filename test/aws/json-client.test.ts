/** The lean AWS JSON client: its SigV4 matches the official signer, errors map, retries work. */
// The SDK's own signer (installed with the AWS SDK), as the reference.
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsError, AwsJsonClient } from '../../lib/aws/json-client';
import { signJsonPost } from '../../lib/aws/sigv4';
import { startKmsFake, type KmsFake } from '../fakes/kms-server';

/** The hash constructor shape the SDK signer takes, over node:crypto. */
class NodeSha256 {
  private readonly h: Hash | Hmac;
  constructor(secret?: string | Uint8Array) {
    this.h = secret ? createHmac('sha256', secret) : createHash('sha256');
  }
  update(data: string | Uint8Array) {
    this.h.update(data);
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
}

const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token' };

describe('signJsonPost', () => {
  it('produces the same signature as the official SigV4 signer', async () => {
    const now = new Date('2026-03-04T05:06:07Z');
    const body = '{"TableName":"t","Key":{"pk":{"S":"a"}}}';
    const mine = signJsonPost({
      host: 'dynamodb.eu-west-1.amazonaws.com',
      service: 'dynamodb',
      region: 'eu-west-1',
      target: 'DynamoDB_20120810.GetItem',
      contentType: 'application/x-amz-json-1.0',
      body,
      credentials: creds,
      now,
    });
    const official = await new SignatureV4({
      service: 'dynamodb',
      region: 'eu-west-1',
      credentials: creds,
      sha256: NodeSha256 as never,
    }).sign(
      {
        method: 'POST',
        protocol: 'https:',
        hostname: 'dynamodb.eu-west-1.amazonaws.com',
        path: '/',
        headers: {
          host: 'dynamodb.eu-west-1.amazonaws.com',
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.GetItem',
        },
        body,
        query: {},
      },
      { signingDate: now },
    );
    const sig = (h: string) => /Signature=([0-9a-f]+)/.exec(h)?.[1];
    expect(sig(mine.authorization!)).toBe(sig(String(official.headers.authorization)));
    expect(mine['x-amz-security-token']).toBe('session-token');
  });
});

describe('AwsJsonClient against the KMS fake (which verifies SigV4)', () => {
  let fake: KmsFake;
  let client: AwsJsonClient;
  beforeAll(async () => {
    fake = await startKmsFake();
    client = new AwsJsonClient({
      service: 'kms',
      region: 'us-east-1',
      endpoint: fake.endpoint,
      targetPrefix: 'TrentService',
      jsonVersion: '1.1',
      credentials: () => fake.credentials,
    });
  });
  afterAll(() => fake.close());

  it('calls an operation and returns its JSON', async () => {
    const { keyId } = await fake.createKey();
    const out = await client.call<{ KeyMetadata: { KeyId: string } }>('DescribeKey', { KeyId: keyId });
    expect(out.KeyMetadata.KeyId).toBe(keyId);
  });

  it('maps a service error to its name and message, without retrying it', async () => {
    fake.calls.length = 0;
    const e = await client.call('DescribeKey', { KeyId: 'alias/none' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AwsError);
    expect((e as AwsError).name).toBe('NotFoundException');
    expect((e as AwsError).status).toBe(400);
    expect(fake.calls).toHaveLength(1);
  });

  it('retries throttling and 5xx, then succeeds', async () => {
    const { keyId } = await fake.createKey();
    fake.calls.length = 0;
    fake.failNext('DescribeKey', 'ThrottlingException', { count: 1 });
    fake.failNext('DescribeKey', 'KMSInternalException', { count: 1, status: 500 });
    await client.call('DescribeKey', { KeyId: keyId });
    expect(fake.calls.map((c) => c.status)).toEqual([400, 500, 200]);
  });

  it('gives up after its attempts', async () => {
    fake.failNext('ListKeys', 'ThrottlingException', { count: 10 });
    await expect(client.call('ListKeys', {})).rejects.toMatchObject({ name: 'ThrottlingException' });
    fake.clearFaults();
  });
});
