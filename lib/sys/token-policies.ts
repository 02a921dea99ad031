/**
 * Which policies a new token gets, pure, as the reference server decides: from a role's
 * allowed/disallowed lists when it has any; otherwise the caller's own (inherited, or a subset
 * asked for), or any set when the caller has sudo on the create path. Never `root` from a
 * parent that is not root.
 */
import { InvalidInput } from '../domain-errors';

/** Policies that may never be given to a token. */
const NOT_ASSIGNABLE = ['response-wrapping'];

/** Trimmed, lower-cased, without empties and duplicates, sorted. */
export function uniqueLower(list: string[]): string[] {
  return [...new Set(list.map((p) => p.trim().toLowerCase()).filter((p) => p !== ''))].sort();
}

/** As the reference's SanitizePolicies: `root` stands alone; `default` added when asked. */
export function sanitizePolicies(list: string[], addDefault: boolean): string[] {
  const clean = uniqueLower(list);
  if (clean.includes('root')) return ['root'];
  if (addDefault && !clean.includes('default')) clean.push('default');
  return clean.sort();
}

const globs = new Map<string, RegExp>();

/** A `*` in a pattern matches any run of characters (the reference's glob). */
export function globMatches(patterns: string[], value: string): boolean {
  return patterns.some((p) => {
    let re = globs.get(p);
    if (!re) {
      re = new RegExp(
        `^${p
          .split('*')
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
        's',
      );
      if (globs.size < 1000) globs.set(p, re);
    }
    return re.test(value);
  });
}

/** What the choice reads of a token role (token-roles.ts's TokenRole has these fields). */
export interface RolePolicyLists {
  allowedPolicies: string[];
  disallowedPolicies: string[];
  allowedPoliciesGlob: string[];
  disallowedPoliciesGlob: string[];
  tokenNoDefaultPolicy: boolean;
}

export interface PolicyChoice {
  /** `policies` of the request (absent or empty: none asked for). */
  requested: string[] | undefined;
  noDefaultPolicy: boolean;
  role: RolePolicyLists | undefined;
  parentPolicies: string[];
  /** The caller has root or sudo on the create path. */
  sudo: boolean;
}

const quoted = (list: string[]) => `[${list.map((p) => JSON.stringify(p)).join(' ')}]`;

function hasPolicyLists(r: RolePolicyLists): boolean {
  return r.allowedPolicies.length + r.disallowedPolicies.length + r.allowedPoliciesGlob.length + r.disallowedPoliciesGlob.length > 0;
}

/** A role with allowed/disallowed lists decides on its own, disjoint from the parent's policies. */
function fromRole(c: PolicyChoice, r: RolePolicyLists): string[] {
  const addDefault =
    !c.noDefaultPolicy &&
    !r.tokenNoDefaultPolicy &&
    !r.disallowedPolicies.includes('default') &&
    !globMatches(r.disallowedPoliciesGlob, 'default');
  let chosen = c.requested?.length ? sanitizePolicies(c.requested, addDefault) : [];
  if (r.allowedPolicies.length || r.allowedPoliciesGlob.length) {
    const allowed = sanitizePolicies(r.allowedPolicies, addDefault);
    if (!chosen.length) chosen = allowed;
    const outside = chosen.filter((p) => !allowed.includes(p) && !globMatches(r.allowedPoliciesGlob, p));
    if (outside.length) {
      throw new InvalidInput(
        `token policies (${quoted(chosen)}) must be subset of the role's allowed policies (${quoted(allowed)}) or glob policies (${quoted(r.allowedPoliciesGlob)})`,
      );
    }
  } else if (!chosen.length) {
    chosen = sanitizePolicies(c.parentPolicies, addDefault);
  }
  const refused = chosen.find((p) => r.disallowedPolicies.includes(p) || globMatches(r.disallowedPoliciesGlob, p));
  if (refused !== undefined) throw new InvalidInput(`token policy "${refused}" is disallowed by this role`);
  return chosen;
}

export function resolvePolicies(c: PolicyChoice): string[] {
  let policies = c.requested ?? [];
  let addDefault = false;
  if (c.role && hasPolicyLists(c.role)) {
    policies = fromRole(c, c.role);
  } else if (!policies.length) {
    // Inherited as they are: `default` only when the parent has it.
    policies = sanitizePolicies(c.parentPolicies, false);
  } else if (!c.sudo) {
    const parent = sanitizePolicies(c.parentPolicies, false);
    const outside = sanitizePolicies(policies, false).filter((p) => !parent.includes(p));
    if (outside.length) throw new InvalidInput(`child policies must be a subset of the parent's: not allowed: ${outside.join(', ')}`);
    addDefault = !c.noDefaultPolicy && c.parentPolicies.includes('default');
  } else {
    addDefault = !c.noDefaultPolicy;
  }
  let final = sanitizePolicies(policies, addDefault);
  if (c.noDefaultPolicy) final = final.filter((p) => p !== 'default');
  const banned = final.find((p) => NOT_ASSIGNABLE.includes(p));
  if (banned) throw new InvalidInput(`cannot assign policy "${banned}"`);
  if (final.includes('root') && !c.parentPolicies.includes('root')) {
    throw new InvalidInput('root tokens may not be created without parent token being root');
  }
  return final;
}
