/**
 * Identity templates in role rules (SSH allowed_users / default_user, PKI allowed_domains): the
 * reference server's forms over the login identity of the calling token,
 *   {{identity.entity.aliases.<mount accessor>.name}}
 *   {{identity.entity.aliases.<mount accessor>.metadata.<key>}}
 * resolved against the identity an auth method recorded at login (lib/auth/login.ts). A token
 * without that identity (a token made by auth/token, the root token) resolves none, so a rule
 * made only of templates grants it nothing. Other forms (entity names, groups) are refused when
 * the role is written: Latchkey keeps no entities, and a rule it cannot evaluate is not stored.
 */
import { InvalidInput } from './domain-errors';
import type { LoginIdentity } from './types';

const TEMPLATE = /\{\{([^{}]*)\}\}/g;
const ALIAS = /^identity\.entity\.aliases\.([A-Za-z0-9_-]+)\.(name|metadata\.([A-Za-z0-9_.\/-]+))$/;

/** Throws InvalidInput naming the first template form that is not supported. */
export function checkTemplates(values: readonly string[], field: string): void {
  for (const v of values) {
    for (const m of v.matchAll(TEMPLATE)) {
      if (!ALIAS.test((m[1] ?? '').trim())) {
        throw new InvalidInput(
          `${field}: unsupported template "{{${(m[1] ?? '').trim().slice(0, 80)}}}": use {{identity.entity.aliases.<mount accessor>.name}} or .metadata.<key>`,
        );
      }
    }
    const rest = v.replace(TEMPLATE, '');
    if (rest.includes('{{') || rest.includes('}}')) throw new InvalidInput(`${field}: unbalanced template braces`);
  }
}

/** The value with its templates filled in from `who`, or undefined when any cannot be (the entry then allows nothing). */
export function expandTemplate(value: string, who: LoginIdentity | undefined): string | undefined {
  let unresolved = false;
  const out = value.replace(TEMPLATE, (_m, inner: string) => {
    const m = ALIAS.exec(inner.trim());
    const v = m && who && who.mountAccessor === m[1] ? (m[2] === 'name' ? who.name : who.metadata[m[3] ?? '']) : undefined;
    // A value that would widen the rule (a "*" from a user-controlled claim) resolves nothing.
    if (v === undefined || v === '' || v.includes('*')) unresolved = true;
    return v ?? '';
  });
  return unresolved ? undefined : out;
}

/** Each entry expanded; entries that cannot be resolved are dropped. */
export function expandAll(values: readonly string[], who: LoginIdentity | undefined): string[] {
  return values.flatMap((v) => expandTemplate(v, who) ?? []);
}
