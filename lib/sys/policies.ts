/** The policy store: named documents in the sys partition, plus the built-in root and default. */
import { InvalidInput } from '../domain-errors';
import type { Partition, StoredItem } from '../store/store';
import { authCacheMs, TtlCache } from '../ttl-cache';
import { mergeRules, type Acl } from './acl';
import { parsePolicy, type PolicyDocument } from './policy-rules';
import type { PrefetchedItems } from './token-tree';

/** The built-in default policy, as text (read back as written) and parsed once. */
export const DEFAULT_POLICY_DOCUMENT = {
  path: {
    'auth/token/lookup-self': { capabilities: ['read'] },
    'auth/token/renew-self': { capabilities: ['update'] },
    'auth/token/revoke-self': { capabilities: ['update'] },
    'sys/capabilities-self': { capabilities: ['update'] },
    'sys/leases/lookup': { capabilities: ['update'] },
    'sys/leases/renew': { capabilities: ['update'] },
    // Vault serves sys/leader without a token (`vault status` reads it); Latchkey's
    // unauthenticated paths are exactly sys/health and sys/seal-status, so every token reads it.
    'sys/leader': { capabilities: ['read'] },
  },
};
const DEFAULT_POLICY_TEXT = JSON.stringify(DEFAULT_POLICY_DOCUMENT, null, 2);

/** The built-in policy of wrapping tokens (lib/sys/wrapping.ts): exactly what unwrap, lookup and rewrap need. Immutable. */
export const RESPONSE_WRAPPING_POLICY = 'response-wrapping';
const RESPONSE_WRAPPING_TEXT = JSON.stringify(
  { path: Object.fromEntries(['unwrap', 'lookup', 'rewrap'].map((p) => [`sys/wrapping/${p}`, { capabilities: ['update'] }])) },
  null,
  2,
);

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$/;

interface StoredPolicy {
  name: string;
  policy: string;
}

export class Policies {
  /** Parsed documents by name (null: no such policy), briefly, for the authorizer. */
  private readonly cache = new TtlCache<string, PolicyDocument | null>(authCacheMs());
  /** The last merge per list of policy names, with the documents it was made from. */
  private readonly merged = new TtlCache<string, { docs: (PolicyDocument | null)[]; acl: Acl }>(authCacheMs(), 1000);

  constructor(private readonly part: Partition) {}

  /**
   * A policy name, folded to lower case as Vault stores it. The policy paths declare the name
   * `foldCase`, so it is folded before policies see the path (lib/http/canonical-path.ts):
   * `sys/policy/ADMIN` is `sys/policy/admin` for a deny as for the store.
   */
  static checkName(name: string): string {
    const n = name.toLowerCase();
    if (!NAME.test(n)) throw new InvalidInput(`invalid policy name "${name.slice(0, 64)}": use letters, digits and _ . @ - (at most 128)`);
    return n;
  }

  async list(): Promise<string[]> {
    const names: string[] = ['default'];
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys('policy/', { ...(cursor ? { cursor } : {}) });
      names.push(...page.items.map((k) => k.slice('policy/'.length)));
      cursor = page.cursor;
    } while (cursor);
    return [...new Set(names)].sort().concat('root');
  }

  /** The document text, or undefined; from `read` when it holds the policy's item (read ahead with others). */
  async read(name: string, read?: PrefetchedItems): Promise<string | undefined> {
    const n = name.toLowerCase();
    if (n === 'root') return '';
    if (n === RESPONSE_WRAPPING_POLICY) return RESPONSE_WRAPPING_TEXT;
    const key = `policy/${n}`;
    const stored = read?.has(key) ? (read.get(key) as StoredItem<StoredPolicy> | undefined) : await this.part.get<StoredPolicy>(key);
    if (stored) return stored.value.policy;
    return n === 'default' ? DEFAULT_POLICY_TEXT : undefined;
  }

  /** The items `rules(names)` would read from the store now (documents not cached), to read ahead with others. */
  prefetchKeys(names: readonly string[]): string[] {
    return names
      .filter((n) => n !== 'root' && n.toLowerCase() !== RESPONSE_WRAPPING_POLICY && this.cache.get(n) === undefined)
      .map((n) => `policy/${n.toLowerCase()}`);
  }

  async write(name: string, document: unknown): Promise<void> {
    const n = Policies.checkName(name);
    if (n === 'root' || n === RESPONSE_WRAPPING_POLICY) throw new InvalidInput(`cannot update the ${n} policy`);
    const text = typeof document === 'string' ? document : JSON.stringify(document, null, 2);
    if (text === undefined) throw new InvalidInput('missing required field "policy"');
    parsePolicy(document);
    await this.part.put(`policy/${n}`, { name: n, policy: text });
    this.cache.delete(n);
  }

  /** A name a read or delete gives, folded; a name no policy can have is simply not found (undefined), as Vault answers it. */
  static lookupName(name: string): string | undefined {
    const n = name.toLowerCase();
    return NAME.test(n) ? n : undefined;
  }

  async delete(name: string): Promise<void> {
    const n = Policies.lookupName(name);
    if (n === undefined) return;
    if (n === 'root' || n === 'default' || n === RESPONSE_WRAPPING_POLICY) throw new InvalidInput(`cannot delete the ${n} policy`);
    await this.part.delete(`policy/${n}`);
    this.cache.delete(n);
  }

  /** The merged rules of the named policies (unknown names grant nothing). */
  async rules(names: string[], read?: PrefetchedItems): Promise<Acl> {
    const wanted = names.filter((n) => n !== 'root');
    const docs = await Promise.all(wanted.map((n) => this.document(n, read)));
    // The merged rules are rebuilt only when one of the documents is (same objects: same rules),
    // so a request costs no merge while its token's policies are cached.
    const key = wanted.join('\n');
    const hit = this.merged.get(key);
    if (hit && hit.docs.length === docs.length && hit.docs.every((d, i) => d === docs[i])) return hit.acl;
    const acl = mergeRules(docs.filter((d): d is PolicyDocument => d !== null));
    this.merged.set(key, { docs, acl });
    return acl;
  }

  private async document(name: string, read?: PrefetchedItems): Promise<PolicyDocument | null> {
    const hit = this.cache.get(name);
    if (hit !== undefined) return hit;
    const text = await this.read(name, read);
    const doc = text === undefined ? null : parsePolicy(text);
    this.cache.set(name, doc);
    return doc;
  }
}
