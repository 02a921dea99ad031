/**
 * A failure reported by (or on the way to) a cloud API, classified into a domain error the edge
 * answers with a clear status: the cloud's own words are kept only after secrets were scrubbed
 * from them.
 */
import { InvalidInput, Throttled, UpstreamError } from '../domain-errors';

export type CloudErrorKind = 'throttled' | 'unauthorized' | 'forbidden' | 'not-found' | 'conflict' | 'invalid' | 'unreachable' | 'server';

export class CloudError extends Error {
  constructor(
    readonly kind: CloudErrorKind,
    readonly status: number,
    message: string,
    readonly code = '',
  ) {
    super(message);
    this.name = 'CloudError';
  }
}

export function kindOfStatus(status: number): CloudErrorKind {
  if (status === 429) return 'throttled';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  if (status === 409) return 'conflict';
  if (status >= 500) return 'server';
  return 'invalid';
}

/** Removes every known secret (and anything that looks like a bearer token) from `text`. */
export function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text.slice(0, 400);
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out.replace(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[redacted]');
}

/**
 * The domain error for a failed cloud call during `action`: Throttled when throttled (retry
 * later), InvalidInput otherwise (the configuration, the role or the cloud's state needs
 * attention), and UpstreamError only when the cloud itself failed. The cause is kept for the
 * log. Anything that is not a CloudError is returned as it is.
 */
export function toDomainError(e: unknown, action: string): unknown {
  if (!(e instanceof CloudError)) return e;
  const what = `${action}: ${e.message}`;
  switch (e.kind) {
    case 'throttled':
      return new Throttled(`${what} (the cloud is throttling requests; retry later)`, { cause: e });
    case 'unauthorized':
      return new InvalidInput(`${what} (the cloud rejected the engine's credentials; check the configuration)`, { cause: e });
    case 'forbidden':
      return new InvalidInput(`${what} (the engine's identity lacks a permission)`, { cause: e });
    case 'server':
      return new UpstreamError(`${what} (the cloud failed; retry later)`, { cause: e });
    default:
      return new InvalidInput(what, { cause: e });
  }
}
