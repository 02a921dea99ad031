/**
 * Policy documents and their evaluation, pure. A document maps path patterns to
 * capabilities. A trailing `*` is a prefix glob and `+` matches exactly one segment.
 * Across all of a token's policies, rules on the same pattern are merged (deny wins there);
 * then the most specific matching pattern decides, by the reference server's ordering.
 */
import { BadRequest } from '../errors';
import type { OpName } from '../http/path';

export const CAPABILITIES = ['create', 'read', 'update', 'delete', 'list', 'sudo', 'deny'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface PolicyDocument {
  path: Record<string, { capabilities: Capability[] }>;
}

export interface Rule {
  pattern: string;
  capabilities: Set<Capability>;
}

/** Parses a document given as a JSON string or an object; 400 naming what is wrong. */
export function parsePolicy(input: unknown): PolicyDocument {
  let doc = input;
  if (typeof input === 'string') {
    try {
      doc = JSON.parse(input);
    } catch {
      throw new BadRequest('failed to parse policy: the policy document is not valid JSON');
    }
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new BadRequest('failed to parse policy: expected a JSON object');
  const paths = (doc as { path?: unknown }).path;
  if (paths === undefined) return { path: {} };
  if (!paths || typeof paths !== 'object' || Array.isArray(paths)) throw new BadRequest('failed to parse policy: "path" must be an object');
  const out: PolicyDocument = { path: {} };
  for (const [pattern, rule] of Object.entries(paths as Record<string, unknown>)) {
    checkPattern(pattern);
    const caps = (rule as { capabilities?: unknown } | null)?.capabilities;
    if (!Array.isArray(caps)) throw new BadRequest(`failed to parse policy: path "${pattern}" needs a "capabilities" list`);
    for (const c of caps) {
      if (typeof c !== 'string' || !(CAPABILITIES as readonly string[]).includes(c)) {
        throw new BadRequest(`failed to parse policy: path "${pattern}": unknown capability ${JSON.stringify(c)}`);
      }
    }
    out.path[pattern] = { capabilities: [...new Set(caps as Capability[])] };
  }
  return out;
}

function checkPattern(pattern: string): void {
  if (pattern.length > 512) throw new BadRequest('failed to parse policy: a path pattern is longer than 512 characters');
  const star = pattern.indexOf('*');
  if (star !== -1 && star !== pattern.length - 1) {
    throw new BadRequest(`failed to parse policy: path "${pattern}": "*" is only allowed at the end`);
  }
}

/** Merges the rules of several documents by pattern. */
export function mergeRules(docs: PolicyDocument[]): Rule[] {
  const byPattern = new Map<string, Set<Capability>>();
  for (const d of docs) {
    for (const [pattern, { capabilities }] of Object.entries(d.path)) {
      const set = byPattern.get(pattern) ?? new Set<Capability>();
      for (const c of capabilities) set.add(c);
      byPattern.set(pattern, set);
    }
  }
  return [...byPattern].map(([pattern, caps]) => ({ pattern, capabilities: caps.has('deny') ? new Set<Capability>(['deny']) : caps }));
}

const compiled = new Map<string, RegExp>();

export function matches(pattern: string, path: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    const glob = pattern.endsWith('*');
    const body = (glob ? pattern.slice(0, -1) : pattern)
      .split('/')
      .map((seg) => (seg === '+' ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    re = new RegExp(`^${body}${glob ? '' : '$'}`, 's');
    if (compiled.size < 10_000) compiled.set(pattern, re);
  }
  return re.test(path);
}

/** Orders two matching patterns: positive when `a` is more specific than `b`. */
export function compareSpecificity(a: string, b: string): number {
  const firstWild = (p: string) => {
    const i = p.search(/[+*]/);
    return i === -1 ? p.length : i;
  };
  if (firstWild(a) !== firstWild(b)) return firstWild(a) - firstWild(b);
  const aGlob = a.endsWith('*');
  const bGlob = b.endsWith('*');
  if (aGlob !== bGlob) return aGlob ? -1 : 1;
  const plus = (p: string) => p.split('/').filter((s) => s === '+').length;
  if (plus(a) !== plus(b)) return plus(b) - plus(a);
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The capabilities the rules grant on `path` (the most specific matching pattern's). */
export function capabilitiesFor(rules: Rule[], path: string): Set<Capability> {
  let best: Rule | undefined;
  for (const r of rules) {
    if (!matches(r.pattern, path)) continue;
    if (!best || compareSpecificity(r.pattern, best.pattern) > 0) best = r;
  }
  return best ? best.capabilities : new Set();
}

/** Whether `caps` allow `op` (and sudo when asked). */
export function allows(caps: Set<Capability>, op: OpName, sudo: boolean): boolean {
  if (caps.has('deny')) return false;
  if (sudo && !caps.has('sudo')) return false;
  switch (op) {
    case 'read':
      return caps.has('read');
    case 'list':
      return caps.has('list');
    case 'write':
      return caps.has('create') || caps.has('update');
    case 'delete':
      return caps.has('delete');
  }
}
