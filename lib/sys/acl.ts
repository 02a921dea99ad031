/**
 * The compiled rules of a token's policies and the decision for one request, as OpenBao makes
 * it: merge by pattern; the exact rule for the path as asked wins, then (for a LIST) the exact
 * rule of the path without its trailing slash; otherwise the most specific glob or
 * segment-wildcard rule for the path as asked (a LIST with its trailing slash), so a deny on
 * `pki/roles/*` hides the listing `pki/roles/` whatever grants `pki/*`; only when no such rule
 * matches does a LIST try them on the path without its slash (a grant on `pki/+` lists `pki/roles/`).
 */
import type { AccessParam } from '../types';
import { parametersAllowed } from './acl-params';
import type { Capability, Operation, PathRule, Permissions, PolicyDocument } from './policy-rules';

type ParamMap = Map<string, unknown[]>;

interface Candidate {
  firstWild: number;
  isPrefix: boolean;
  wildcards: number;
  body: string;
  perms: Permissions;
}

export class Acl {
  private readonly exact = new Map<string, Permissions>();
  /** Trailing-glob rules without segment wildcards, by the prefix before the `*`. */
  private readonly prefix = new Map<string, Permissions>();
  /** Rules with `+` segments, by their whole pattern. */
  private readonly wildcard = new Map<string, Permissions>();

  constructor(rules: PathRule[]) {
    for (const r of rules) {
      const hasPlus = r.pattern === '+' || r.pattern.startsWith('+/') || r.pattern.includes('/+');
      const [map, key] = hasPlus
        ? [this.wildcard, r.pattern]
        : r.pattern.endsWith('*')
          ? [this.prefix, r.pattern.slice(0, -1)]
          : [this.exact, r.pattern];
      const prev = map.get(key);
      map.set(key, prev ? merge(prev, r) : copy(r));
    }
  }

  get empty(): boolean {
    return this.exact.size + this.prefix.size + this.wildcard.size === 0;
  }

  /** The permissions that decide an operation on `path` (relative to /v1/), or undefined. */
  permissions(path: string, list = false): Permissions | undefined {
    const p = path.replace(/^\/+/, '');
    const bare = list ? p.replace(/\/$/, '') : p;
    const hit = this.exact.get(p) ?? this.exact.get(bare);
    if (hit) return hit;
    // The path as asked first: a glob matching it is more specific than any matching the bare path.
    return this.nonExact(p) ?? (bare !== p ? this.nonExact(bare) : undefined);
  }

  /**
   * Whether any rule grants something at or under `prefix` (a mount path with its slash), as
   * Vault decides who may see a mount in sys/internal/ui/mounts: the mount path itself not
   * denied, or an exact or glob rule below it, or a `+` rule whose leading segments fit it.
   */
  grantsUnder(prefix: string): boolean {
    const own = this.permissions(prefix);
    if (own && granting(own)) return true;
    for (const map of [this.exact, this.prefix]) for (const [key, perms] of map) if (key.startsWith(prefix) && granting(perms)) return true;
    const parts = prefix.replace(/\/$/, '').split('/');
    for (const [pattern, perms] of this.wildcard) if (granting(perms) && leadsInto(pattern, parts)) return true;
    return false;
  }

