/**
 * The keys of an SSH mount's issuers (OpenBao's multi-issuer layout, storage version 2), owned
 * here and nowhere else:
 *   issuer/<id>        a CA key pair: its public key line and its private key, sealed
 *   issuer-name/<name> which issuer holds a name (an index: the issuer record's own name decides)
 *   config/issuers     the default issuer's id ('' when none)
 *   meta/storage       the layout version, and the legacy CA the migration last took in
 *   config/ca          the one CA key of version 1, read by the migration and by a previous
 *                      release during a rolling deploy; deleted only with its issuer (or
 *                      with every issuer, config/ca delete)
 */
import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import type { Deps } from '../deps';
import { ConflictError, ExistsError } from '../domain-errors';
import type { SealedValue } from '../keys/sealed';
import { mutate, type Partition, type StoredItem } from '../store/store';
import type { CaSigner } from './certificate';
import { publicBlob } from './ssh-key';

export const STORAGE_VERSION = 2;
const ISSUER = 'issuer/';
const NAME = 'issuer-name/';
const CONFIG = 'config/issuers';
const META = 'meta/storage';
const LEGACY_CA = 'config/ca';
/** A name claim younger than this may belong to a write under way; an older one whose issuer does not carry the name is stale. */
const CLAIM_WINDOW_MS = 60_000;

/** Records are types (not interfaces) of JSON values, so they are stored without conversion. */
export type IssuerRecord = {
  /** uuid-shaped, derived from the public key (issuerIdOf): the same key always has the same id. */
  id: string;
  /** '' or a name unique in the mount. */
  name: string;
  /** The OpenSSH public key line, newline-terminated. */
  publicKey: string;
  /** PKCS#8 PEM, sealed with the additional data `sealedAt` (absent: `issuer/<id>`). */
  privateKey: SealedValue;
  sealedAt?: string;
};

type NameClaim = { id: string; at: number };
type IssuersConfig = { default: string };
/** meta/storage: `legacyCa` is the issuer id of the config/ca record last migrated ('' when there was none). */
export type StorageMeta = { version: number; legacyCa: string };
/** Version 1's config/ca. */
export type LegacyCa = { public_key: string; private_key: SealedValue };

export interface LoadedIssuer extends CaSigner {
  id: string;
}

