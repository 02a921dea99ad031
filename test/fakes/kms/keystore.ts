/**
 * The fake's keys and aliases, and the symmetric ciphertext format.
 *
 * A symmetric ciphertext blob is ours to define (real KMS blobs are opaque too):
 *   "KF" | version 1 | key-id length | key id | iv (12) | GCM tag (16) | ciphertext
 * The header and the canonical encryption context are GCM additional data, so a blob opens
 * only under its own key and exactly the context it was made with.
 */
import { createCipheriv, createDecipheriv, generateKeyPair, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { KmsError, validation } from './errors';
import { SIGNING_ALGORITHMS } from './signing';

export type KeySpec = 'SYMMETRIC_DEFAULT' | 'RSA_2048' | 'RSA_3072' | 'RSA_4096' | 'ECC_NIST_P256' | 'ECC_NIST_P384' | 'ECC_NIST_P521';
export type KeyUsage = 'ENCRYPT_DECRYPT' | 'SIGN_VERIFY';
export type KeyState = 'Enabled' | 'Disabled' | 'PendingDeletion';

export interface FakeKey {
  keyId: string;
  arn: string;
  keySpec: KeySpec;
  keyUsage: KeyUsage;
  state: KeyState;
  description: string;
  created: Date;
  deletionDate?: Date;
  pendingWindowInDays?: number;
  /** symmetric keys: the AES-256 key */
  secret?: Buffer;
  privateKey?: KeyObject;
  publicKey?: KeyObject;
}

export interface FakeAlias {
  name: string;
  arn: string;
  targetKeyId: string;
  created: Date;
}

export interface CreateKeySpec {
  keySpec?: KeySpec;
  keyUsage?: KeyUsage;
  description?: string;
}

const KEY_SPECS: readonly string[] = [
  'SYMMETRIC_DEFAULT',
  'RSA_2048',
  'RSA_3072',
  'RSA_4096',
  'ECC_NIST_P256',
  'ECC_NIST_P384',
  'ECC_NIST_P521',
];
const CURVES: Record<string, string> = { ECC_NIST_P256: 'P-256', ECC_NIST_P384: 'P-384', ECC_NIST_P521: 'P-521' };
const ECDSA_FOR: Record<string, string> = {
  ECC_NIST_P256: 'ECDSA_SHA_256',
  ECC_NIST_P384: 'ECDSA_SHA_384',
  ECC_NIST_P521: 'ECDSA_SHA_512',
};
const ARN = /^arn:aws[a-z-]*:kms:([^:]*):([^:]*):(key|alias)\/(.+)$/;
const MAGIC = Buffer.from('KF\x01', 'latin1');
const generatePair = promisify(generateKeyPair);

/** Context as GCM additional data: sorted pairs, so field order never matters. */
export function contextBytes(context: Record<string, string>): Buffer {
  return Buffer.from(
    JSON.stringify(
      Object.keys(context)
        .sort()
        .map((k) => [k, context[k]]),
    ),
  );
}

export function signingAlgorithms(key: FakeKey): string[] {
  if (key.keyUsage !== 'SIGN_VERIFY') return [];
  const ecdsa = ECDSA_FOR[key.keySpec];
  if (ecdsa) return [ecdsa];
  return Object.keys(SIGNING_ALGORITHMS).filter((a) => a.startsWith('RSASSA_'));
}

export function encryptionAlgorithms(key: FakeKey): string[] {
  if (key.keyUsage !== 'ENCRYPT_DECRYPT') return [];
  return key.keySpec === 'SYMMETRIC_DEFAULT' ? ['SYMMETRIC_DEFAULT'] : ['RSAES_OAEP_SHA_1', 'RSAES_OAEP_SHA_256'];
}

export class KeyStore {
  readonly keys = new Map<string, FakeKey>();
  readonly aliases = new Map<string, FakeAlias>();

  constructor(
    readonly region: string,
    readonly accountId: string,
  ) {}

  private arnOf(kind: 'key' | 'alias', id: string): string {
    return `arn:aws:kms:${this.region}:${this.accountId}:${kind}/${id}`;
  }

  async create(spec: CreateKeySpec): Promise<FakeKey> {
    const keySpec = spec.keySpec ?? 'SYMMETRIC_DEFAULT';
    const keyUsage = spec.keyUsage ?? 'ENCRYPT_DECRYPT';
    if (!KEY_SPECS.includes(keySpec)) throw validation(`KeySpec ${keySpec} is not supported by this fake`);
    if (keyUsage !== 'ENCRYPT_DECRYPT' && keyUsage !== 'SIGN_VERIFY')
      throw validation(`KeyUsage ${String(keyUsage)} is not supported by this fake`);
    if (keySpec === 'SYMMETRIC_DEFAULT' && keyUsage !== 'ENCRYPT_DECRYPT')
      throw validation('a SYMMETRIC_DEFAULT key can only be used to encrypt and decrypt');
    if (CURVES[keySpec] && keyUsage !== 'SIGN_VERIFY') throw validation(`a ${keySpec} key can only be used to sign and verify`);
    const keyId = randomUUID();
    const key: FakeKey = {
      keyId,
      arn: this.arnOf('key', keyId),
      keySpec,
      keyUsage,
      state: 'Enabled',
      description: spec.description ?? '',
      created: new Date(),
    };
    const curve = CURVES[keySpec];
    if (keySpec === 'SYMMETRIC_DEFAULT') key.secret = randomBytes(32);
    else if (curve) Object.assign(key, await generatePair('ec', { namedCurve: curve }));
    else Object.assign(key, await generatePair('rsa', { modulusLength: Number(keySpec.slice(4)) }));
    this.keys.set(keyId, key);
    return key;
  }

  /** Finds a key by id, key ARN, alias name or alias ARN; aliases only where the operation takes them. */
  resolve(keyId: unknown, allowAlias = true): FakeKey {
    if (typeof keyId !== 'string' || keyId === '') throw validation('KeyId is required');
    const m = ARN.exec(keyId);
    let id: string | undefined = keyId;
    if (m) {
      const [, region, account, kind, rest] = m;
      if (region !== this.region || account !== this.accountId)
        throw new KmsError('NotFoundException', `${keyId} is not found in this account and region`);
      id = kind === 'alias' ? this.aliases.get(`alias/${rest}`)?.targetKeyId : rest;
      if (kind === 'alias' && !allowAlias) throw validation('an alias cannot be used here');
    } else if (keyId.startsWith('alias/')) {
      if (!allowAlias) throw validation('an alias cannot be used here');
      id = this.aliases.get(keyId)?.targetKeyId;
    }
    const key = id === undefined ? undefined : this.keys.get(id);
    if (!key) throw new KmsError('NotFoundException', `${keyId} is not found`);
    return key;
  }

  /** A key that cryptographic operations may use: enabled, and made for `usage`. */
  usable(keyId: unknown, usage: KeyUsage): FakeKey {
    const key = this.resolve(keyId);
    if (key.state === 'Disabled') throw new KmsError('DisabledException', `${key.arn} is disabled`);
    if (key.state !== 'Enabled') throw new KmsError('KMSInvalidStateException', `${key.arn} is pending deletion`);
    if (key.keyUsage !== usage) throw new KmsError('InvalidKeyUsageException', `${key.arn} has KeyUsage ${key.keyUsage}, not ${usage}`);
    return key;
  }

  createAlias(name: unknown, target: unknown): FakeAlias {
    const bad = (why: string) => new KmsError('InvalidAliasNameException', why);
    if (typeof name !== 'string' || !/^alias\/[a-zA-Z0-9/_-]{1,250}$/.test(name))
      throw bad('AliasName must be alias/ followed by letters, digits, /, _ or -');
    if (name.startsWith('alias/aws/')) throw bad('the alias/aws/ prefix is reserved for AWS managed keys');
    if (this.aliases.has(name)) throw new KmsError('AlreadyExistsException', `${name} already exists`);
    const key = this.resolve(target, false);
    if (key.state === 'PendingDeletion') throw new KmsError('KMSInvalidStateException', `${key.arn} is pending deletion`);
    const alias: FakeAlias = { name, arn: this.arnOf('alias', name.slice('alias/'.length)), targetKeyId: key.keyId, created: new Date() };
    this.aliases.set(name, alias);
    return alias;
  }

  encrypt(key: FakeKey, plaintext: Buffer, context: Record<string, string>): Buffer {
    if (!key.secret) throw new KmsError('InvalidKeyUsageException', `${key.arn} is not a symmetric key`);
    const header = Buffer.concat([MAGIC, Buffer.from([key.keyId.length]), Buffer.from(key.keyId, 'latin1')]);
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key.secret, iv);
    c.setAAD(Buffer.concat([header, contextBytes(context)]));
    const ct = Buffer.concat([c.update(plaintext), c.final()]);
    return Buffer.concat([header, iv, c.getAuthTag(), ct]);
  }

  /** The key a symmetric blob names, or undefined when the blob is not one of ours. */
  keyOfBlob(blob: Buffer): FakeKey | undefined {
    if (blob.length < MAGIC.length + 1 || !blob.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const idLen = blob[MAGIC.length] ?? 0;
    return this.keys.get(blob.subarray(MAGIC.length + 1, MAGIC.length + 1 + idLen).toString('latin1'));
  }

  decrypt(key: FakeKey, blob: Buffer, context: Record<string, string>): Buffer {
    const invalid = () => new KmsError('InvalidCiphertextException', 'the ciphertext is invalid or its encryption context does not match');
    if (!key.secret) throw invalid();
    const start = MAGIC.length + 1 + key.keyId.length;
    if (blob.length < start + 28) throw invalid();
    const d = createDecipheriv('aes-256-gcm', key.secret, blob.subarray(start, start + 12));
    d.setAAD(Buffer.concat([blob.subarray(0, start), contextBytes(context)]));
    d.setAuthTag(blob.subarray(start + 12, start + 28));
    try {
      return Buffer.concat([d.update(blob.subarray(start + 28)), d.final()]);
    } catch {
      throw invalid();
    }
  }

  metadata(key: FakeKey): Record<string, unknown> {
    const signing = signingAlgorithms(key);
    const encryption = encryptionAlgorithms(key);
    return {
      AWSAccountId: this.accountId,
      KeyId: key.keyId,
      Arn: key.arn,
      CreationDate: key.created.getTime() / 1000,
      Enabled: key.state === 'Enabled',
      Description: key.description,
      KeyUsage: key.keyUsage,
      KeyState: key.state,
      ...(key.deletionDate
        ? { DeletionDate: key.deletionDate.getTime() / 1000, PendingDeletionWindowInDays: key.pendingWindowInDays }
        : {}),
      Origin: 'AWS_KMS',
      KeyManager: 'CUSTOMER',
      CustomerMasterKeySpec: key.keySpec,
      KeySpec: key.keySpec,
      ...(encryption.length ? { EncryptionAlgorithms: encryption } : {}),
      ...(signing.length ? { SigningAlgorithms: signing } : {}),
      MultiRegion: false,
    };
  }
}