  private nonExact(path: string): Permissions | undefined {
    const found: Candidate[] = [];
    let best: string | undefined;
    for (const prefix of this.prefix.keys())
      if (path.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
    if (best !== undefined) {
      found.push({ firstWild: best.length, isPrefix: true, wildcards: 0, body: best, perms: this.prefix.get(best)! });
    }
    const parts = path.split('/');
    for (const [pattern, perms] of this.wildcard) {
      const c = wildcardMatch(pattern, parts);
      if (c) found.push({ ...c, perms });
    }
    if (!found.length) return undefined;
    return found.reduce((a, b) => (lessSpecific(a, b) ? b : a)).perms;
  }
}

const granting = (p: Permissions): boolean => p.capabilities.size > 0 && !p.capabilities.has('deny');

/** Whether a `+` pattern's first segments fit the mount path's segments (the pattern may go deeper). */
function leadsInto(pattern: string, parts: string[]): boolean {
  const segs = pattern.split('/');
  for (let i = 0; i < parts.length; i++) {
    const s = segs[i];
    if (s === undefined) return false;
    if (s === '+' || s === parts[i]) continue;
    if (s.endsWith('*') && parts[i]!.startsWith(s.slice(0, -1))) return true;
    return false;
  }
  return true;
}

function wildcardMatch(pattern: string, parts: string[]): Omit<Candidate, 'perms'> | undefined {
  const isPrefix = pattern.endsWith('*');
  const body = isPrefix ? pattern.slice(0, -1) : pattern;
  const segs = body.split('/');
  if (parts.length < segs.length || (!isPrefix && parts.length !== segs.length)) return undefined;
  let wildcards = 0;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    const part = parts[i]!;
    if (s === '+') wildcards++;
    else if (s === part) continue;
    else if (isPrefix && i === segs.length - 1 && part.startsWith(s)) continue;
    else return undefined;
  }
  return { firstWild: pattern.indexOf('+'), isPrefix, wildcards, body };
}

/** The reference ordering: earlier wildcard, a prefix, more `+` segments, shorter: less specific. */
function lessSpecific(a: Candidate, b: Candidate): boolean {
  if (a.firstWild !== b.firstWild) return a.firstWild < b.firstWild;
  if (a.isPrefix !== b.isPrefix) return a.isPrefix;
  if (a.wildcards !== b.wildcards) return a.wildcards > b.wildcards;
  if (a.body.length !== b.body.length) return a.body.length < b.body.length;
  return a.body < b.body;
}

function copy(r: Permissions): Permissions {
  return {
    capabilities: new Set(r.capabilities),
    ...(r.allowed ? { allowed: new Map([...r.allowed].map(([k, v]) => [k, [...v]])) } : {}),
    ...(r.denied ? { denied: new Map([...r.denied].map(([k, v]) => [k, [...v]])) } : {}),
    required: [...r.required],
  };
}

function merge(into: Permissions, r: Permissions): Permissions {
  if (into.capabilities.has('deny')) return into;
  if (r.capabilities.has('deny')) return { capabilities: new Set(['deny']), required: [] };
  for (const c of r.capabilities) into.capabilities.add(c);
  if (r.allowed?.size) into.allowed = mergeParams(into.allowed, r.allowed);
  if (r.denied?.size) into.denied = mergeParams(into.denied, r.denied);
  for (const p of r.required) if (!into.required.includes(p)) into.required.push(p);
  return into;
}

function mergeParams(into: ParamMap | undefined, add: ParamMap): ParamMap {
  if (!into) return new Map([...add].map(([k, v]) => [k, [...v]]));
  for (const [k, values] of add) {
    const prev = into.get(k);
    into.set(k, values.length === 0 || (prev !== undefined && prev.length === 0) ? [] : [...values, ...(prev ?? [])]);
  }
  return into;
}

/** Merges the rules of several documents into one ACL. */
export function mergeRules(docs: PolicyDocument[]): Acl {
  return new Acl(docs.flatMap((d) => d.rules));
}

/** The capabilities on a path as `sys/capabilities-self` reports them (decided as a LIST, as the reference does). */
export function capabilitiesFor(acl: Acl, path: string): Set<Capability> {
  return acl.permissions(path, true)?.capabilities ?? new Set();
}

/** Whether `perms` allow `op` (with sudo when asked) on a request carrying `params`. */
export function allows(perms: Permissions | undefined, op: Operation, sudo: boolean, params: readonly AccessParam[] = []): boolean {
  if (!perms) return false;
  const caps = perms.capabilities;
  if (caps.has('deny')) return false;
  const granted = op === 'write' ? caps.has('create') || caps.has('update') : caps.has(op);
  if (!granted || (sudo && !caps.has('sudo'))) return false;
  if (op === 'list' || op === 'delete') return true;
  return parametersAllowed(perms, params);
}
