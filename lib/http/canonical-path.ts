/**
 * One spelling per item, before anything reads it: a path parameter declared `foldCase` (policy
 * and role names the reference stores lower-cased) is lower-cased in the parameters and in the
 * path that policies are checked on, so `sys/policy/Admin` is `sys/policy/admin` for
 * authorization, the existence check and the handler alike, and no spelling reaches an item
 * that policy evaluation did not see.
 */
import type { Fields } from './fields';

export interface CanonicalPath {
  params: Record<string, string>;
  /** The path after /v1/. */
  full: string;
}

export function canonicalPath(
  fields: Fields,
  prefix: string,
  pattern: string,
  full: string,
  params: Record<string, string>,
): CanonicalPath {
  const folded = Object.keys(params).filter((name) => Object.hasOwn(fields, name) && fields[name]?.foldCase);
  if (!folded.length) return { params, full };
  const out = { ...params };
  for (const name of folded) out[name] = out[name]!.toLowerCase();
  // The pattern's segments name the path's: `:x` one segment, `*x` the rest.
  const rel = full.slice(prefix.length + 1).split('/');
  const segs = pattern.split('/');
  for (let i = 0; i < segs.length && i < rel.length; i++) {
    const seg = segs[i]!;
    const name = seg.slice(1);
    if (!folded.includes(name)) continue;
    if (seg.startsWith(':')) rel[i] = rel[i]!.toLowerCase();
    else if (seg.startsWith('*')) {
      for (let j = i; j < rel.length; j++) rel[j] = rel[j]!.toLowerCase();
      break;
    }
  }
  return { params: out, full: `${prefix}/${rel.join('/')}` };
}
