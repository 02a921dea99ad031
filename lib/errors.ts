/**
 * The few error classes of Latchkey. Each has an HTTP status and a client-safe message;
 * the optional `cause` is for the log only and never reaches a client.
 */
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

/** A conditional write lost a race (raised by the store, mapped by callers or to 400). */
export class ConflictError extends HttpError {
  constructor(message = 'the resource was changed concurrently; retry the request') {
    super(400, [message]);
  }
}

/** A conditional create found the item already there. */
export class ExistsError extends HttpError {
  constructor(message = 'the resource already exists') {
    super(400, [message]);
  }
}

export function isHttpError(e: unknown): e is HttpError {
  return e instanceof HttpError;
}
