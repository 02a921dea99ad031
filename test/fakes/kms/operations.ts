/**
 * The KMS operations the fake answers: JSON request object in, JSON response object out,
 * blobs as base64 strings as in the AWS JSON 1.1 protocol. Failures throw KmsError.
 */
import { constants, privateDecrypt, publicEncrypt, randomBytes } from 'node:crypto';
import { KmsError, validation } from './errors';
import { encryptionAlgorithms, signingAlgorithms, type CreateKeySpec, type FakeKey, type KeyStore } from './keystore';
import { HASH_BYTES, SIGNING_ALGORITHMS, signDigest, signMessage, verifyDigest, verifyMessage } from './signing';

export type Input = Record<string, unknown>;
export type Operation = (store: KeyStore, input: Input) => Promise<Input> | Input;

const b64 = (b: Buffer) => b.toString('base64');
const OAEP_HASH: Record<string, string> = { RSAES_OAEP_SHA_1: 'sha1', RSAES_OAEP_SHA_256: 'sha256' };

function str(input: Input, field: string): string | undefined {
  const v = input[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw validation(`${field} must be a string`);
  return v;
}

function blob(input: Input, field: string, max = 6144): Buffer {
  const v = str(input, field);
  if (v === undefined) throw validation(`${field} is required`);
  const b = Buffer.from(v, 'base64');
  if (b.length < 1 || b.length > max) throw validation(`${field} must be 1 to ${max} bytes`);
  return b;
}

function context(input: Input, field: string): Record<string, string> {
  const v = input[field];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw validation(`${field} must be a map of strings`);
  for (const x of Object.values(v)) if (typeof x !== 'string') throw validation(`${field} values must be strings`);
  return v as Record<string, string>;
}

function page<T>(items: T[], input: Input): { items: T[]; more: Input } {
  const limit = typeof input.Limit === 'number' ? input.Limit : 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw validation('Limit must be 1 to 1000');
  const start = Number(str(input, 'Marker') ?? '0');
  if (!Number.isInteger(start) || start < 0) throw new KmsError('InvalidMarkerException', 'Marker is not one this service issued');
  const next = start + limit;
  return {
    items: items.slice(start, next),
    more: next < items.length ? { Truncated: true, NextMarker: String(next) } : { Truncated: false },
  };
}

function encryptWith(store: KeyStore, key: FakeKey, plaintext: Buffer, ctx: Record<string, string>, algorithm: string | undefined) {
  if (key.secret) {
    if (algorithm !== undefined && algorithm !== 'SYMMETRIC_DEFAULT')
      throw new KmsError('InvalidKeyUsageException', `${algorithm} is not valid for ${key.arn}`);
    if (plaintext.length > 4096) throw validation('Plaintext must be at most 4096 bytes');
    return { blob: store.encrypt(key, plaintext, ctx), algorithm: 'SYMMETRIC_DEFAULT' };
  }
  const oaepHash = OAEP_HASH[algorithm ?? ''];
  if (!oaepHash || !key.publicKey) throw new KmsError('InvalidKeyUsageException', `${String(algorithm)} is not valid for ${key.arn}`);
  if (Object.keys(ctx).length) throw validation('asymmetric keys do not take an encryption context');
  try {
    return {
      blob: publicEncrypt({ key: key.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash }, plaintext),
      algorithm: algorithm ?? '',
    };
  } catch {
    throw validation(`the plaintext is too long for ${key.keySpec} with ${algorithm}`);
  }
}

function decryptWith(
  store: KeyStore,
  keyId: string | undefined,
  ciphertext: Buffer,
  ctx: Record<string, string>,
  algorithm: string | undefined,
) {
  const named = keyId === undefined ? undefined : store.resolve(keyId);
  if (named && !named.secret) {
    const key = store.usable(named.keyId, 'ENCRYPT_DECRYPT');
    const oaepHash = OAEP_HASH[algorithm ?? ''];
    if (!oaepHash || !key.privateKey) throw new KmsError('InvalidKeyUsageException', `${String(algorithm)} is not valid for ${key.arn}`);
    try {
      return {
        key,
        plaintext: privateDecrypt({ key: key.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash }, ciphertext),
        algorithm: algorithm ?? '',
      };
    } catch {
      throw new KmsError('InvalidCiphertextException', 'the ciphertext is invalid');
    }
  }
  const owner = store.keyOfBlob(ciphertext);
  if (!owner) {
    if (keyId === undefined)
      throw new KmsError('InvalidCiphertextException', 'the ciphertext is invalid; an asymmetric ciphertext needs KeyId');
    throw new KmsError('InvalidCiphertextException', 'the ciphertext is invalid');
  }
  if (named && named.keyId !== owner.keyId) throw new KmsError('IncorrectKeyException', `the ciphertext was not made under ${keyId}`);
  if (algorithm !== undefined && algorithm !== 'SYMMETRIC_DEFAULT')
    throw new KmsError('IncorrectKeyException', `${algorithm} does not match the ciphertext`);
  const key = store.usable(owner.keyId, 'ENCRYPT_DECRYPT');
  return { key, plaintext: store.decrypt(key, ciphertext, ctx), algorithm: 'SYMMETRIC_DEFAULT' };
}

function dataKey(store: KeyStore, input: Input, withPlaintext: boolean): Input {
  const key = store.usable(input.KeyId, 'ENCRYPT_DECRYPT');
  if (!key.secret) throw new KmsError('InvalidKeyUsageException', `${key.arn} is not a symmetric key`);
  const spec = str(input, 'KeySpec');
  const count = input.NumberOfBytes;
  if ((spec === undefined) === (count === undefined)) throw validation('specify exactly one of KeySpec and NumberOfBytes');
  let length: number;
  if (spec !== undefined) {
    if (spec !== 'AES_256' && spec !== 'AES_128') throw validation('KeySpec must be AES_256 or AES_128');
    length = spec === 'AES_256' ? 32 : 16;
  } else {
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 1024)
      throw validation('NumberOfBytes must be 1 to 1024');
    length = count;
  }
  const plaintext = randomBytes(length);
  const out: Input = { CiphertextBlob: b64(store.encrypt(key, plaintext, context(input, 'EncryptionContext'))), KeyId: key.arn };
  if (withPlaintext) out.Plaintext = b64(plaintext);
  return out;
}

