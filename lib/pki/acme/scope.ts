/**
 * What one ACME request works in: the mount's ACME configuration, the directory it came through
 * (the mount's default one, `acme/`, a role's, `roles/<role>/acme/`, and both under an issuer,
 * `issuer/<ref>/acme/` and `issuer/<ref>/roles/<role>/acme/`), the URLs of that directory, the
 * issuing policy the directory stands for (a role, or sign-verbatim limited to the validated
 * identifiers) and the issuer that signs (the path's, else the role's, else the default; one that
 * config/acme allowed_issuers allows), as the reference server decides them from config/acme.
 */
import type { Deps } from '../../deps';
import { InvalidInput } from '../../domain-errors';
import type { Partition } from '../../store/store';
import type { AcmeConfig } from '../config';
import { pkiRepository } from '../issuer';
import { PkiRepository } from '../repository';
import { checkRoleName, type Role } from '../role';
import type { IssuerRecord } from '../storage';
import { AcmeStore } from './acme-store';
import { AcmeProblem } from './problem';

export type IssuingPolicy = { kind: 'verbatim' } | { kind: 'role'; name: string; role: Role };

export interface AcmeScope {
  deps: Deps;
  part: Partition;
  store: AcmeStore;
  config: AcmeConfig;
  /** `''` for the mount's default directory, `roles/<role>/` for a role's; under an issuer `issuer/<ref>/` before it (the reference as the path wrote it). */
  directory: string;
  /** The mount's external URL, without a trailing slash. */
  mountUrl: string;
  policy: IssuingPolicy;
  /** The id of the issuer that signs this directory's certificates. */
  issuerId: string;
  mountLimits: { defaultLeaseTtl: number; maxLeaseTtl: number };
}

/** The absolute URL of an ACME resource of the scope's directory (`rel`: `new-order`, `order/<id>`...). */
export const acmeUrl = (s: Pick<AcmeScope, 'mountUrl' | 'directory'>, rel: string): string => `${s.mountUrl}/${s.directory}acme/${rel}`;

/** The request's own absolute URL (what its JWS must name). */
export const requestUrl = (s: Pick<AcmeScope, 'mountUrl'>, path: string): string => `${s.mountUrl}/${path}`;

/**
 * config/cluster's `path`, or (not configured) the URL the request came in on: its Host header,
 * `X-Forwarded-Proto` or http, and `/v1/<mount>`. Deployed behind API Gateway, set config/cluster.
 */
export function mountUrlOf(clusterPath: string, headers: Headers, mountPath: string): string {
  if (clusterPath) return clusterPath.replace(/\/+$/, '');
  const host = headers.get('host');
  if (!host || !/^[A-Za-z0-9.:[\]-]{1,255}$/.test(host))
    throw new AcmeProblem('serverInternal', 'config/cluster path is not set and the request has no usable Host header');
  const proto = headers.get('x-forwarded-proto') === 'https' ? 'https' : 'http';
  return `${proto}://${host}/v1/${mountPath}`;
}

/** Whether `name` is a role name (role.ts's rule); a path segment that is not names no role. */
function validRoleName(name: string): boolean {
  try {
    checkRoleName(name);
    return true;
  } catch {
    return false;
  }
}

const allowedRole = (c: AcmeConfig, name: string) => c.allowedRoles.includes('*') || c.allowedRoles.includes(name);

/** Checks config/acme before it is stored (a rule that could not be enforced is refused). */
export async function checkAcmeConfig(deps: Deps, part: Partition, c: AcmeConfig): Promise<void> {
  const p = c.defaultDirectoryPolicy;
  if (p !== 'sign-verbatim' && p !== 'forbid' && !p.startsWith('role:'))
    throw new InvalidInput(`invalid default_directory_policy "${p.slice(0, 80)}": use sign-verbatim, forbid or role:<name>`);
  if (p.startsWith('role:')) {
    const name = checkRoleName(p.slice(5));
    if (!(await new PkiRepository(deps, part).hasRole(name)))
      throw new InvalidInput(`default_directory_policy names role "${name}", which does not exist`);
    if (!allowedRole(c, name)) throw new InvalidInput(`default_directory_policy role "${name}" must be in allowed_roles`);
  }
  if (p === 'sign-verbatim' && !c.allowedRoles.includes('*') && !c.allowedRoles.includes('sign-verbatim'))
    throw new InvalidInput('default_directory_policy sign-verbatim needs "*" or "sign-verbatim" in allowed_roles');
  for (const r of c.allowedRoles) if (r !== '*') checkRoleName(r);
  await checkAllowedIssuers(pkiRepository(deps, part), c.allowedIssuers);
  if (!['not-required', 'new-account-required', 'always-required'].includes(c.eabPolicy))
    throw new InvalidInput(`invalid eab_policy "${c.eabPolicy}": use not-required, new-account-required or always-required`);
  if (c.dnsResolver && !resolverOk(c.dnsResolver))
    throw new InvalidInput(`invalid dns_resolver "${c.dnsResolver.slice(0, 80)}": use an IP address, optionally with :port`);
  if (c.maxTtl < 60) throw new InvalidInput('max_ttl must be at least 1m');
}

/** allowed_issuers: `*` alone, or references (`default`, ids, names) each naming an issuer of the mount now. */
async function checkAllowedIssuers(repo: PkiRepository, allowed: string[]): Promise<void> {
  if (!allowed.length)
    throw new InvalidInput('allowed_issuers must not be empty: use "*" to allow any issuer, or enabled=false to turn ACME off');
  if (allowed.length === 1 && allowed[0] === '*') return;
  for (const [i, ref] of allowed.entries()) {
    if (ref === '*') throw new InvalidInput(`allowed_issuers: "*" must be the only entry (it is entry ${i} of ${allowed.length})`);
    if (!(await repo.findIssuer(ref))) throw new InvalidInput(`allowed_issuers: no issuer of this mount is "${ref.slice(0, 64)}"`);
  }
}

