/**
 * The ACME records of one PKI mount (`acme/...` in its partition): accounts and the link from
 * each account key's thumbprint, orders (and each account's order list), authorizations, EAB
 * keys (sealed) and the account that owns each certificate issued through ACME.
 */
import type { Deps } from '../../deps';
import { ExistsError } from '../../domain-errors';
import type { Partition } from '../../store/store';
import type { AccountRecord, AuthzRecord, EabRecord, OrderRecord } from './records';

const ACCOUNT = 'acme/account/';
const KEY = 'acme/key/';
const ORDER = 'acme/order/';
const ACCOUNT_ORDER = 'acme/account-order/';
const AUTHZ = 'acme/authz/';
const EAB = 'acme/eab/';
const CERT_OWNER = 'acme/cert-owner/';

export interface Versioned<T> {
  value: T;
  version: number;
}

export class AcmeStore {
  constructor(
    private readonly deps: Pick<Deps, 'sealer'>,
    readonly part: Partition,
  ) {}

  async account(id: string): Promise<Versioned<AccountRecord> | undefined> {
    return this.part.get<AccountRecord>(ACCOUNT + id);
  }

  async accountIdByThumbprint(thumbprint: string): Promise<string | undefined> {
    return (await this.part.get<{ account: string }>(KEY + thumbprint))?.value.account;
  }

  /** Claims the key for the account; false when another account holds it. */
  async claimKey(thumbprint: string, account: string): Promise<boolean> {
    try {
      await this.part.put(KEY + thumbprint, { account }, { ifAbsent: true });
      return true;
    } catch (e) {
      if (e instanceof ExistsError) return false;
      throw e;
    }
  }

  async releaseKey(thumbprint: string): Promise<void> {
    await this.part.delete(KEY + thumbprint);
  }

  async putAccount(a: AccountRecord, ifVersion?: number): Promise<void> {
    await this.part.put(ACCOUNT + a.id, a, ifVersion === undefined ? { ifAbsent: true } : { ifVersion });
  }

  async deleteAccount(a: AccountRecord): Promise<void> {
    await this.part.delete(ACCOUNT + a.id);
    if ((await this.accountIdByThumbprint(a.thumbprint)) === a.id) await this.releaseKey(a.thumbprint);
  }

  async order(id: string): Promise<Versioned<OrderRecord> | undefined> {
    return this.part.get<OrderRecord>(ORDER + id);
  }

  /** A new order with its authorizations: the authorizations first, so an order never names a missing one. */
  async createOrder(o: OrderRecord, authzs: AuthzRecord[]): Promise<void> {
    await Promise.all(authzs.map((a) => this.part.put(AUTHZ + a.id, a, { ifAbsent: true })));
    await this.part.put(ORDER + o.id, o, { ifAbsent: true });
    await this.part.put(`${ACCOUNT_ORDER}${o.account}/${o.id}`, { expires: o.expires });
  }

  async putOrder(o: OrderRecord, ifVersion: number): Promise<void> {
    await this.part.put(ORDER + o.id, o, { ifVersion });
  }

  async deleteOrder(o: OrderRecord): Promise<void> {
    for (const a of o.authorizations) await this.part.delete(AUTHZ + a);
    await this.part.delete(ORDER + o.id);
    await this.part.delete(`${ACCOUNT_ORDER}${o.account}/${o.id}`);
  }

  /** The account's order ids (the first `limit`). */
  async orderIds(account: string, limit = 1000): Promise<string[]> {
    const prefix = `${ACCOUNT_ORDER}${account}/`;
    return (await this.part.listKeys(prefix, { limit })).items.map((k) => k.slice(prefix.length));
  }

  async authz(id: string): Promise<Versioned<AuthzRecord> | undefined> {
    return this.part.get<AuthzRecord>(AUTHZ + id);
  }

  async putAuthz(a: AuthzRecord, ifVersion: number): Promise<void> {
    await this.part.put(AUTHZ + a.id, a, { ifVersion });
  }

  async setCertOwner(serialKey: string, account: string): Promise<void> {
    await this.part.put(CERT_OWNER + serialKey, { account });
  }

  async deleteCertOwner(serialKey: string): Promise<void> {
    await this.part.delete(CERT_OWNER + serialKey);
  }

  async certOwner(serialKey: string): Promise<string | undefined> {
    return (await this.part.get<{ account: string }>(CERT_OWNER + serialKey))?.value.account;
  }

  async createEab(id: string, directory: string, macKey: Buffer, now: number): Promise<EabRecord> {
    const record: EabRecord = { id, directory, key: await this.deps.sealer.seal(macKey, this.part.name, EAB + id), createdAt: now };
    await this.part.put(EAB + id, record, { ifAbsent: true });
    return record;
  }

  async eab(id: string): Promise<EabRecord | undefined> {
    return (await this.part.get<EabRecord>(EAB + id))?.value;
  }

  async eabKey(r: EabRecord): Promise<Buffer> {
    return this.deps.sealer.open(r.key, EAB + r.id);
  }

  /** Uses the EAB up (one account each); false when another request used it first. */
  async useEab(id: string): Promise<boolean> {
    return this.part.delete(EAB + id);
  }

  async eabs(): Promise<EabRecord[]> {
    return (await this.part.list<EabRecord>(EAB, { limit: 1000 })).items.map((i) => i.value);
  }

  /** Every item under `acme/<kind>/`, a page at a time (tidy). */
  async page<T>(kind: 'order' | 'account', cursor?: string): Promise<{ items: T[]; cursor?: string }> {
    const page = await this.part.list<T>(kind === 'order' ? ORDER : ACCOUNT, { limit: 200, ...(cursor ? { cursor } : {}) });
    return { items: page.items.map((i) => i.value), ...(page.cursor ? { cursor: page.cursor } : {}) };
  }
}