function signingInput(store: KeyStore, input: Input) {
  const key = store.usable(input.KeyId, 'SIGN_VERIFY');
  const name = str(input, 'SigningAlgorithm');
  if (name === undefined) throw validation('SigningAlgorithm is required');
  const alg = SIGNING_ALGORITHMS[name];
  if (!alg) throw validation(`unknown SigningAlgorithm ${name}`);
  if (!signingAlgorithms(key).includes(name))
    throw new KmsError('InvalidKeyUsageException', `${name} is not valid for ${key.keySpec} key ${key.arn}`);
  const type = str(input, 'MessageType') ?? 'RAW';
  if (type !== 'RAW' && type !== 'DIGEST') throw validation('MessageType must be RAW or DIGEST');
  const message = blob(input, 'Message', 4096);
  if (type === 'DIGEST' && message.length !== HASH_BYTES[alg.hash]) {
    throw validation(`a ${alg.hash} digest is ${HASH_BYTES[alg.hash]} bytes, not ${message.length}`);
  }
  if (!key.privateKey || !key.publicKey) throw new KmsError('InvalidKeyUsageException', `${key.arn} cannot sign`);
  return { key, name, alg, digest: type === 'DIGEST', message, privateKey: key.privateKey, publicKey: key.publicKey };
}

function lifecycleKey(store: KeyStore, input: Input): FakeKey {
  return store.resolve(input.KeyId, false);
}

