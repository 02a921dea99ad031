/**
 * The signed certificates and revocations of an SSH mount, owned here and nowhere else:
 *   cert/<serial>                  a signed certificate (serial as 16 hex digits): key id,
 *                                  principals, validity, the CA key and its issuer id
 *   keyid/<sha-256 of key id>/<serial>  which certificates carry a key id
 *   revoked/<issuer id>/<serial>   a revocation: the CA key, serial, key id, validity, time
 *   krl/version                    a counter raised after each new revocation (the KRL's krl_version)
 * Every record is in the `ssh-cert-expiry` index by the certificate's ValidBefore, for tidy.
 * Reads of `revoked/` are consistent (a Query on the table, not the index), so a revocation
 * acknowledged by any instance is in the KRL every instance builds afterwards.
 */
import { createHash } from 'node:crypto';
import { ExistsError } from '../domain-errors';
import type { IndexEntry, Partition, TransactWrite } from '../store/store';

export const EXPIRY_INDEX = 'ssh-cert-expiry';
const CERT = 'cert/';
const KEY_ID = 'keyid/';
const REVOKED = 'revoked/';
const KRL_VERSION = 'krl/version';

/** A signed certificate as recorded (seconds; serial as 16 hex digits). */
export type CertRecord = {
  serial: string;
  keyId: string;
  principals: string[];
  certType: string;
  validAfter: number;
  validBefore: number;
  /** The signing CA's public key blob, base64. */
  caKey: string;
  issuerId: string;
};

export type RevokedRecord = {
  serial: string;
  keyId: string;
  validBefore: number;
  caKey: string;
  issuerId: string;
  /** Milliseconds since the epoch. */
  revokedAt: number;
};

export const serialHex = (serial: bigint): string => BigInt.asUintN(64, serial).toString(16).padStart(16, '0');
const keyIdHash = (keyId: string) => createHash('sha256').update(keyId, 'utf8').digest('hex');
/** Seconds, zero-padded (ValidBefore may be the maximum u64: clamped), then the key, so equal expiries stay distinct. */
const expiry = (validBefore: number, key: string): IndexEntry => ({
  name: EXPIRY_INDEX,
  sort: `${String(Math.min(validBefore, 99_999_999_999_999)).padStart(14, '0')}#${key}`,
});

export class CertRecords {
  constructor(readonly part: Partition) {}

  /**
   * The writes that record a signed certificate and its key id link, to be made together (with
   * the certificate's lease: lib/sys/leases.ts). New items (a random serial), so each is
   * `ifAbsent`: a transaction needs no read first.
   */
  /** Records a signed certificate alone (its link first), without a lease. */
  async add(c: CertRecord): Promise<void> {
    for (const w of this.addWrites(c)) {
      if ('value' in w) await this.part.put(w.key, w.value, { ifAbsent: true, ...(w.index ? { index: w.index } : {}) });
    }
  }

  addWrites(c: CertRecord): TransactWrite[] {
    const link = `${KEY_ID}${keyIdHash(c.keyId)}/${c.serial}`;
    return [
      { partition: this.part.name, key: link, value: { serial: c.serial }, ifAbsent: true, index: expiry(c.validBefore, link) },
      { partition: this.part.name, key: CERT + c.serial, value: c, ifAbsent: true, index: expiry(c.validBefore, CERT + c.serial) },
    ];
  }

  async get(serial: string): Promise<CertRecord | undefined> {
    return (await this.part.get<CertRecord>(CERT + serial))?.value;
  }

  /** The recorded certificates carrying `keyId` (at most `limit`). */
  async withKeyId(keyId: string, limit: number): Promise<CertRecord[]> {
    const out: CertRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.list<{ serial: string }>(`${KEY_ID}${keyIdHash(keyId)}/`, { limit: 100, ...(cursor ? { cursor } : {}) });
      for (const i of page.items) {
        const c = await this.get(i.value.serial);
        if (c?.keyId === keyId) out.push(c);
        if (out.length >= limit) return out;
      }
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  /** Writes a revocation once; answers the first one's time when it was there already. */
  async revoke(r: RevokedRecord): Promise<{ revokedAt: number; added: boolean }> {
    const key = `${REVOKED}${r.issuerId}/${r.serial}`;
    try {
      await this.part.put(key, r, { ifAbsent: true, index: expiry(r.validBefore, key) });
    } catch (e) {
      if (!(e instanceof ExistsError)) throw e;
      const first = await this.part.get<RevokedRecord>(key);
      return { revokedAt: first?.value.revokedAt ?? r.revokedAt, added: false };
    }
    await this.part.increment(KRL_VERSION);
    return { revokedAt: r.revokedAt, added: true };
  }

  /** Every revocation, read consistently, with the KRL version read before them. */
  async revocations(): Promise<{ version: number; revoked: RevokedRecord[] }> {
    const version = (await this.part.get<number>(KRL_VERSION))?.value ?? 0;
    const revoked: RevokedRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.list<RevokedRecord>(REVOKED, cursor ? { cursor } : {});
      revoked.push(...page.items.map((i) => i.value));
      cursor = page.cursor;
    } while (cursor);
    return { version: typeof version === 'number' ? version : 0, revoked };
  }

  /** Deletes records of certificates whose ValidBefore is at or before `before` (seconds), up to `limit`; how many. */
  async tidy(before: number, limit: number): Promise<number> {
    const page = await this.part.queryIndex(EXPIRY_INDEX, { to: `${String(before).padStart(14, '0')}#\uffff`, limit });
    for (const item of page.items) await this.part.delete(item.key);
    // The KRL changed: its next version is a new one.
    if (page.items.some((i) => i.key.startsWith(REVOKED))) await this.part.increment(KRL_VERSION);
    return page.items.length;
  }
}
