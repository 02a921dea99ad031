/**
 * Domain errors: what went wrong, with no HTTP status. Storage and domain code throw these and
 * callers match them with `instanceof`; the edge maps them to statuses in one table
 * (`httpErrorOf` in `errors.ts`). The message is client-safe; `cause` is for the log only.
 * This module imports nothing.
 */
export abstract class DomainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The thing named is not there. An empty message answers the reference's bare miss. */
export class NotFoundError extends DomainError {
  constructor(message = '', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A conditional write lost a race: the stored version was not the one read. */
export class ConflictError extends DomainError {
  constructor(message = 'the resource was changed concurrently; retry the request', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A conditional create found the item already there. */
export class ExistsError extends DomainError {
  constructor(message = 'the resource already exists', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The input cannot be used (a key too long, a cursor that is not one, a value too large). */
export class InvalidInput extends DomainError {}

/** The caller may not do this. */
export class Forbidden extends DomainError {
  constructor(message = 'permission denied', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A service this one depends on (a cloud API, KMS, an engine's revoker) failed; the request may be retried. */
export class UpstreamError extends DomainError {}

/** A service this one depends on is throttling it; retry later. */
export class Throttled extends DomainError {}

/**
 * This service cannot do what it must to serve the request (the audit log cannot record it);
 * the message says so, client-safe, and the cause goes to the log.
 */
export class ServiceFault extends DomainError {}
