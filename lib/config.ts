/**
 * Service configuration: the mounts (deployed as code, shared with serverless.yml through
 * infra/mounts.json; engine types and reserved prefixes from infra/surfaces.json) and the environment. Read once per process.
 */
import mountsFile from '../infra/mounts.json';
import surfaces from '../infra/surfaces.json';
import { parseDuration } from './duration';
import type { EngineType } from './types';

export type { EngineType } from './types';
/** The engine types a mount may have (infra/surfaces.json, which routing and infra/ read too). */
export const ENGINE_TYPES: readonly string[] = surfaces.engine_types;

/** The reference server's system defaults: 768h for both. */
export const SYSTEM_DEFAULT_LEASE_TTL = 768 * 3600;
export const SYSTEM_MAX_LEASE_TTL = 768 * 3600;
/** Body limit for engine and sys requests. */
export const BODY_LIMIT = 1024 * 1024;

export interface Mount {
  path: string;
  type: EngineType;
  description: string;
  defaultLeaseTtl: number;
  maxLeaseTtl: number;
  auditClearRequestKeys?: readonly string[];
  auditClearResponseKeys?: readonly string[];
  /** The mount's options, as sys/mounts shows them (KV: `{version: "1" | "2"}`); absent for engines that take none. */
  options?: Readonly<Record<string, string>>;
}

export interface CatalogSettings {
  aclEnabled: boolean;
  defaultPolicy: 'allow' | 'deny';
  defaultToken?: string;
  translateWanAddrs: boolean;
}

interface MountEntry {
  path: string;
  type: string;
  description?: string;
  default_lease_ttl?: string | number;
  max_lease_ttl?: string | number;
  audit_non_hmac_request_keys?: string[];
  audit_non_hmac_response_keys?: string[];
  options?: unknown;
}

const MOUNT_KEYS = [
  'path',
  'type',
  'description',
  'default_lease_ttl',
  'max_lease_ttl',
  'audit_non_hmac_request_keys',
  'audit_non_hmac_response_keys',
  'options',
];

/** The options each engine type takes, and their allowed values (KV's version, default "2", as Vault's `kv` mount). */
const MOUNT_OPTIONS: Record<string, { key: string; values: readonly string[]; default: string }[]> = {
  kv: [{ key: 'version', values: ['1', '2'], default: '2' }],
};

/** A mount's options, checked: an unknown option or value is refused, never stored and ignored. */
function mountOptions(mount: string, type: string, given: unknown): Record<string, string> | undefined {
  const known = MOUNT_OPTIONS[type];
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given)))
    throw new Error(`mount ${mount}: options must be an object`);
  const entries = Object.entries((given ?? {}) as Record<string, unknown>);
  if (!known) {
    if (entries.length) throw new Error(`mount ${mount}: a ${type} mount takes no options`);
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, v] of entries) {
    const opt = known.find((o) => o.key === k);
    if (!opt) throw new Error(`mount ${mount}: unknown option ${k} (a ${type} mount takes ${known.map((o) => o.key).join(', ')})`);
    const value = typeof v === 'number' ? String(v) : v;
    if (typeof value !== 'string' || !opt.values.includes(value))
      throw new Error(`mount ${mount}: option ${k} must be one of ${opt.values.join(', ')}, not ${JSON.stringify(v)}`);
    out[k] = value;
  }
  for (const o of known) out[o.key] ??= o.default;
  return out;
}

/** A list of key names, or undefined; anything else is refused (a setting never silently ignored). */
function keyList(mount: string, name: string, v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new Error(`mount ${mount}: ${name} must be a list of key names`);
  return v as string[];
}

/** First path segments that belong to sys and the catalog, never to a mount. */
export const RESERVED: readonly string[] = [...surfaces.sys_prefixes, ...surfaces.catalog_prefixes];

