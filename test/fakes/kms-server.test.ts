/** The KMS fake, driven by the official SDK client so that the wire protocol is the real one. */
import {
  AlreadyExistsException,
  CancelKeyDeletionCommand,
  CreateAliasCommand,
  CreateKeyCommand,
  DecryptCommand,
  DescribeKeyCommand,
  DisableKeyCommand,
  DisabledException,
  EnableKeyCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  GenerateDataKeyWithoutPlaintextCommand,
  GetPublicKeyCommand,
  IncorrectKeyException,
  InvalidCiphertextException,
  InvalidKeyUsageException,
  KMSClient,
  KMSInternalException,
  KMSInvalidSignatureException,
  KMSInvalidStateException,
  KMSServiceException,
  ListAliasesCommand,
  ListKeysCommand,
  NotFoundException,
  ReEncryptCommand,
  ScheduleKeyDeletionCommand,
  SignCommand,
  UnsupportedOperationException,
  VerifyCommand,
  type KeySpec,
  type KeyUsageType,
  type MessageType,
  type SigningAlgorithmSpec,
} from '@aws-sdk/client-kms';
import { constants, createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKmsFake, type KmsFake } from './kms-server';
import { signSigV4 } from './sigv4';

let fake: KmsFake;
let kms: KMSClient;
const keys = new Map<string, string>();

function client(over: { secretAccessKey?: string; accessKeyId?: string; region?: string; maxAttempts?: number } = {}): KMSClient {
  return new KMSClient({
    endpoint: fake.endpoint,
    region: over.region ?? 'us-east-1',
    credentials: {
      accessKeyId: over.accessKeyId ?? fake.credentials.accessKeyId,
      secretAccessKey: over.secretAccessKey ?? fake.credentials.secretAccessKey,
    },
    maxAttempts: over.maxAttempts ?? 3,
  });
}

const SPECS: [KeySpec, KeyUsageType][] = [
  ['SYMMETRIC_DEFAULT', 'ENCRYPT_DECRYPT'],
  ['RSA_2048', 'SIGN_VERIFY'],
  ['RSA_3072', 'SIGN_VERIFY'],
  ['RSA_4096', 'SIGN_VERIFY'],
  ['ECC_NIST_P256', 'SIGN_VERIFY'],
  ['ECC_NIST_P384', 'SIGN_VERIFY'],
  ['ECC_NIST_P521', 'SIGN_VERIFY'],
  ['RSA_2048', 'ENCRYPT_DECRYPT'],
];
const CURVE_NAMES: Record<string, string> = { ECC_NIST_P256: 'prime256v1', ECC_NIST_P384: 'secp384r1', ECC_NIST_P521: 'secp521r1' };
const keyOf = (spec: string, usage = 'SIGN_VERIFY') => keys.get(`${spec}/${usage}`) ?? '';
const sym = () => keyOf('SYMMETRIC_DEFAULT', 'ENCRYPT_DECRYPT');

beforeAll(async () => {
  fake = await startKmsFake({ accessKeyId: 'AKIDFAKEKMS', secretAccessKey: 'fake/secret+key' });
  kms = client();
  await Promise.all(
    SPECS.map(async ([KeySpec, KeyUsage]) => {
      const out = await kms.send(new CreateKeyCommand({ KeySpec, KeyUsage, Description: `${KeySpec} ${KeyUsage}` }));
      keys.set(`${KeySpec}/${KeyUsage}`, out.KeyMetadata?.KeyId ?? '');
    }),
  );
});

afterAll(async () => {
  kms.destroy();
  await fake.close();
});

