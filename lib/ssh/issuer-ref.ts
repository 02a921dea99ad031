/** Issuer references: an issuer's id, its name, or `default` (the mount's default issuer). */

export const DEFAULT_REF = 'default';
export const ISSUER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The characters of a path segment, as role and key names. */
export const ISSUER_NAME = /^\w(?:[\w.-]{0,126}\w)?$/;

/** A reference as given, trimmed; any spelling of `default` is `default`. */
export function normalRef(ref: string): string {
  const r = ref.trim();
  return r.toLowerCase() === DEFAULT_REF ? DEFAULT_REF : r;
}

/** Whether a reference could name an issuer at all (what a role may hold). */
export function isIssuerRef(ref: string): boolean {
  return ref === DEFAULT_REF || ISSUER_ID.test(ref) || ISSUER_NAME.test(ref);
}

export const unknownRef = (ref: string) => `unable to find issuer for reference: ${ref.slice(0, 128)}`;
