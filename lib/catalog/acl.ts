/**
 * Catalog ACLs on the shared token and policy store. A token's policies are checked on
 * `catalog/kv/<key>`, `catalog/service/<name>` and `catalog/node/<name>`; where no rule of its
 * policies matches, the default policy (allow or deny) decides, as in the reference catalog.
 * With ACLs disabled everything is allowed.
 */
import { Forbidden } from '../domain-errors';
import type { OpName } from '../http/path';
import type { Policies } from '../sys/policies';
import { allows, type Acl } from '../sys/acl';
import { checkBoundCidrs } from '../sys/token-principal';
import type { Tokens } from '../sys/tokens';
import type { CatalogConfig } from './settings';

export type Resource = 'kv' | 'service' | 'node';

export interface CatalogAccess {
  /** A real token (sent, or the configured default) was resolved; anonymous callers have none. */
  readonly tokenValid: boolean;
  can(resource: Resource, name: string, op: OpName): boolean;
}

export const aclPath = (resource: Resource, name: string) => `catalog/${resource}/${name}`;

const ALLOW_ALL: CatalogAccess = { tokenValid: false, can: () => true };

export async function resolveAccess(
  parts: { tokens: Tokens; policies: Policies },
  settings: CatalogConfig,
  sent: string | undefined,
  remoteAddress?: string,
): Promise<CatalogAccess> {
  if (!settings.aclEnabled) return ALLOW_ALL;
  const token = sent || settings.defaultToken;
  const fallback = settings.defaultPolicy === 'allow';
  if (!token) return byRules(undefined, fallback, false);
  const root = (policies: string[]) => policies.includes('root');
  // The token, then its accessor items and policies together (lib/sys/tokens.ts lookup).
  const found = await parts.tokens.lookup(token, (r) => (root(r.policies) ? [] : parts.policies.prefetchKeys(r.policies)));
  if (!found) throw new Forbidden('ACL not found');
  checkBoundCidrs(found.record, remoteAddress);
  if (root(found.record.policies)) return { tokenValid: true, can: () => true };
  const rules = await parts.policies.rules(found.record.policies, found.read);
  if (!(await parts.tokens.use(found.record, found.version))) throw new Forbidden('ACL not found');
  return byRules(rules, fallback, true);
}

function byRules(acl: Acl | undefined, fallback: boolean, tokenValid: boolean): CatalogAccess {
  return {
    tokenValid,
    can(resource, name, op) {
      const perms = acl?.permissions(aclPath(resource, name), op === 'list');
      if (!perms) return fallback;
      // The catalog takes raw values, not named parameters: a rule that constrains parameters
      // cannot be enforced here, so it grants nothing (fail closed).
      if (perms.allowed?.size || perms.denied?.size || perms.required.length) return false;
      return allows(perms, op, false);
    },
  };
}

/** Throws the reference's 403 unless `access` allows `op` on the resource. */
export function demand(access: CatalogAccess, resource: Resource, name: string, op: OpName): void {
  if (!access.can(resource, name, op)) throw new Forbidden('Permission denied');
}
