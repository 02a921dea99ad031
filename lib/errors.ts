/**
 * The HTTP errors of Latchkey, for the edge. Each has an HTTP status and a client-safe message;
 * the optional `cause` is for the log only and never reaches a client. Domain and storage code
 * throw the status-free errors of `domain-errors.ts`; `httpErrorOf` maps them here, once.
 */
import {
  ConflictError,
  DomainError,
  ExistsError,
  Forbidden,
  InvalidInput,
  NotFoundError,
  ServiceFault,
  Throttled,
  UpstreamError,
} from './domain-errors';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly messages: string[],
    options?: { cause?: unknown },
  ) {
    super(messages.join('; '), options);
    this.name = new.target.name;
  }
}

export class BadRequest extends HttpError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(400, [message], options);
  }
}

export class PermissionDenied extends HttpError {
  constructor(message = 'permission denied') {
    super(403, [message]);
  }
}

/** 404. With no message the body is `{"errors":[]}`, as the reference server answers a miss. */
export class NotFound extends HttpError {
  constructor(message?: string) {
    super(404, message ? [message] : []);
  }
}

export class MethodNotAllowed extends HttpError {
  constructor(method: string) {
    super(405, [`unsupported operation: ${method}`]);
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(limit: number) {
    super(413, [`request body too large: limit is ${limit} bytes`]);
  }
}

/** A real fault. The message is generic; the cause is logged. */
export class InternalError extends HttpError {
  constructor(cause?: unknown) {
    super(500, ['internal error'], { cause });
  }
}

export function isHttpError(e: unknown): e is HttpError {
  return e instanceof HttpError;
}

/** The one table from domain error to HTTP status (the reference answers a lost race or a duplicate with 400). */
const STATUS_OF: ReadonlyArray<readonly [abstract new (...args: never[]) => DomainError, number]> = [
  [NotFoundError, 404],
  [ConflictError, 400],
  [ExistsError, 400],
  [InvalidInput, 400],
  [Forbidden, 403],
  [Throttled, 429],
  [ServiceFault, 500],
  [UpstreamError, 502],
];

/** What the edge answers for any thrown value: an HttpError as is, a domain error by the table, anything else 500. */
export function httpErrorOf(e: unknown): HttpError {
  if (e instanceof HttpError) return e;
  if (e instanceof DomainError) {
    const status = STATUS_OF.find(([type]) => e instanceof type)?.[1];
    // The log shows what went wrong underneath (a device's failure, a cloud's answer) where the domain error says.
    if (status !== undefined) return new HttpError(status, e.message ? [e.message] : [], { cause: e.cause ?? e });
  }
  return new InternalError(e);
}
