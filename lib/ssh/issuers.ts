/**
 * An SSH mount's issuers, as OpenBao has them: several CA key pairs, each with an id (derived
 * from its public key) and an optional unique name, one of them the default. A reference is an
 * id, a name or `default`. Roles name theirs in `issuer_ref` and are resolved when they sign.
 */
import type { KeyObject } from 'node:crypto';
import { InvalidInput } from '../domain-errors';
import { quoted } from '../quote';
import { DEFAULT_REF, ISSUER_ID, ISSUER_NAME, normalRef, unknownRef } from './issuer-ref';
import { issuerIdOf, type IssuerRecord, type IssuerStore, type LoadedIssuer } from './issuer-store';
import { publicLine } from './ssh-key';
import type { SshStore } from './ssh-store';

/** An issuer name as a write gives it: non-empty, not `default`, the characters of a path segment. */
export function checkIssuerName(name: string): string {
  const n = name.trim();
  if (!n) throw new InvalidInput('expected non-empty issuer name');
  if (n.toLowerCase() === DEFAULT_REF) throw new InvalidInput("reserved keyword 'default' can not be used as issuer name");
  if (!ISSUER_NAME.test(n))
    throw new InvalidInput(`issuer name${quoted(n)} contained invalid characters (use letters, digits, '_', '-' and '.')`);
  return n;
}

/** The issuer a reference names, or undefined. */
export async function resolveIssuer(store: IssuerStore, ref: string): Promise<IssuerRecord | undefined> {
  const r = normalRef(ref);
  if (r === DEFAULT_REF) return store.issuer(await store.defaultId());
  if (ISSUER_ID.test(r)) {
    const byId = await store.issuer(r);
    if (byId) return byId;
  }
  if (!ISSUER_NAME.test(r)) return undefined;
  const claimed = await store.issuer((await store.claimOf(r)) ?? '');
  return claimed?.name === r ? claimed : undefined;
}

/** The key a role signs with: its issuer_ref resolved, kept briefly (sign-cache.ts). */
export function signingIssuer(ssh: SshStore, ref: string): Promise<LoadedIssuer> {
  return ssh.cached(`signing/${normalRef(ref)}`, () => resolveSigningIssuer(ssh, ref));
}

async function resolveSigningIssuer(ssh: SshStore, ref: string): Promise<LoadedIssuer> {
  const store = await ssh.issuers();
  const issuer = await resolveIssuer(store, ref);
  if (issuer) return store.signer(issuer);
  if (normalRef(ref) !== DEFAULT_REF) throw new InvalidInput(unknownRef(ref));
  if (await store.hasIssuers()) throw new InvalidInput('no default issuer is configured on this mount (config/issuers)');
  throw new InvalidInput('no CA key is configured on this mount (config/ca)');
}

export interface NewIssuer {
  key: KeyObject;
  /** '' for none. */
  name: string;
  /** Make it the default; otherwise it becomes the default only when there is none. */
  setDefault: boolean;
}

export interface Imported {
  issuer: IssuerRecord;
  /** The key was there already: its issuer is answered as it is. */
  existing: boolean;
}

/** Adds a CA key pair as an issuer (or finds the one holding it), and sets the default. */
export async function importIssuer(ssh: SshStore, o: NewIssuer): Promise<Imported> {
  const store = await ssh.issuers();
  const publicKey = publicLine(o.key);
  const id = issuerIdOf(publicKey);
  let issuer = await store.issuer(id);
  const existing = issuer !== undefined;
  if (!issuer) {
    if (o.name) await store.claim(o.name, id);
    const record: IssuerRecord = { id, name: o.name, publicKey, privateKey: await store.sealKey(id, o.key) };
    issuer = (await store.add(record)) ? record : await store.issuer(id);
    if (!issuer) throw new InvalidInput('the issuer was deleted while it was being written; retry the request');
    if (o.name && issuer.name !== o.name) await store.release(o.name, id);
  }
  await store.setDefault(id, !o.setDefault);
  return { issuer, existing };
}

/** The issuer the reference names, or undefined; `default` answers the default issuer. */
export async function findIssuer(ssh: SshStore, ref: string): Promise<IssuerRecord | undefined> {
  return resolveIssuer(await ssh.issuers(), ref);
}

/** Every issuer, with the default's id. */
export async function listIssuers(ssh: SshStore): Promise<{ issuers: IssuerRecord[]; defaultId: string }> {
  const store = await ssh.issuers();
  const [issuers, defaultId] = await Promise.all([store.issuers(), store.defaultId()]);
  return { issuers, defaultId };
}

/** Each issuer's public key line, the default's first: a TrustedUserCAKeys (or @cert-authority) file. */
export function trustedKeyLines(issuers: IssuerRecord[], defaultId: string): string {
  const ordered = [...issuers.filter((i) => i.id === defaultId), ...issuers.filter((i) => i.id !== defaultId)];
  return ordered.map((i) => `${i.publicKey.trim()} ${i.id}${i.name ? ` ${i.name}` : ''}\n`).join('');
}