describe('keys', () => {
  it('creates keys of every spec, with the metadata KMS reports', async () => {
    for (const [spec, usage] of SPECS) {
      const { KeyMetadata: m } = await kms.send(new DescribeKeyCommand({ KeyId: keyOf(spec, usage) }));
      expect(m).toMatchObject({
        KeySpec: spec,
        KeyUsage: usage,
        KeyState: 'Enabled',
        Enabled: true,
        AWSAccountId: fake.accountId,
        KeyManager: 'CUSTOMER',
      });
      expect(m?.Arn).toBe(`arn:aws:kms:us-east-1:${fake.accountId}:key/${m?.KeyId}`);
      expect(m?.CreationDate).toBeInstanceOf(Date);
      if (usage === 'SIGN_VERIFY') expect(m?.SigningAlgorithms?.length).toBeGreaterThan(0);
    }
    const listed = await kms.send(new ListKeysCommand({ Limit: 5 }));
    expect(listed.Keys).toHaveLength(5);
    expect(listed.Truncated).toBe(true);
    const rest = await kms.send(new ListKeysCommand({ Marker: listed.NextMarker }));
    expect((rest.Keys?.length ?? 0) + 5).toBe(fake.keys.list().length);
  });

  it('gives the public key of asymmetric keys as DER SubjectPublicKeyInfo', async () => {
    for (const [spec, usage] of SPECS.filter(([s]) => s !== 'SYMMETRIC_DEFAULT')) {
      const out = await kms.send(new GetPublicKeyCommand({ KeyId: keyOf(spec, usage) }));
      const pub = createPublicKey({ key: Buffer.from(out.PublicKey ?? []), format: 'der', type: 'spki' });
      const details = pub.asymmetricKeyDetails;
      if (spec.startsWith('RSA_')) expect(details?.modulusLength).toBe(Number(spec.slice(4)));
      else expect(details?.namedCurve).toBe(CURVE_NAMES[spec]);
      expect(out).toMatchObject({ KeySpec: spec, KeyUsage: usage });
    }
    await expect(kms.send(new GetPublicKeyCommand({ KeyId: sym() }))).rejects.toBeInstanceOf(UnsupportedOperationException);
  });

  it('refuses a key spec with a usage it cannot have', async () => {
    await expect(kms.send(new CreateKeyCommand({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'ENCRYPT_DECRYPT' }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  it('answers NotFoundException for unknown keys in every form', async () => {
    const other = `arn:aws:kms:us-east-1:999999999999:key/${keyOf('SYMMETRIC_DEFAULT', 'ENCRYPT_DECRYPT')}`;
    for (const KeyId of ['0b1f4a39-0000-4000-8000-000000000000', 'alias/nope', other]) {
      await expect(kms.send(new DescribeKeyCommand({ KeyId }))).rejects.toBeInstanceOf(NotFoundException);
      await expect(kms.send(new GenerateDataKeyCommand({ KeyId, KeySpec: 'AES_256' }))).rejects.toBeInstanceOf(NotFoundException);
    }
  });
});

describe('symmetric encryption', () => {
  const ctx = { service: 'latchkey', scope: 'p1' };

  it('round-trips a data key, with and without KeyId on Decrypt', async () => {
    const dk = await kms.send(new GenerateDataKeyCommand({ KeyId: sym(), KeySpec: 'AES_256', EncryptionContext: ctx }));
    expect(dk.Plaintext).toHaveLength(32);
    expect(dk.KeyId).toBe(fake.keys.get(sym())?.arn);
    for (const KeyId of [sym(), undefined]) {
      const out = await kms.send(
        new DecryptCommand({ CiphertextBlob: dk.CiphertextBlob, EncryptionContext: { scope: 'p1', service: 'latchkey' }, KeyId }),
      );
      expect(Buffer.from(out.Plaintext ?? []).equals(Buffer.from(dk.Plaintext ?? []))).toBe(true);
      expect(out.KeyId).toBe(dk.KeyId);
    }
    const bare = await kms.send(new GenerateDataKeyWithoutPlaintextCommand({ KeyId: sym(), NumberOfBytes: 64 }));
    expect((await kms.send(new DecryptCommand({ CiphertextBlob: bare.CiphertextBlob }))).Plaintext).toHaveLength(64);
    await expect(kms.send(new GenerateDataKeyCommand({ KeyId: sym(), KeySpec: 'AES_256', NumberOfBytes: 32 }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  it('refuses another context, a changed blob and another key', async () => {
    const { CiphertextBlob } = await kms.send(
      new EncryptCommand({ KeyId: sym(), Plaintext: Buffer.from('secret'), EncryptionContext: ctx }),
    );
    const blob = Buffer.from(CiphertextBlob ?? []);
    for (const EncryptionContext of [{ ...ctx, scope: 'p2' }, {}, { ...ctx, extra: 'x' }]) {
      await expect(kms.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext }))).rejects.toBeInstanceOf(
        InvalidCiphertextException,
      );
    }
    const flipped = Buffer.from(blob);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
    await expect(kms.send(new DecryptCommand({ CiphertextBlob: flipped, EncryptionContext: ctx }))).rejects.toBeInstanceOf(
      InvalidCiphertextException,
    );
    await expect(
      kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from('not a blob'), EncryptionContext: ctx })),
    ).rejects.toBeInstanceOf(InvalidCiphertextException);
    const other = await fake.createKey();
    await expect(kms.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: ctx, KeyId: other.keyId }))).rejects.toBeInstanceOf(
      IncorrectKeyException,
    );
    const out = await kms.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: ctx }));
    expect(Buffer.from(out.Plaintext ?? []).toString()).toBe('secret');
  });

  it('re-encrypts under another key and context', async () => {
    const dest = await fake.createKey({ alias: 'alias/reencrypt-dest' });
    const { CiphertextBlob } = await kms.send(
      new EncryptCommand({ KeyId: sym(), Plaintext: Buffer.from('moving'), EncryptionContext: ctx }),
    );
    const re = await kms.send(
      new ReEncryptCommand({
        CiphertextBlob,
        SourceEncryptionContext: ctx,
        DestinationKeyId: 'alias/reencrypt-dest',
        DestinationEncryptionContext: { to: 'b' },
      }),
    );
    expect(re.KeyId).toBe(dest.arn);
    const out = await kms.send(new DecryptCommand({ CiphertextBlob: re.CiphertextBlob, EncryptionContext: { to: 'b' } }));
    expect(Buffer.from(out.Plaintext ?? []).toString()).toBe('moving');
  });

  it('encrypts with RSA OAEP keys, which need KeyId to decrypt', async () => {
    const KeyId = keyOf('RSA_2048', 'ENCRYPT_DECRYPT');
    const enc = await kms.send(new EncryptCommand({ KeyId, Plaintext: Buffer.from('rsa'), EncryptionAlgorithm: 'RSAES_OAEP_SHA_256' }));
    const out = await kms.send(
      new DecryptCommand({ KeyId, CiphertextBlob: enc.CiphertextBlob, EncryptionAlgorithm: 'RSAES_OAEP_SHA_256' }),
    );
    expect(Buffer.from(out.Plaintext ?? []).toString()).toBe('rsa');
    await expect(kms.send(new DecryptCommand({ CiphertextBlob: enc.CiphertextBlob }))).rejects.toBeInstanceOf(InvalidCiphertextException);
    await expect(kms.send(new GenerateDataKeyCommand({ KeyId, KeySpec: 'AES_256' }))).rejects.toBeInstanceOf(InvalidKeyUsageException);
  });
});

