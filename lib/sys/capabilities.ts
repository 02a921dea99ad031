/**
 * A token's capabilities on paths, as sys/capabilities, capabilities-self and
 * capabilities-accessor answer them (Vault's `Core.Capabilities`): the rules the edge enforces
 * (acl.ts), decided in one place. A root token has `["root"]`; a path no rule grants, `["deny"]`.
 * Which mounts a token may see (sys/internal/ui/mounts) follows the same rules.
 */
import type { Deps } from '../deps';
import { Forbidden, InvalidInput } from '../domain-errors';
import { capabilitiesFor } from './acl';
import { checkBoundCidrs } from './token-principal';

/** The most paths one request may ask about (each is a policy lookup; Vault sets no number, a body limit bounds it). */
export const MAX_PATHS = 1000;

export type CapabilityMap = Record<string, string[]>;

/** The capabilities a token holding `policies` has on each path, by path as asked. */
export async function capabilitiesOf(
  deps: Pick<Deps, 'policies'>,
  policies: readonly string[],
  paths: readonly string[],
): Promise<CapabilityMap> {
  if (paths.length === 0) throw new InvalidInput('paths must be supplied');
  if (paths.length > MAX_PATHS) throw new InvalidInput(`at most ${MAX_PATHS} paths may be asked at once (${paths.length} given)`);
  if (paths.some((p) => p === '')) throw new InvalidInput('missing path: an empty path was given');
  const root = policies.includes('root');
  const acl = root ? undefined : await deps.policies.rules([...policies]);
  return Object.fromEntries(
    paths.map((p) => {
      if (!acl) return [p, ['root']];
      const caps = [...capabilitiesFor(acl, p.replace(/^\/+/, ''))].sort();
      return [p, caps.length && !caps.includes('deny') ? caps : ['deny']];
    }),
  );
}

/** The answer's data: each path's capabilities, and `capabilities` too when one path was asked (Vault keeps it for older clients). */
export function capabilitiesAnswer(byPath: CapabilityMap, paths: readonly string[]): CapabilityMap {
  return paths.length === 1 ? { ...byPath, capabilities: byPath[paths[0]!]! } : byPath;
}

/** The policies of the live token `token`; an unknown or expired one is invalid input, as Vault answers it (400 "invalid token"). */
export async function policiesOfToken(deps: Pick<Deps, 'tokens'>, token: string): Promise<string[]> {
  if (!token) throw new InvalidInput('missing token');
  const found = await deps.tokens.lookup(token);
  if (!found) throw new InvalidInput('invalid token');
  return found.record.policies;
}

/** The policies of the live token with accessor `accessor` (400 "invalid accessor" as Vault answers an unknown one). */
export async function policiesOfAccessor(deps: Pick<Deps, 'tokens'>, accessor: string): Promise<string[]> {
  if (!accessor) throw new InvalidInput('missing accessor');
  const record = await deps.tokens.byAccessor(accessor);
  if (!record || !(await deps.tokens.accessorLive(record.accessor))) throw new InvalidInput('invalid accessor');
  return record.policies;
}

/**
 * The caller of a path that checks its own token (sys/internal/ui/mounts: Vault serves it
 * without the ACL on its own path, deciding by the caller's access to each mount): the live
 * token, used from an address it is bound to. Its uses are not counted, as Vault's is not there.
 */
export async function callerPolicies(
  deps: Pick<Deps, 'tokens'>,
  token: string | undefined,
  remoteAddress: string | undefined,
): Promise<string[]> {
  if (!token) throw new Forbidden('permission denied: missing client token');
  const found = await deps.tokens.lookup(token);
  if (!found) throw new Forbidden('permission denied: invalid or expired token');
  checkBoundCidrs(found.record, remoteAddress);
  return found.record.policies;
}
