/**
 * Step 2: who calls, and may they. A write is `create` or `update` by the path's existence
 * check (as policies and the audit record name it); the authorizer checks the token, its
 * address, the ACL on the canonical path and the parameter constraints on the coerced values
 * (access-params.ts). Unauthenticated operations skip it.
 */
import { accessParams } from '../access-params';
import type { AccessOp } from '../auth';
import { engineToken } from '../auth';
import type { ExistsReq, OpName, PathSpec } from '../path';
import type { Call } from './call';

/** Policies see a LIST on the path with a trailing slash, every other operation without one. */
export function accessPath(full: string, op: OpName): string {
  const bare = full.replace(/\/+$/, '');
  return op === 'list' ? `${bare}/` : bare;
}

/** A write is `create` or `update` by the path's existence check; `update` where it has none. */
export async function accessOp(op: OpName, spec: PathSpec, at: ExistsReq): Promise<AccessOp> {
  if (op !== 'write') return op;
  if (!spec.exists) return 'update';
  return (await spec.exists(at)) ? 'update' : 'create';
}

export async function authorize(call: Call): Promise<void> {
  const { spec, op, deps, scope, audit } = call;
  const token = engineToken(call.c.req.raw.headers);
  if (token) {
    call.token = token;
    audit.request.clientToken = token;
  }
  if (spec.unauthenticated?.includes(op)) return;
  // While the token is checked: the existence check, and the items the handler will read.
  const as = accessOp(op, spec, { params: call.params, mount: call.set.mount, part: call.part, deps });
  const ahead = readAhead(call, { params: call.params, mount: call.set.mount, part: call.part, deps });
  // Each is awaited below; a failure the token check overtakes must not go unhandled meanwhile.
  as.catch(() => undefined);
  ahead.catch(() => undefined);
  const coerced = call.fields && 'data' in call.fields ? call.fields.data : undefined;
  call.access = {
    token,
    path: accessPath(call.full, op),
    op: as,
    sudo: spec.sudo?.includes(op) ?? false,
    params: accessParams(spec.fields, call.input, coerced, spec.derivedParams),
    ...(op === 'read' && spec.readLists ? { listing: accessPath(call.full, 'list') } : {}),
    ...(scope.remoteAddress ? { remoteAddress: scope.remoteAddress } : {}),
  };
  try {
    call.principal = await deps.authorizer.authorize(call.access);
  } finally {
    // The audit record names create or update, refused or not (when the existence check answered).
    const decided = await as.catch(() => undefined);
    if (decided) audit.request.operation = call.decided = decided;
  }
  audit.request.principal = call.principal;
  await ahead;
}

/** Reads the items the path declares the handler will read (PathSpec.readAhead) into the request's partition. */
async function readAhead(call: Call, at: ExistsReq): Promise<void> {
  const keys = call.spec.readAhead?.(call.params, call.op, at) ?? [];
  if (!keys.length) return;
  const partition = call.part.name;
  await call.primed.prime(keys, (ks) => call.deps.store.getMany(ks.map((key) => ({ partition, key }))));
}