export function parseMounts(entries: MountEntry[]): Mount[] {
  const seen = new Set<string>();
  return entries.map((e) => {
    if (!/^[A-Za-z0-9_-]+$/.test(e.path)) throw new Error(`mount path ${JSON.stringify(e.path)} is not a single name`);
    if (!ENGINE_TYPES.includes(e.type)) throw new Error(`mount ${e.path}: unknown type ${e.type}`);
    if (seen.has(e.path) || RESERVED.includes(e.path)) throw new Error(`mount path ${e.path} is taken`);
    seen.add(e.path);
    const unknown = Object.keys(e).filter((k) => !MOUNT_KEYS.includes(k));
    if (unknown.length) throw new Error(`mount ${e.path}: unknown settings ${unknown.join(', ')}`);
    const ttl = (v: string | number | undefined, d: number) => (v === undefined ? d : (parseDuration(v) ?? d));
    const clearRequest = keyList(e.path, 'audit_non_hmac_request_keys', e.audit_non_hmac_request_keys);
    const clearResponse = keyList(e.path, 'audit_non_hmac_response_keys', e.audit_non_hmac_response_keys);
    const options = mountOptions(e.path, e.type, e.options);
    return {
      path: e.path,
      type: e.type as EngineType,
      description: e.description ?? '',
      defaultLeaseTtl: ttl(e.default_lease_ttl, SYSTEM_DEFAULT_LEASE_TTL),
      maxLeaseTtl: ttl(e.max_lease_ttl, SYSTEM_MAX_LEASE_TTL),
      ...(clearRequest ? { auditClearRequestKeys: clearRequest } : {}),
      ...(clearResponse ? { auditClearResponseKeys: clearResponse } : {}),
      ...(options ? { options } : {}),
    };
  });
}

export const MOUNTS: Mount[] = parseMounts(mountsFile.mounts);

export function mountsOfType(type: EngineType, mounts: Mount[] = MOUNTS): Mount[] {
  return mounts.filter((m) => m.type === type);
}

export interface Environment {
  tableName: string;
  region: string;
  dynamoEndpoint?: string;
  kmsKeyId?: string;
  kmsEndpoint?: string;
  localKeyFile?: string;
  logLevel: 'silent' | 'info' | 'debug';
  functionName: string;
  /** Audit devices (AUDIT_DEVICES): `stdout`, `file:<path>`, comma-separated; `none` for none. Default `stdout`. */
  audit: AuditSettings;
  /** METRICS=off: no metric is recorded (sys/metrics answers empty, no EMF on Lambda); default on. */
  metrics: boolean;
  /** The ports ACME validation connects to (ACME_HTTP_PORT, default 80; ACME_TLS_PORT, default 443), as Pebble's. */
  acme?: { httpPort: number; tlsPort: number };
}

export type AuditDeviceSetting = { type: 'stdout' } | { type: 'file'; path: string };

export interface AuditSettings {
  devices: AuditDeviceSetting[];
  /** AUDIT_LOG_RAW=true: values in clear (the reference's log_raw); off by default. */
  logRaw: boolean;
}

export function parseAuditDevices(spec: string): AuditDeviceSetting[] {
  const out: AuditDeviceSetting[] = [];
  for (const item of spec
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (item === 'none') continue;
    if (item === 'stdout') out.push({ type: 'stdout' });
    else if (item.startsWith('file:') && item.length > 5) out.push({ type: 'file', path: item.slice(5) });
    else throw new Error(`AUDIT_DEVICES: unknown device ${JSON.stringify(item)} (expected stdout, file:<path> or none)`);
  }
  return out;
}

function portSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number (1-65535), not ${JSON.stringify(v)}`);
  return n;
}

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (v === 'on' || v === 'off') return v === 'on';
  throw new Error(`${name} must be on or off, not ${JSON.stringify(v.slice(0, 40))}`);
}

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const level = env.LOG_LEVEL === 'silent' || env.LOG_LEVEL === 'debug' ? env.LOG_LEVEL : 'info';
  return {
    tableName: env.TABLE_NAME ?? 'latchkey',
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(env.DYNAMODB_ENDPOINT ? { dynamoEndpoint: env.DYNAMODB_ENDPOINT } : {}),
    ...(env.KMS_KEY_ID ? { kmsKeyId: env.KMS_KEY_ID } : {}),
    ...(env.KMS_ENDPOINT ? { kmsEndpoint: env.KMS_ENDPOINT } : {}),
    ...(env.LOCAL_KEY_FILE ? { localKeyFile: env.LOCAL_KEY_FILE } : {}),
    logLevel: level,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME ?? 'local',
    audit: { devices: parseAuditDevices(env.AUDIT_DEVICES ?? 'stdout'), logRaw: env.AUDIT_LOG_RAW === 'true' },
    metrics: onOff(env, 'METRICS', true),
    acme: { httpPort: portSetting(env, 'ACME_HTTP_PORT', 80), tlsPort: portSetting(env, 'ACME_TLS_PORT', 443) },
  };
}
