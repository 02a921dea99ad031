/**
 * A path is data: its pattern, fields, operations, help and who may call it. Routing, auth
 * and the OpenAPI document are all derived from these declarations.
 */
import type { Deps } from '../deps';
import type { Partition } from '../store/store';
import type { Fields, FieldValues } from './fields';
import type { MountRef, OpName, Principal } from '../types';

export type { MountRef, OpName } from '../types';

/** What every request carries besides its fields: helpers that need no fields take this. */
export interface ReqContext {
  op: OpName;
  mount: MountRef;
  /** The mount's own partition of the store (`partitionName(mount)`). */
  part: Partition;
  /** The path relative to the mount, as requested (decoded). */
  path: string;
  requestId: string;
  /** Absent only on unauthenticated operations. */
  principal?: Principal;
  /** The raw client token, for the few paths that act on the caller's own token. */
  token?: string;
  headers: Headers;
  /** A read asked by HEAD (its body is dropped at the edge): the few answers that differ (ACME's newNonce) look here. */
  head?: boolean;
  /** The caller's address (the socket's locally, API Gateway's sourceIp deployed), when known. */
  remoteAddress?: string;
  deps: Deps;
  /** The request body as sent, on a write to a path declared `rawBody` (empty otherwise). */
  body?: Uint8Array;
  /** The request's Content-Type, on a write to a `rawBody` path that sent one. */
  contentType?: string;
  /** The whole request input (body of a write, query of a read), declared or not, on a path declared `takesArbitraryInput`. */
  input?: Record<string, unknown>;
  /**
   * The leases of this request's secret, made under its mount and path and owned by its caller:
   * for a secret that must not exist without a lease (write-ahead). Otherwise return `secret`.
   */
  secrets: ReturnType<Deps['secrets']>;
  /**
   * On a write to a path with an existence check: whether the item was found (the request was
   * let in as `update`; otherwise `create`), and `confirm`, which the handler calls with what it
   * finds as it writes. When that differs (the item was created or deleted meanwhile, or the
   * check answered from a guess), the caller's policies are checked again for the other
   * operation (Forbidden when they do not allow it) and the audit record names it.
   */
  existence?: { found: boolean; confirm(exists: boolean): Promise<void> };
}

/** A secret the answer hands out: the edge makes its lease after the handler and renders lease_id, lease_duration, renewable. */
export type Secret = Parameters<ReturnType<Deps['secrets']>['grant']>[0];

export interface Req<F extends Fields = Fields> extends ReqContext {
  data: FieldValues<F>;
}

export interface LeaseInfo {
  id: string;
  duration: number;
  renewable: boolean;
}

export interface Result {
  data?: Record<string, unknown>;
  warnings?: string[];
  lease?: LeaseInfo;
  auth?: Record<string, unknown>;
  /** Overrides the status (e.g. 202). */
  status?: number;
  /** The secret the answer hands out, for the edge to lease (Vault's `Secret.Response`); an answer with `lease` has one already. */
  secret?: Secret;
  /**
   * A non-envelope response (PEM text, DER bytes, a reference-shaped JSON), of any content type;
   * without `contentType`, the one media type the path declares it `answers`.
   */
  raw?: { body: string | Uint8Array; contentType?: string; status?: number };
  /** The data also goes at the top level of the answer, as Vault answers some sys paths for clients that read the old shape. */
  topLevelData?: boolean;
  /**
   * Response headers, on every kind of answer (envelope, raw, empty, wrapped). The edge's own
   * `x-request-id` and the body's `content-type` take precedence over a header of the same name.
   */
  headers?: Record<string, string>;
}

export type Handler<F extends Fields> = (req: Req<F>) => Promise<Result | void>;

/** Values the handler will use that a request carries inside another parameter, and how each compares (its field). */
export interface DerivedParams {
  fields: Fields;
  values: (data: Record<string, unknown>) => Record<string, unknown>;
}

/** What an existence check sees: the path parameters as given, before any other input. */
export interface ExistsReq {
  params: Record<string, string>;
  mount: MountRef;
  part: Partition;
  deps: Deps;
}

export interface PathSpec<F extends Fields = Fields> {
  pattern: string;
  fields: F;
  operations: Partial<Record<OpName, Handler<F>>>;
  /** Operations served without a token. */
  unauthenticated?: readonly OpName[];
  /** Operations that need the sudo capability too. */
  sudo?: readonly OpName[];
  /**
   * Whether the item a write names exists: a write to an existing item needs `update`, a new
   * one `create`. Without it every write needs `update`, as the reference server decides.
   */
  exists?: (req: ExistsReq) => Promise<boolean>;
  /**
   * Items of the mount's partition the handler of `op` will read, by key: read together while
   * the token is checked, and handed to the handler's first read of each (primed-partition.ts).
   */
  readAhead?: (params: Record<string, string>, op: OpName, at: ExistsReq) => string[];
  /**
   * A write takes its body as sent: the handler gets the bytes and the content type in
   * `req.body` / `req.contentType`, with no JSON parsing and no body fields (the size limit holds).
   */
  rawBody?: boolean;
  /**
   * The read acts (issues credentials, rotates a CRL): HEAD is refused with 405 instead of
   * running it and dropping the answer nobody would see.
   */
  readActs?: boolean;
  /**
   * The read answers the folder's listing, as the list does (clients that GET a list): it needs
   * read on the path, and is refused where the listing (`<path>/`) is denied, so a deny on a
   * folder hides its names under every method.
   */
  readLists?: boolean;
  /** The media types a read answers raw (PEM, DER, …): the OpenAPI document's, and a raw result's when it names none. */
  answers?: readonly string[];
  /**
   * The handler takes the whole request input, declared or not (`req.input`; sys/wrapping/wrap):
   * no warning about unrecognised parameters.
   */
  takesArbitraryInput?: boolean;
  /**
   * The edge lets these `unauthenticated` operations through because the handler checks the token
   * itself (a wrapping token used once): the OpenAPI document lists them as authenticated.
   */
  handlerChecksToken?: boolean;
  /**
   * Values the handler will use that the request carries inside another parameter (the names of
   * a CSR), by field name: parameter constraints hold on them as on the fields sent.
   */
  derivedParams?: DerivedParams;
  help: string;
}

/** A mount (or a fixed prefix of sys) and the paths it serves. */
export interface RouteSet {
  /** The first segments of the path after /v1/: a mount path, or "sys", "auth/token". */
  prefix: string;
  mount: MountRef;
  paths: PathSpec[];
}

/** The partition a mount's records live in: `sys` for the system backend, else `<type>/<mount>`. */
export { partitionName } from '../mount-partition';

export function definePath<F extends Fields>(spec: PathSpec<F>): PathSpec {
  // The one erasure of a path's field types: its handlers take `Req<F>`, and a handler of a
  // narrower request is not assignable to one of any request (parameter variance). The edge
  // validates the input against the same `fields` before it calls the handler, so F holds.
  return spec as unknown as PathSpec;
}
