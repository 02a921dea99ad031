/**
 * One request to the Vault-style API (sys, the auth methods, every engine) as it goes through
 * the pipeline: decode → authorize → validate → run → shape → render. Each step is a function
 * over this one record; each reads what the steps before it filled in.
 */
import type { Context } from 'hono';
import type { Deps } from '../../deps';
import type { Partition } from '../../store/store';
import type { PrimedPartition } from '../primed-partition';
import type { AccessOp, AccessRequest, OpName, Principal, WrapInfo } from '../../types';
import type { AuditTrail } from '../middleware/audit-trail';
import type { RequestScope } from '../middleware/request-scope';
import type { PathSpec, Result, RouteSet } from '../path';

export interface Call {
  readonly c: Context;
  readonly scope: RequestScope;
  readonly audit: AuditTrail;
  readonly set: RouteSet;
  readonly spec: PathSpec;
  readonly deps: Deps;
  /** The mount's partition as this request sees it: primed while it is let in (primed-partition.ts). */
  readonly part: Partition;
  readonly primed: PrimedPartition;
  /** The operation the method asks for (405 when the path has none). Set by decode. */
  op: OpName;
  /** The canonical path after /v1/ (names declared foldCase lower-cased), and relative to the mount. */
  full: string;
  rel: string;
  /** Path parameters, canonical. */
  params: Record<string, string>;
  /** The body of a write (parsed) or the query of a read, every key as sent. */
  input: Record<string, unknown>;
  /** On a write to a rawBody path: the bytes and their content type, unparsed. */
  raw?: { body: Uint8Array; contentType?: string };
  /** The fields coerced (decode), or why they could not be; thrown by validate, after authorize. */
  fields?: { data: Record<string, unknown>; ignored: string[] } | { error: unknown };
  token?: string;
  /** What the authorizer was asked (authorize), kept for a write whose existence turns out otherwise (existence.ts). */
  access?: AccessRequest;
  /** A write's create or update, as the existence check decided it (and existence.ts may change it). */
  decided?: AccessOp;
  /** The caller, once authorized (absent on unauthenticated operations). */
  principal?: Principal;
  /** The fields the handler gets, and the warning about parameters no field takes (validate). */
  data: Record<string, unknown>;
  ignoredWarning?: string;
}

/** The answer before it is rendered: what the audit log records is taken from this. */
export type Answer =
  | { kind: 'envelope'; status: number; result: Result; warnings: string[]; wrapInfo?: WrapInfo; topLevel: boolean }
  | { kind: 'raw'; status: number; result: Result; body: string | Uint8Array; contentType: string }
  | { kind: 'empty'; status: number; result: Result };
