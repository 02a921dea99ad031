/** An error answered on the wire as `{"__type": type, "message": ...}` with an HTTP status. */
export class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = defaultStatus(type),
  ) {
    super(message);
    this.name = type;
  }
}

/** Server-side faults are 5xx on the real service; the SDK retries them as transient. */
export function defaultStatus(type: string): number {
  if (type === 'KMSInternalException' || type === 'InternalFailure') return 500;
  if (type === 'DependencyTimeoutException' || type === 'ServiceUnavailableException') return 503;
  return 400;
}

export const validation = (message: string) => new KmsError('ValidationException', message);