export const OPERATIONS: Record<string, Operation> = {
  async CreateKey(store, input) {
    const origin = str(input, 'Origin') ?? 'AWS_KMS';
    if (origin !== 'AWS_KMS') throw new KmsError('UnsupportedOperationException', `Origin ${origin} is not supported by this fake`);
    const spec = {
      keySpec: str(input, 'KeySpec') ?? str(input, 'CustomerMasterKeySpec'),
      keyUsage: str(input, 'KeyUsage'),
      description: str(input, 'Description'),
    };
    return { KeyMetadata: store.metadata(await store.create(spec as CreateKeySpec)) };
  },
  DescribeKey: (store, input) => ({ KeyMetadata: store.metadata(store.resolve(input.KeyId)) }),
  ListKeys(store, input) {
    const { items, more } = page([...store.keys.values()], input);
    return { Keys: items.map((k) => ({ KeyId: k.keyId, KeyArn: k.arn })), ...more };
  },
  CreateAlias(store, input) {
    store.createAlias(input.AliasName, input.TargetKeyId);
    return {};
  },
  DeleteAlias(store, input) {
    const name = str(input, 'AliasName') ?? '';
    if (!store.aliases.delete(name)) throw new KmsError('NotFoundException', `${name} is not found`);
    return {};
  },
  ListAliases(store, input) {
    const target = input.KeyId === undefined ? undefined : store.resolve(input.KeyId, false).keyId;
    const all = [...store.aliases.values()].filter((a) => target === undefined || a.targetKeyId === target);
    const { items, more } = page(all, input);
    const when = (d: Date) => d.getTime() / 1000;
    return {
      Aliases: items.map((a) => ({
        AliasName: a.name,
        AliasArn: a.arn,
        TargetKeyId: a.targetKeyId,
        CreationDate: when(a.created),
        LastUpdatedDate: when(a.created),
      })),
      ...more,
    };
  },
  GenerateDataKey: (store, input) => dataKey(store, input, true),
  GenerateDataKeyWithoutPlaintext: (store, input) => dataKey(store, input, false),
  Encrypt(store, input) {
    const key = store.usable(input.KeyId, 'ENCRYPT_DECRYPT');
    const out = encryptWith(
      store,
      key,
      blob(input, 'Plaintext', 4096),
      context(input, 'EncryptionContext'),
      str(input, 'EncryptionAlgorithm'),
    );
    return { CiphertextBlob: b64(out.blob), KeyId: key.arn, EncryptionAlgorithm: out.algorithm };
  },
  Decrypt(store, input) {
    const out = decryptWith(
      store,
      str(input, 'KeyId'),
      blob(input, 'CiphertextBlob'),
      context(input, 'EncryptionContext'),
      str(input, 'EncryptionAlgorithm'),
    );
    return { KeyId: out.key.arn, Plaintext: b64(out.plaintext), EncryptionAlgorithm: out.algorithm };
  },
  ReEncrypt(store, input) {
    const source = decryptWith(
      store,
      str(input, 'SourceKeyId'),
      blob(input, 'CiphertextBlob'),
      context(input, 'SourceEncryptionContext'),
      str(input, 'SourceEncryptionAlgorithm'),
    );
    const dest = store.usable(input.DestinationKeyId, 'ENCRYPT_DECRYPT');
    const out = encryptWith(
      store,
      dest,
      source.plaintext,
      context(input, 'DestinationEncryptionContext'),
      str(input, 'DestinationEncryptionAlgorithm'),
    );
    return {
      CiphertextBlob: b64(out.blob),
      SourceKeyId: source.key.arn,
      KeyId: dest.arn,
      SourceEncryptionAlgorithm: source.algorithm,
      DestinationEncryptionAlgorithm: out.algorithm,
    };
  },
  Sign(store, input) {
    const s = signingInput(store, input);
    const signature = s.digest ? signDigest(s.alg, s.message, s.privateKey) : signMessage(s.alg, s.message, s.privateKey);
    return { KeyId: s.key.arn, Signature: b64(signature), SigningAlgorithm: s.name };
  },
  Verify(store, input) {
    const s = signingInput(store, input);
    const signature = blob(input, 'Signature');
    const valid = s.digest
      ? verifyDigest(s.alg, s.message, signature, s.publicKey)
      : verifyMessage(s.alg, s.message, signature, s.publicKey);
    if (!valid) throw new KmsError('KMSInvalidSignatureException', 'the signature does not verify');
    return { KeyId: s.key.arn, SignatureValid: true, SigningAlgorithm: s.name };
  },
  GetPublicKey(store, input) {
    const key = store.resolve(input.KeyId);
    if (key.state === 'Disabled') throw new KmsError('DisabledException', `${key.arn} is disabled`);
    if (key.state !== 'Enabled') throw new KmsError('KMSInvalidStateException', `${key.arn} is pending deletion`);
    if (!key.publicKey) throw new KmsError('UnsupportedOperationException', `${key.arn} is symmetric and has no public key`);
    const der = key.publicKey.export({ format: 'der', type: 'spki' });
    const algorithms =
      key.keyUsage === 'SIGN_VERIFY' ? { SigningAlgorithms: signingAlgorithms(key) } : { EncryptionAlgorithms: encryptionAlgorithms(key) };
    return {
      KeyId: key.arn,
      PublicKey: b64(der),
      CustomerMasterKeySpec: key.keySpec,
      KeySpec: key.keySpec,
      KeyUsage: key.keyUsage,
      ...algorithms,
    };
  },
  ScheduleKeyDeletion(store, input) {
    const key = lifecycleKey(store, input);
    const days = input.PendingWindowInDays ?? 30;
    if (typeof days !== 'number' || !Number.isInteger(days) || days < 7 || days > 30)
      throw validation('PendingWindowInDays must be 7 to 30');
    if (key.state === 'PendingDeletion') throw new KmsError('KMSInvalidStateException', `${key.arn} is already pending deletion`);
    key.state = 'PendingDeletion';
    key.pendingWindowInDays = days;
    key.deletionDate = new Date(Date.now() + days * 86_400_000);
    return { KeyId: key.arn, DeletionDate: key.deletionDate.getTime() / 1000, KeyState: key.state, PendingWindowInDays: days };
  },
  CancelKeyDeletion(store, input) {
    const key = lifecycleKey(store, input);
    if (key.state !== 'PendingDeletion') throw new KmsError('KMSInvalidStateException', `${key.arn} is not pending deletion`);
    key.state = 'Disabled';
    delete key.deletionDate;
    delete key.pendingWindowInDays;
    return { KeyId: key.arn };
  },
  DisableKey: (store, input) => setEnabled(lifecycleKey(store, input), false),
  EnableKey: (store, input) => setEnabled(lifecycleKey(store, input), true),
};

function setEnabled(key: FakeKey, enabled: boolean): Input {
  if (key.state === 'PendingDeletion') throw new KmsError('KMSInvalidStateException', `${key.arn} is pending deletion`);
  key.state = enabled ? 'Enabled' : 'Disabled';
  return {};
}