describe('signing', () => {
  const message = Buffer.from('the quick brown fox');
  const HASH: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

  for (const [spec] of SPECS.filter(([s, u]) => s !== 'SYMMETRIC_DEFAULT' && u === 'SIGN_VERIFY')) {
    it(`signs with every ${spec} algorithm, RAW and DIGEST, verifiable by node:crypto and KMS`, async () => {
      const KeyId = keyOf(spec);
      const pk = await kms.send(new GetPublicKeyCommand({ KeyId }));
      const pub = createPublicKey({ key: Buffer.from(pk.PublicKey ?? []), format: 'der', type: 'spki' });
      expect(pk.SigningAlgorithms?.length).toBe(spec.startsWith('RSA') ? 6 : 1);
      for (const SigningAlgorithm of pk.SigningAlgorithms ?? []) {
        const hash = HASH[SigningAlgorithm.slice(-3)] ?? '';
        const opts = SigningAlgorithm.startsWith('RSASSA_PSS')
          ? { key: pub, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(SigningAlgorithm.slice(-3)) / 8 }
          : SigningAlgorithm.startsWith('RSASSA_PKCS1')
            ? { key: pub, padding: constants.RSA_PKCS1_PADDING }
            : { key: pub, dsaEncoding: 'der' as const };
        for (const MessageType of ['RAW', 'DIGEST'] as MessageType[]) {
          const Message = MessageType === 'RAW' ? message : createHash(hash).update(message).digest();
          const out = await kms.send(new SignCommand({ KeyId, Message, MessageType, SigningAlgorithm }));
          const sig = Buffer.from(out.Signature ?? []);
          expect(nodeVerify(hash, message, opts, sig), `${SigningAlgorithm} ${MessageType}`).toBe(true);
          if (SigningAlgorithm.startsWith('ECDSA')) expect(sig[0]).toBe(0x30);
          // KMS Verify, in both modes, whichever mode signed.
          for (const mode of ['RAW', 'DIGEST'] as MessageType[]) {
            const m = mode === 'RAW' ? message : createHash(hash).update(message).digest();
            const v = await kms.send(new VerifyCommand({ KeyId, Message: m, MessageType: mode, Signature: sig, SigningAlgorithm }));
            expect(v.SignatureValid).toBe(true);
          }
          await expect(
            kms.send(new VerifyCommand({ KeyId, Message: Buffer.from('other'), Signature: sig, SigningAlgorithm })),
          ).rejects.toBeInstanceOf(KMSInvalidSignatureException);
        }
      }
    });
  }

  it('refuses algorithms the key does not have, wrong digest sizes and encryption keys', async () => {
    const p256 = keyOf('ECC_NIST_P256');
    const sign = (KeyId: string, SigningAlgorithm: SigningAlgorithmSpec, Message = message, MessageType: MessageType = 'RAW') =>
      kms.send(new SignCommand({ KeyId, Message, MessageType, SigningAlgorithm }));
    await expect(sign(p256, 'ECDSA_SHA_384')).rejects.toBeInstanceOf(InvalidKeyUsageException);
    await expect(sign(p256, 'RSASSA_PSS_SHA_256')).rejects.toBeInstanceOf(InvalidKeyUsageException);
    await expect(sign(p256, 'ECDSA_SHA_256', Buffer.alloc(20), 'DIGEST')).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(sign(sym(), 'ECDSA_SHA_256')).rejects.toBeInstanceOf(InvalidKeyUsageException);
  });
});