/** A uuid-shaped id derived from an issuer's public key line (`type base64 [comment]`). */
export function issuerIdOf(publicLine: string): string {
  const blob = Buffer.from(publicLine.trim().split(/\s+/)[1] ?? '', 'base64');
  const h = createHash('sha256').update('ssh-issuer').update(blob).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const signers = new Map<string, { ct: string; signer: LoadedIssuer }>();

export class IssuerStore {
  constructor(
    private readonly deps: Pick<Deps, 'sealer' | 'now'>,
    readonly part: Partition,
  ) {}

  async issuer(id: string): Promise<IssuerRecord | undefined> {
    return id ? (await this.part.get<IssuerRecord>(ISSUER + id))?.value : undefined;
  }

  /** Every issuer, in id order. */
  async issuers(): Promise<IssuerRecord[]> {
    const out: IssuerRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.list<IssuerRecord>(ISSUER, cursor ? { cursor } : {});
      out.push(...page.items.map((i) => i.value));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  async hasIssuers(): Promise<boolean> {
    return (await this.part.listKeys(ISSUER, { limit: 1 })).items.length > 0;
  }

  /** Writes a new issuer; false when one with this id (this key) is there already. */
  async add(record: IssuerRecord): Promise<boolean> {
    try {
      await this.part.put(ISSUER + record.id, record, { ifAbsent: true });
      return true;
    } catch (e) {
      if (e instanceof ExistsError) return false;
      throw e;
    }
  }

  /** Sets an issuer's name; undefined when the issuer is gone. */
  async setName(id: string, name: string): Promise<IssuerRecord | undefined> {
    return mutate<IssuerRecord>(this.part, ISSUER + id, (cur) => (cur ? { ...cur, name } : undefined));
  }

  async remove(id: string): Promise<void> {
    await this.part.delete(ISSUER + id);
  }

  async sealKey(id: string, key: KeyObject): Promise<SealedValue> {
    return this.deps.sealer.seal(key.export({ format: 'pem', type: 'pkcs8' }).toString(), this.part.name, ISSUER + id);
  }

  /** The issuer's signing key, opened once per stored value. */
  async signer(record: IssuerRecord): Promise<LoadedIssuer> {
    const at = `${this.part.name}\n${record.id}`;
    const hit = signers.get(at);
    if (hit && hit.ct === record.privateKey.ct) return hit.signer;
    const key = createPrivateKey(await this.deps.sealer.openText(record.privateKey, record.sealedAt ?? ISSUER + record.id));
    const signer = { id: record.id, key, blob: publicBlob(key) };
    if (signers.size >= 1000) signers.clear();
    signers.set(at, { ct: record.privateKey.ct, signer });
    return signer;
  }

  // Names: a claim record per name, so two issuers never take the same one (conditional writes).

  /** The issuer a name claim points at (check that issuer's own name before trusting it). */
  async claimOf(name: string): Promise<string | undefined> {
    return (await this.part.get<NameClaim>(NAME + name))?.value.id;
  }

  /** Claims `name` for issuer `id`; ExistsError when another issuer holds it. */
  async claim(name: string, id: string): Promise<void> {
    for (let attempt = 0; attempt < 4; attempt++) {
      const cur = await this.part.get<NameClaim>(NAME + name);
      if (cur?.value.id === id) return;
      if (cur && (await this.held(name, cur))) throw new ExistsError('issuer name already in use');
      const value: NameClaim = { id, at: this.deps.now() };
      try {
        await this.part.put(NAME + name, value, cur ? { ifVersion: cur.version } : { ifAbsent: true });
        return;
      } catch (e) {
        if (!(e instanceof ExistsError || e instanceof ConflictError)) throw e;
      }
    }
    throw new ConflictError();
  }

  private async held(name: string, claim: StoredItem<NameClaim>): Promise<boolean> {
    if (this.deps.now() - claim.value.at < CLAIM_WINDOW_MS) return true;
    return (await this.issuer(claim.value.id))?.name === name;
  }

  /** Drops issuer `id`'s claim on `name` (left alone when another issuer took it meanwhile). */
  async release(name: string, id: string): Promise<void> {
    const cur = await this.part.get<NameClaim>(NAME + name);
    if (cur?.value.id !== id) return;
    await this.part.delete(NAME + name, { ifVersion: cur.version }).catch((e: unknown) => {
      if (!(e instanceof ConflictError)) throw e;
    });
  }

  // The default issuer.

  async defaultItem(): Promise<StoredItem<IssuersConfig> | undefined> {
    return this.part.get<IssuersConfig>(CONFIG);
  }

  async defaultId(): Promise<string> {
    return (await this.defaultItem())?.value.default ?? '';
  }

  /** Makes `id` the default; with `onlyIfNone`, only when no default is set. Answers the id it replaced ('' for none). */
  async setDefault(id: string, onlyIfNone = false): Promise<string> {
    let before = '';
    await mutate<IssuersConfig>(this.part, CONFIG, (cur) => {
      before = cur?.default ?? '';
      return before === id || (onlyIfNone && before) ? undefined : { default: id };
    });
    return before;
  }

  /** Writes the default as it was read (`item`), unless another writer changed it since; false then. */
  async setDefaultIfUnchanged(id: string, item: StoredItem<IssuersConfig> | undefined): Promise<boolean> {
    try {
      await this.part.put(CONFIG, { default: id }, item ? { ifVersion: item.version } : { ifAbsent: true });
      return true;
    } catch (e) {
      if (e instanceof ExistsError || e instanceof ConflictError) return false;
      throw e;
    }
  }

  /** Unsets the default when it is `id` (or, with '', whatever it is); whether it was. */
  async unsetDefault(id: string): Promise<boolean> {
    let was = false;
    await mutate<IssuersConfig>(this.part, CONFIG, (cur) => {
      was = !!cur?.default && (id === '' || cur.default === id);
      return was ? { default: '' } : undefined;
    });
    return was;
  }

  // The layout version and version 1's record.

  async meta(): Promise<StorageMeta | undefined> {
    return (await this.part.get<StorageMeta>(META))?.value;
  }

  async putMeta(meta: StorageMeta): Promise<void> {
    await this.part.put(META, meta);
  }

  async legacyCa(): Promise<LegacyCa | undefined> {
    return (await this.part.get<LegacyCa>(LEGACY_CA))?.value;
  }

  /** Deletes version 1's config/ca, then records that no legacy CA is left to migrate. */
  async dropLegacyCa(): Promise<void> {
    await this.part.delete(LEGACY_CA);
    await this.putMeta({ version: STORAGE_VERSION, legacyCa: '' });
  }
}

/** The additional data version 1 sealed its CA key with. */
export const LEGACY_SEALED_AT = LEGACY_CA;
