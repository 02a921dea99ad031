/**
 * Dynamic keys: a fresh RSA key pair whose public half is installed on the target host by the
 * role's install script, run over SSH as admin_user. The lease is written first (write-ahead):
 * its revocation uninstalls the key; a failed install abandons it so no lease is left behind.
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { Json } from '../store/store';
import { Forbidden, InvalidInput } from '../domain-errors';
import type { SecretLeases } from '../sys/secret-leases';
import { runScript, RemoteError, type RemoteHost } from './remote';
import type { Role } from './role';
import { publicLine } from './ssh-key';
import type { SshStore } from './ssh-store';

const generate = promisify(generateKeyPair);

export interface DynamicRevoke {
  [k: string]: Json;
  kind: 'dynamic';
  phase: 'installing' | 'installed' | 'abandoned';
  partition_mount: string;
  host: string;
  port: number;
  admin_user: string;
  key_name: string;
  username: string;
  key_line: string;
  install_script: string;
}

export interface IssueDynamic {
  /** The mount, whose registered keys the revoker reads. */
  mount: string;
  role: Role;
  ip: string;
  username: string;
  ttl: number;
  maxTtl: number;
}

async function adminHost(store: SshStore, r: Pick<DynamicRevoke, 'host' | 'port' | 'admin_user' | 'key_name'>): Promise<RemoteHost> {
  const adminKey = await store.getKey(r.key_name);
  if (adminKey === undefined) throw new InvalidInput(`key "${r.key_name}" is not registered`);
  return { host: r.host, port: r.port, adminUser: r.admin_user, adminKey };
}

export async function issueDynamic(store: SshStore, secrets: SecretLeases, o: IssueDynamic) {
  const { privateKey } = await generate('rsa', { modulusLength: o.role.keyBits });
  const keyLine = `${o.role.keyOptionSpecs ? `${o.role.keyOptionSpecs} ` : ''}${publicLine(privateKey).trim()}`;
  const revoke: DynamicRevoke = {
    kind: 'dynamic',
    phase: 'installing',
    partition_mount: o.mount,
    host: o.ip,
    port: o.role.port,
    admin_user: o.role.adminUser,
    key_name: o.role.key,
    username: o.username,
    key_line: keyLine,
    install_script: o.role.installScript,
  };
  const host = await adminHost(store, revoke);
  const lease = await secrets.grant({ revoke, ttl: o.ttl, maxTtl: o.maxTtl });
  try {
    await runScript(host, { op: 'install', keyLine, username: o.username, script: o.role.installScript });
  } catch (e) {
    await abandon(host, revoke, secrets, lease.lease_id, e);
    throw e;
  }
  try {
    await secrets.update(lease.lease_id, { ...revoke, phase: 'installed' });
  } catch (e) {
    if (await secrets.exists(lease.lease_id)) throw e;
    await undoOrphanedInstall(host, revoke, secrets);
    throw new Forbidden('permission denied: the token was revoked');
  }
  return { privateKey: privateKey.export({ format: 'pem', type: 'pkcs1' }).toString(), lease };
}

/**
 * The lease went while the script ran (its token was revoked: the uninstall ran before the
 * install). Uninstall now; if that fails, a fresh lease due at once, owned by no token (the
 * caller's is gone), makes the sweeper retry it, so the key is never left on the host with
 * nothing to remove it.
 */
async function undoOrphanedInstall(host: RemoteHost, r: DynamicRevoke, secrets: SecretLeases): Promise<void> {
  try {
    await runScript(host, { op: 'uninstall', keyLine: r.key_line, username: r.username, script: r.install_script });
  } catch {
    const installed: DynamicRevoke = { ...r, phase: 'installed' };
    await secrets.grantUnowned({ revoke: installed, ttl: 1 });
  }
}

/** After a failed install: undo what the script may have done, then drop the lease. */
async function abandon(host: RemoteHost, r: DynamicRevoke, secrets: SecretLeases, leaseId: string, cause: unknown): Promise<void> {
  if (cause instanceof RemoteError && cause.stage === 'script') {
    await runScript(host, { op: 'uninstall', keyLine: r.key_line, username: r.username, script: r.install_script }).catch(() => undefined);
  }
  await secrets.update(leaseId, { ...r, phase: 'abandoned' });
  await secrets.revoke(leaseId);
}

/** The revocation of a dynamic lease: uninstall (idempotent: removing an absent line succeeds). */
export async function revokeDynamic(store: SshStore, r: DynamicRevoke): Promise<void> {
  if (r.phase === 'abandoned') return;
  const host = await adminHost(store, r);
  await runScript(host, { op: 'uninstall', keyLine: r.key_line, username: r.username, script: r.install_script });
}