describe('aliases', () => {
  it('resolves alias names, alias ARNs and key ARNs', async () => {
    const target = keyOf('ECC_NIST_P256');
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/signer', TargetKeyId: target }));
    const arn = fake.keys.get(target)?.arn ?? '';
    for (const KeyId of ['alias/signer', `arn:aws:kms:us-east-1:${fake.accountId}:alias/signer`, arn, target]) {
      const out = await kms.send(new SignCommand({ KeyId, Message: Buffer.from('x'), SigningAlgorithm: 'ECDSA_SHA_256' }));
      expect(out.KeyId).toBe(arn);
    }
    const listed = await kms.send(new ListAliasesCommand({ KeyId: target }));
    expect(listed.Aliases?.map((a) => a.AliasName)).toEqual(['alias/signer']);
    expect(fake.keys.get('alias/signer')?.aliases).toEqual(['alias/signer']);
    await expect(kms.send(new CreateAliasCommand({ AliasName: 'alias/signer', TargetKeyId: target }))).rejects.toBeInstanceOf(
      AlreadyExistsException,
    );
    await expect(kms.send(new CreateAliasCommand({ AliasName: 'alias/x', TargetKeyId: 'alias/signer' }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });
});

describe('key state', () => {
  it('disables, enables and schedules deletion', async () => {
    const { keyId } = await fake.createKey({ description: 'lifecycle' });
    const use = () => kms.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256' }));
    await kms.send(new DisableKeyCommand({ KeyId: keyId }));
    await expect(use()).rejects.toBeInstanceOf(DisabledException);
    await kms.send(new EnableKeyCommand({ KeyId: keyId }));
    await use();
    const del = await kms.send(new ScheduleKeyDeletionCommand({ KeyId: keyId, PendingWindowInDays: 7 }));
    expect(del.KeyState).toBe('PendingDeletion');
    expect(fake.keys.get(keyId)?.state).toBe('PendingDeletion');
    await expect(use()).rejects.toBeInstanceOf(KMSInvalidStateException);
    await kms.send(new CancelKeyDeletionCommand({ KeyId: keyId }));
    expect(fake.keys.get(keyId)?.state).toBe('Disabled');
  });
});

describe('authentication', () => {
  it('refuses a wrong secret key, an unknown access key and another region', async () => {
    const run = (c: KMSClient) => c.send(new DescribeKeyCommand({ KeyId: sym() }));
    await expect(run(client({ secretAccessKey: 'wrong', maxAttempts: 1 }))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(run(client({ accessKeyId: 'AKIDOTHER', maxAttempts: 1 }))).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    await expect(run(client({ region: 'eu-west-1', maxAttempts: 1 }))).rejects.toMatchObject({ name: 'InvalidSignatureException' });
  });

  it('checks hand-made requests: unsigned, signed, and changed after signing', async () => {
    const body = Buffer.from(JSON.stringify({ KeyId: sym() }));
    const url = new URL(fake.endpoint);
    const headers: Record<string, string> = {
      host: url.host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'TrentService.DescribeKey',
    };
    const post = async (h: Record<string, string>, b: Buffer) => {
      const res = await fetch(fake.endpoint + '/', { method: 'POST', headers: h, body: b });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await post(headers, body)).toMatchObject({ status: 400, body: { __type: 'MissingAuthenticationTokenException' } });
    const req = { method: 'POST', url: '/', headers: { ...headers }, body };
    signSigV4(req, fake.credentials, { region: 'us-east-1', service: 'kms' });
    expect(await post(req.headers, body)).toMatchObject({ status: 200, body: { KeyMetadata: { KeyId: sym() } } });
    const changed = Buffer.from(JSON.stringify({ KeyId: keyOf('RSA_2048') }));
    expect(await post(req.headers, changed)).toMatchObject({ status: 400, body: { __type: 'InvalidSignatureException' } });
    const old = { method: 'POST', url: '/', headers: { ...headers }, body };
    signSigV4(old, fake.credentials, { region: 'us-east-1', service: 'kms', date: new Date(Date.now() - 3_600_000) });
    expect(await post(old.headers, body)).toMatchObject({ status: 400, body: { __type: 'InvalidSignatureException' } });
  });
});

describe('fault injection', () => {
  it('surfaces injected errors as the SDK typed exceptions', async () => {
    const { CiphertextBlob } = await kms.send(new GenerateDataKeyCommand({ KeyId: sym(), KeySpec: 'AES_256' }));
    fake.failNext('Decrypt', 'DisabledException', { count: 2 });
    await expect(kms.send(new DecryptCommand({ CiphertextBlob }))).rejects.toBeInstanceOf(DisabledException);
    await expect(kms.send(new DecryptCommand({ CiphertextBlob }))).rejects.toBeInstanceOf(DisabledException);
    await kms.send(new DecryptCommand({ CiphertextBlob }));

    fake.failNext('*', 'AccessDeniedException', { message: 'no grant' });
    await expect(kms.send(new DescribeKeyCommand({ KeyId: sym() }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: 'no grant',
    });
    expect(fake.calls.at(-1)).toMatchObject({ operation: 'DescribeKey', status: 400, error: 'AccessDeniedException' });
  });

  it('throttling and server faults are retried by the SDK, and surface once retries run out', async () => {
    fake.calls.length = 0;
    fake.failNext('GenerateDataKey', 'ThrottlingException', { count: 2 });
    await kms.send(new GenerateDataKeyCommand({ KeyId: sym(), KeySpec: 'AES_256' }));
    expect(fake.calls.map((c) => c.error ?? 'ok')).toEqual(['ThrottlingException', 'ThrottlingException', 'ok']);

    fake.inject({ operation: 'Encrypt', error: 'KMSInternalException', count: 5 });
    const once = client({ maxAttempts: 1 });
    await expect(once.send(new EncryptCommand({ KeyId: sym(), Plaintext: Buffer.from('x') }))).rejects.toBeInstanceOf(KMSInternalException);
    fake.clearFaults();
    fake.failNext('Encrypt', 'ThrottlingException');
    const err = await once.send(new EncryptCommand({ KeyId: sym(), Plaintext: Buffer.from('x') })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KMSServiceException);
    expect(err).toMatchObject({ name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
    once.destroy();
  });

  it('delays a call without failing it', async () => {
    fake.inject({ operation: 'DescribeKey', delayMs: 150 });
    const t = Date.now();
    await kms.send(new DescribeKeyCommand({ KeyId: sym() }));
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
  });
});
