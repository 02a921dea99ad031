/**
 * Changing an SSH mount's issuers: the default, a name, deleting one or all. Deletions go in an
 * order a crash cannot spoil: version 1's copy of the key first (so it is never taken in again),
 * then the default pointer, then the issuer, then its name claim (a stale claim is ignored).
 */
import { InvalidInput, NotFoundError } from '../domain-errors';
import { legacyIssuerId } from './issuer-migration';
import type { IssuerRecord, IssuerStore } from './issuer-store';
import { DEFAULT_REF, normalRef, unknownRef } from './issuer-ref';
import { checkIssuerName, resolveIssuer } from './issuers';
import type { SshStore } from './ssh-store';

/** As OpenBao: look at no more than this many roles, and stop counting at ROLES_COUNTED. */
const ROLES_LOOKED_AT = 100;
const ROLES_COUNTED = 10;

/** OpenBao's warning when a reference that roles may hold stops naming this issuer. */
async function rolesReferencing(ssh: SshStore, ref: string): Promise<string[]> {
  const roles = await ssh.firstRoles(ROLES_LOOKED_AT);
  const using = Math.min(ROLES_COUNTED, roles.filter((r) => r.keyType === 'ca' && (r.issuerRef ?? DEFAULT_REF) === ref).length);
  const partial = roles.length >= ROLES_LOOKED_AT || using >= ROLES_COUNTED;
  if (partial && using === 0) return [`Unable to check if any roles referenced this issuer by '${ref}'`];
  if (partial) return [`The name '${ref}' was in use by at least ${using} roles`];
  return using > 0 ? [`${using} roles reference '${ref}'`] : [];
}

export interface DefaultChange {
  id: string;
  /** The default before ('' for none). */
  previous: string;
}

/** config/issuers: makes the referenced issuer the default. */
export async function setDefaultIssuer(ssh: SshStore, ref: string): Promise<DefaultChange> {
  const r = normalRef(ref);
  if (!r || r === DEFAULT_REF) throw new InvalidInput("invalid issuer specification; must be non-empty and can't be 'default'");
  const store = await ssh.issuers();
  const issuer = await resolveIssuer(store, r);
  if (!issuer) throw new InvalidInput(unknownRef(r));
  return { id: issuer.id, previous: await store.setDefault(issuer.id) };
}

/** issuer/<ref> write: gives the issuer a new name (unique in the mount). */
export async function renameIssuer(ssh: SshStore, ref: string, newName: string): Promise<{ issuer: IssuerRecord; warnings: string[] }> {
  const store = await ssh.issuers();
  const issuer = await resolveIssuer(store, ref);
  if (!issuer) throw new NotFoundError(unknownRef(ref));
  const name = checkIssuerName(newName);
  if (name === issuer.name) return { issuer, warnings: [] };
  await store.claim(name, issuer.id);
  const renamed = await store.setName(issuer.id, name);
  if (!renamed) {
    await store.release(name, issuer.id);
    throw new NotFoundError(unknownRef(ref));
  }
  if (issuer.name) await store.release(issuer.name, issuer.id);
  return { issuer: renamed, warnings: issuer.name ? await rolesReferencing(ssh, issuer.name) : [] };
}

/** Version 1's config/ca goes with the issuer it became, so that the key is not left behind (or taken in again). */
async function dropLegacyCopy(store: IssuerStore, id: string): Promise<void> {
  if (legacyIssuerId(await store.legacyCa()) === id) await store.dropLegacyCa();
}

async function removeIssuer(store: IssuerStore, issuer: IssuerRecord): Promise<void> {
  await store.remove(issuer.id);
  if (issuer.name) await store.release(issuer.name, issuer.id);
}

/** issuer/<ref> delete, the default included (as OpenBao: the mount then has no default). Answers warnings; nothing when there is no such issuer. */
export async function deleteIssuer(ssh: SshStore, ref: string): Promise<string[]> {
  const store = await ssh.issuers();
  const issuer = await resolveIssuer(store, ref);
  if (!issuer) return [];
  const warnings = [...(issuer.name ? await rolesReferencing(ssh, issuer.name) : []), ...(await rolesReferencing(ssh, issuer.id))];
  await dropLegacyCopy(store, issuer.id);
  const wasDefault = await store.unsetDefault(issuer.id);
  await removeIssuer(store, issuer);
  if (wasDefault) {
    warnings.push(
      `Deleted issuer ${issuer.id} (via issuer_ref ${ref.slice(0, 128)}); this was configured as the default issuer. Operations without an explicit issuer will not work until a new default is configured.`,
      ...(await rolesReferencing(ssh, DEFAULT_REF)),
    );
  }
  return warnings;
}

/** config/ca delete: every issuer, the default included. Answers how many there were. */
export async function purgeIssuers(ssh: SshStore): Promise<number> {
  const store = await ssh.issuers();
  if (await store.legacyCa()) await store.dropLegacyCa();
  await store.unsetDefault('');
  const all = await store.issuers();
  for (const issuer of all) await removeIssuer(store, issuer);
  return all.length;
}