function resolverOk(r: string): boolean {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|(\d{1,3}(?:\.\d{1,3}){3}))(?::(\d{1,5}))?$/.exec(r) ?? /^([0-9a-fA-F:]+)$/.exec(r);
  if (!m) return false;
  const port = m[3] === undefined ? 53 : Number(m[3]);
  return port > 0 && port < 65536;
}

/** The policy of the directory a request came through; unauthorized when config/acme does not allow it. */
export async function issuingPolicy(deps: Deps, part: Partition, c: AcmeConfig, role: string | undefined): Promise<IssuingPolicy> {
  let name: string;
  if (role !== undefined) name = role;
  else if (c.defaultDirectoryPolicy === 'forbid')
    throw new AcmeProblem('unauthorized', 'the default ACME directory is forbidden on this mount: use a role directory');
  else if (c.defaultDirectoryPolicy === 'sign-verbatim') {
    if (!allowedRole(c, 'sign-verbatim')) throw new AcmeProblem('unauthorized', 'sign-verbatim is not in allowed_roles');
    return { kind: 'verbatim' };
  } else name = c.defaultDirectoryPolicy.slice('role:'.length);
  if (!allowedRole(c, name)) throw new AcmeProblem('unauthorized', `role "${name}" is not allowed for ACME (config/acme allowed_roles)`);
  const found = validRoleName(name) ? await new PkiRepository(deps, part).cachedRole(name) : undefined;
  if (!found) throw new AcmeProblem('malformed', `role "${name.slice(0, 60)}" not found`, { status: 404 });
  if (found.noStore)
    throw new AcmeProblem('unauthorized', `role "${name}" has no_store set: ACME needs stored certificates (for download and revocation)`);
  return { kind: 'role', name, role: found };
}

/** Whether allowed_issuers lets `id` sign: `*` (a list holding it, as the previous release could store, too), or an entry naming it now. */
async function issuerAllowed(repo: PkiRepository, allowed: string[], id: string): Promise<boolean> {
  if (allowed.includes('*')) return true;
  for (const ref of allowed) if ((await repo.findIssuer(ref))?.id === id) return true;
  return false;
}

const issuerLabel = (i: IssuerRecord) => i.name || i.id;

/**
 * The issuer of the directory: the one its path names, else its role's issuer_ref (a role
 * directory, or the default directory's role:<name> policy), else the default; one able to issue
 * (a key in this mount, usage issuing-certificates) and allowed by config/acme allowed_issuers.
 */
async function directoryIssuer(
  deps: Deps,
  part: Partition,
  c: AcmeConfig,
  pathRef: string | undefined,
  policy: IssuingPolicy,
): Promise<IssuerRecord> {
  const ref = pathRef || (policy.kind === 'role' ? policy.role.issuerRef : undefined) || 'default';
  const repo = pkiRepository(deps, part);
  const issuer = await repo.findIssuer(ref);
  if (!issuer) {
    const detail = ref === 'default' ? 'this mount has no default issuer' : `issuer "${ref.slice(0, 64)}" not found`;
    throw new AcmeProblem('malformed', detail, { status: 404 });
  }
  if (!issuer.keyId || !issuer.usage.includes('issuing-certificates'))
    throw new AcmeProblem(
      'unauthorized',
      `issuer "${issuerLabel(issuer)}" cannot issue certificates (no key in this mount, or no issuing-certificates usage)`,
    );
  if (!(await issuerAllowed(repo, c.allowedIssuers, issuer.id)))
    throw new AcmeProblem('unauthorized', `issuer "${issuerLabel(issuer)}" is not allowed for ACME (config/acme allowed_issuers)`);
  return issuer;
}

/** The directory a request came through: the issuer and role its path names, if any. */
export type DirectoryPath = { issuerRef?: string | undefined; role?: string | undefined };

/** The directory's path below the mount, before `acme/`. */
export const directoryPrefix = (d: DirectoryPath): string =>
  `${d.issuerRef === undefined ? '' : `issuer/${d.issuerRef}/`}${d.role === undefined ? '' : `roles/${d.role}/`}`;

export async function openScope(
  deps: Deps,
  part: Partition,
  mount: { path: string; defaultLeaseTtl: number; maxLeaseTtl: number },
  dir: DirectoryPath,
  headers: Headers,
): Promise<AcmeScope> {
  const pki = new PkiRepository(deps, part);
  const config = await pki.cachedConfig('acme');
  if (!config.enabled) throw new AcmeProblem('unauthorized', 'ACME is disabled on this mount (config/acme enabled=false)', { status: 403 });
  const cluster = await pki.cachedConfig('cluster');
  const policy = await issuingPolicy(deps, part, config, dir.role);
  const issuer = await directoryIssuer(deps, part, config, dir.issuerRef, policy);
  return {
    deps,
    part,
    store: new AcmeStore(deps, part),
    config,
    directory: directoryPrefix(dir),
    mountUrl: mountUrlOf(cluster.path, headers, mount.path),
    policy,
    issuerId: issuer.id,
    mountLimits: { defaultLeaseTtl: mount.defaultLeaseTtl, maxLeaseTtl: mount.maxLeaseTtl },
  };
}
