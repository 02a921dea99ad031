/** This mount's state: CA key pair, named keys (sealed), roles, zero-address list, OTP salt. */
import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Deps } from '../deps';
import { ExistsError } from '../domain-errors';
import { isSealed, type SealedValue } from '../keys/sealed';
import { mutate, type Partition } from '../store/store';
import type { CaSigner } from './certificate';
import type { Role } from './role';
import { publicBlob, publicLine } from './ssh-key';

type CaRecord = {
  public_key: string;
  private_key: SealedValue;
};

export interface LoadedCa extends CaSigner {
  publicLine: string;
}

const CA = 'config/ca';
const ZERO = 'config/zeroaddress';
const SALT = 'config/otp-salt';
const caCache = new Map<string, { version: number; ct: string; ca: LoadedCa }>();
/** Salts by store (one per service; tests run several) and partition. */
const saltCaches = new WeakMap<object, Map<string, Buffer>>();

/** Records are types (not interfaces) of JSON values, so they are stored without conversion. */
export class SshStore {
  /** `part`: the mount's partition (`req.part` in a request, `mountPartition` outside one). */
  constructor(
    private readonly deps: Pick<Deps, 'store' | 'sealer'>,
    readonly part: Partition,
  ) {}

  async saveCa(key: KeyObject): Promise<string> {
    const line = publicLine(key);
    const pem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
    const sealed = await this.deps.sealer.seal(pem, this.part.name, CA);
    const record: CaRecord = { public_key: line, private_key: sealed };
    await this.part.put(CA, record);
    return line;
  }

  async caPublicLine(): Promise<string | undefined> {
    return (await this.part.get<CaRecord>(CA))?.value.public_key;
  }

  /** The CA signer, parsed once per stored version. */
  async loadCa(): Promise<LoadedCa | undefined> {
    const item = await this.part.get<CaRecord>(CA);
    if (!item || !isSealed(item.value.private_key)) return undefined;
    const hit = caCache.get(this.part.name);
    if (hit && hit.version === item.version && hit.ct === item.value.private_key.ct) return hit.ca;
    const key = createPrivateKey(await this.deps.sealer.openText(item.value.private_key, CA));
    const ca = { key, blob: publicBlob(key), publicLine: item.value.public_key };
    caCache.set(this.part.name, { version: item.version, ct: item.value.private_key.ct, ca });
    return ca;
  }

  async deleteCa(): Promise<void> {
    await this.part.delete(CA);
  }

  async getRole(name: string): Promise<Role | undefined> {
    return (await this.part.get<Role>(`roles/${name}`))?.value;
  }

  async putRole(name: string, role: Role): Promise<void> {
    await this.part.put(`roles/${name}`, role);
  }

  async deleteRole(name: string): Promise<void> {
    await this.part.delete(`roles/${name}`);
  }

  /** Every role (name and value), in name order. */
  async listRoles(): Promise<{ name: string; role: Role }[]> {
    const out: { name: string; role: Role }[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.list<Role>('roles/', cursor ? { cursor } : {});
      out.push(...page.items.map((i) => ({ name: i.key.slice('roles/'.length), role: i.value })));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  async putKey(name: string, privateKey: string): Promise<void> {
    const key = `keys/${name}`;
    await this.part.put(key, { key: await this.deps.sealer.seal(privateKey, this.part.name, key) });
  }

  async getKey(name: string): Promise<string | undefined> {
    const key = `keys/${name}`;
    const item = await this.part.get<{ key: SealedValue }>(key);
    return item ? this.deps.sealer.openText(item.value.key, key) : undefined;
  }

  async hasKey(name: string): Promise<boolean> {
    return (await this.part.get(`keys/${name}`)) !== undefined;
  }

  async deleteKey(name: string): Promise<void> {
    await this.part.delete(`keys/${name}`);
  }

  async zeroAddressRoles(): Promise<string[]> {
    return (await this.part.get<{ roles: string[] }>(ZERO))?.value.roles ?? [];
  }

  async setZeroAddressRoles(roles: string[]): Promise<void> {
    await this.part.put(ZERO, { roles });
  }

  /** Takes one role out of the zero-address list (a conditional write: concurrent changes are not lost). */
  async removeZeroAddressRole(name: string): Promise<void> {
    await mutate<{ roles: string[] }>(this.part, ZERO, (cur) =>
      cur?.roles.includes(name) ? { roles: cur.roles.filter((r) => r !== name) } : undefined,
    );
  }

  async deleteZeroAddress(): Promise<void> {
    await this.part.delete(ZERO);
  }

  /** The per-mount OTP salt (random, sealed), created on first use. */
  async otpSalt(): Promise<Buffer> {
    let cache = saltCaches.get(this.deps.store);
    if (!cache) saltCaches.set(this.deps.store, (cache = new Map()));
    const cached = cache.get(this.part.name);
    if (cached) return cached;
    let item = await this.part.get<{ salt: SealedValue }>(SALT);
    if (!item) {
      const sealed = await this.deps.sealer.seal(randomBytes(32), this.part.name, SALT);
      await this.part.put(SALT, { salt: sealed }, { ifAbsent: true }).catch((e: unknown) => {
        if (!(e instanceof ExistsError)) throw e;
      });
      item = await this.part.get<{ salt: SealedValue }>(SALT);
    }
    const salt = await this.deps.sealer.open(item!.value.salt, SALT);
    cache.set(this.part.name, salt);
    return salt;
  }
}
