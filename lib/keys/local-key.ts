/**
 * The local key file that stands in for KMS in the local service: 32 random bytes, mode 0600,
 * created on first use. Data keys are wrapped with AES-256-GCM under it.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataKey, KeyWrapper } from './key-wrapper';

const VERSION = 1;

export class LocalKeyWrapper implements KeyWrapper {
  readonly kind = 'local';
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('local key must be 32 bytes');
  }

  static fromFile(path: string): LocalKeyWrapper {
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    }
    chmodSync(path, 0o600);
    return new LocalKeyWrapper(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64'));
  }

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const plaintext = randomBytes(32);
    return { plaintext, wrapped: this.wrap(plaintext, context) };
  }

  async unwrap(wrapped: Buffer, context: Record<string, string>): Promise<Buffer> {
    if (wrapped.length !== 1 + 12 + 32 + 16 || wrapped[0] !== VERSION) throw new Error('malformed wrapped key');
    const d = createDecipheriv('aes-256-gcm', this.key, wrapped.subarray(1, 13));
    d.setAAD(aad(context));
    d.setAuthTag(wrapped.subarray(45));
    return Buffer.concat([d.update(wrapped.subarray(13, 45)), d.final()]);
  }

  private wrap(plaintext: Buffer, context: Record<string, string>): Buffer {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(aad(context));
    const body = Buffer.concat([c.update(plaintext), c.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, body, c.getAuthTag()]);
  }
}

/** Canonical additional data for a context: sorted keys, so the order of fields never matters. */
export function aad(context: Record<string, string>): Buffer {
  return Buffer.from(
    JSON.stringify(
      Object.keys(context)
        .sort()
        .map((k) => [k, context[k]]),
    ),
  );
}
