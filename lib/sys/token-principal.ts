/** What a live token record tells the rest of a request: the caller, and where it may call from. */
import { Forbidden } from '../domain-errors';
import { ipInBlocks } from '../net/cidr';
import type { Principal } from '../types';
import type { TokenRecord } from './tokens';

export function principalOf(record: TokenRecord): Principal {
  const p: Principal = { accessor: record.accessor, policies: record.policies, displayName: record.display_name, metadata: record.meta };
  const bound = boundCidrsOf(record);
  if (bound.length) p.boundCidrs = bound;
  if (typeof record.alias_name === 'string' && typeof record.alias_mount_accessor === 'string') {
    p.identity = {
      mountAccessor: record.alias_mount_accessor,
      mountType: typeof record.alias_mount_type === 'string' ? record.alias_mount_type : '',
      name: record.alias_name,
      metadata: isStringMap(record.alias_metadata) ? record.alias_metadata : {},
    };
  }
  return p;
}

/** The CIDR blocks a token is bound to (none: usable from anywhere). */
export function boundCidrsOf(record: TokenRecord): string[] {
  const blocks = record.bound_cidrs;
  return Array.isArray(blocks) ? blocks.filter((b): b is string => typeof b === 'string') : [];
}

/** A token bound to CIDR blocks is refused from any other address (and when the address is unknown). */
export function checkBoundCidrs(record: TokenRecord, remoteAddress: string | undefined): void {
  const blocks = boundCidrsOf(record);
  if (blocks.length === 0) return;
  if (!remoteAddress || !ipInBlocks(unmapped(remoteAddress), blocks))
    throw new Forbidden('permission denied: the token cannot be used from this address');
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is 10.0.0.1. */
export function unmapped(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

function isStringMap(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

/**
 * The caller's token record as it authorised this request (its uses counted), without reading
 * it again; read afresh only where the request's principal does not carry it. Undefined when
 * the token is no longer live (its last use authorised this very request).
 */
export async function authorizedRecord(req: {
  principal?: Principal | undefined;
  token?: string | undefined;
  deps: { tokens: { lookup(token: string): Promise<{ record: TokenRecord } | undefined> } };
}): Promise<TokenRecord | undefined> {
  const held = req.principal?.record as TokenRecord | undefined;
  if (held && typeof held.accessor === 'string' && held.accessor === req.principal?.accessor) return held;
  return (await req.deps.tokens.lookup(req.token ?? ''))?.record;
}
