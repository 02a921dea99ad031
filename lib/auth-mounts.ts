/**
 * Auth method mounts, deployed as code (the `auth` section of infra/mounts.json), served by the
 * sys function under `auth/<path>` through the same front door as every engine. Each has the
 * reference server's mount accessor (`auth_<type>_<8 hex>`, stable for its path), which identity
 * templates name (`{{identity.entity.aliases.<accessor>.name}}`).
 */
import { createHash } from 'node:crypto';
import mountsFile from '../infra/mounts.json';
import { SYSTEM_DEFAULT_LEASE_TTL, SYSTEM_MAX_LEASE_TTL } from './config';
import type { MountRef } from './types';

export const AUTH_TYPES = ['approle', 'aws', 'jwt'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

export interface AuthMount extends MountRef {
  /** "auth/approle" */
  path: string;
  type: AuthType;
  accessor: string;
  description: string;
}

interface AuthEntry {
  path: string;
  type: string;
  description?: string;
}

const KEYS = ['path', 'type', 'description'];

export function parseAuthMounts(entries: AuthEntry[]): AuthMount[] {
  const seen = new Set<string>();
  return entries.map((e) => {
    const unknown = Object.keys(e).filter((k) => !KEYS.includes(k));
    if (unknown.length) throw new Error(`auth mount ${e.path}: unknown settings ${unknown.join(', ')}`);
    if (!/^[A-Za-z0-9_-]+$/.test(e.path) || e.path === 'token')
      throw new Error(`auth mount path ${JSON.stringify(e.path)} is not a single free name`);
    if (!(AUTH_TYPES as readonly string[]).includes(e.type)) throw new Error(`auth mount ${e.path}: unknown type ${e.type}`);
    if (seen.has(e.path)) throw new Error(`auth mount path ${e.path} is taken`);
    seen.add(e.path);
    const path = `auth/${e.path}`;
    return {
      path,
      type: e.type as AuthType,
      description: e.description ?? '',
      defaultLeaseTtl: SYSTEM_DEFAULT_LEASE_TTL,
      maxLeaseTtl: SYSTEM_MAX_LEASE_TTL,
      accessor: `auth_${e.type}_${createHash('sha256').update(path).digest('hex').slice(0, 8)}`,
    };
  });
}

export const AUTH_MOUNTS: AuthMount[] = parseAuthMounts((mountsFile as { auth?: AuthEntry[] }).auth ?? []);

/** The token method's own mount, as sys/auth lists it. */
export const TOKEN_AUTH_ACCESSOR = `auth_token_${createHash('sha256').update('auth/token').digest('hex').slice(0, 8)}`;
