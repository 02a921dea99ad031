/**
 * Envelope encryption of secrets at rest. Each sealed value is AES-256-GCM under a data key;
 * the data key is stored beside it, wrapped by the key-encryption key (KMS or the local file).
 *
 * Data keys are reused for a short while per scope (like the AWS Encryption SDK's caching
 * materials manager) so that a burst of writes does not make one KMS call each, and unwrapped
 * keys are cached by their wrapped bytes so reads do not either. The value's own `aad`
 * (its storage path) is bound with GCM, so a sealed value moved to another path does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeyWrapper } from './key-wrapper';

/** A type (not an interface) so that records holding one are JSON the store takes as is. */
export type SealedValue = {
  $sealed: 1;
  /** wrapping kind: local | kms */
  w: string;
  /** wrapped data key, base64 */
  k: string;
  /** the scope bound to the wrapped key */
  s: string;
  iv: string;
  ct: string;
  tag: string;
};

export function isSealed(v: unknown): v is SealedValue {
  return typeof v === 'object' && v !== null && (v as { $sealed?: unknown }).$sealed === 1;
}

const REUSE_MS = 5 * 60_000;
const REUSE_COUNT = 10_000;
const UNWRAP_CACHE = 256;

export class Sealer {
  private current = new Map<string, { plaintext: Buffer; wrapped: Buffer; until: number; uses: number }>();
  private unwrapped = new Map<string, Buffer>();

  constructor(private readonly wrapper: KeyWrapper) {}

  /** Seals `plaintext`; `scope` names the key family (e.g. the partition), `aad` the value's place. */
  async seal(plaintext: string | Buffer, scope: string, aad: string): Promise<SealedValue> {
    const key = await this.dataKey(scope);
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key.plaintext, iv);
    c.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([c.update(plaintext), c.final()]);
    return {
      $sealed: 1,
      w: this.wrapper.kind,
      k: key.wrapped.toString('base64'),
      s: scope,
      iv: iv.toString('base64'),
      ct: ct.toString('base64'),
      tag: c.getAuthTag().toString('base64'),
    };
  }

  async open(sealed: SealedValue, aad: string): Promise<Buffer> {
    if (sealed.w !== this.wrapper.kind) throw new Error(`sealed with ${sealed.w}, but this service unseals with ${this.wrapper.kind}`);
    const dataKey = await this.unwrap(sealed);
    const d = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(sealed.iv, 'base64'));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(sealed.ct, 'base64')), d.final()]);
  }

  async openText(sealed: SealedValue, aad: string): Promise<string> {
    return (await this.open(sealed, aad)).toString('utf8');
  }

  private async dataKey(scope: string) {
    const now = Date.now();
    const cached = this.current.get(scope);
    if (cached && cached.until > now && cached.uses < REUSE_COUNT) {
      cached.uses++;
      return cached;
    }
    const fresh = await this.wrapper.generateDataKey({ service: 'latchkey', scope });
    const entry = { ...fresh, until: now + REUSE_MS, uses: 1 };
    this.current.set(scope, entry);
    this.remember(fresh.wrapped.toString('base64'), fresh.plaintext);
    return entry;
  }

  private async unwrap(sealed: SealedValue): Promise<Buffer> {
    const hit = this.unwrapped.get(sealed.k);
    if (hit) return hit;
    const plain = await this.wrapper.unwrap(Buffer.from(sealed.k, 'base64'), { service: 'latchkey', scope: sealed.s });
    this.remember(sealed.k, plain);
    return plain;
  }

  private remember(wrapped: string, plaintext: Buffer) {
    if (this.unwrapped.size >= UNWRAP_CACHE) {
      const oldest = this.unwrapped.keys().next().value;
      if (oldest !== undefined) this.unwrapped.delete(oldest);
    }
    this.unwrapped.set(wrapped, plaintext);
  }
}
