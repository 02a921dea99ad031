/**
 * A lean client for AWS JSON-protocol services (DynamoDB, KMS): sign, POST, parse, map errors,
 * retry throttling and 5xx with jittered back-off. It exists for cold start: the official
 * SDK clients take far longer to import (figures in BENCHMARKS.md).
 */
import { Endpoint, isNetworkError } from './http';
import { signJsonPost, type Credentials } from './sigv4';

export class AwsError extends Error {
  /** The service's error code from the wire (`__type`), e.g. ConditionalCheckFailedException. */
  readonly code: string;
  /**
   * DynamoDB's TransactionCanceledException: each item's reason code ('None',
   * 'ConditionalCheckFailed', 'TransactionConflict', ...) in request order. Codes only: a
   * reason's Item (values) is never kept.
   */
  cancellationCodes?: string[];

  constructor(
    name: string,
    message: string,
    readonly status: number,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = name;
    this.code = name;
  }
}

export interface JsonClientOptions {
  service: string;
  region: string;
  endpoint: string;
  /** "DynamoDB_20120810" or "TrentService" */
  targetPrefix: string;
  /** "1.0" (DynamoDB) or "1.1" (KMS) */
  jsonVersion: '1.0' | '1.1';
  credentials: () => Credentials;
  maxAttempts?: number;
  timeoutMs?: number;
}

const RETRYABLE = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'LimitExceededException',
  'TransactionInProgressException',
  // A single-item write to an item that a DynamoDB transaction is writing at that moment.
  'TransactionConflictException',
]);

export function envCredentials(env: NodeJS.ProcessEnv = process.env): Credentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('no AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)');
  return { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

export class AwsJsonClient {
  private readonly endpoint: Endpoint;

  constructor(private readonly o: JsonClientOptions) {
    this.endpoint = new Endpoint(o.endpoint);
  }

  async call<T = Record<string, unknown>>(operation: string, input: unknown): Promise<T> {
    const attempts = this.o.maxAttempts ?? 4;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.once(operation, JSON.stringify(input))) as T;
      } catch (e) {
        const retry = e instanceof AwsError ? e.retryable : isNetworkError(e);
        if (!retry || attempt >= attempts) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(2000, 50 * 2 ** attempt)));
      }
    }
  }

  private async once(operation: string, body: string): Promise<unknown> {
    const headers = signJsonPost({
      host: this.endpoint.url.host,
      service: this.o.service,
      region: this.o.region,
      target: `${this.o.targetPrefix}.${operation}`,
      contentType: `application/x-amz-json-${this.o.jsonVersion}`,
      body,
      credentials: this.o.credentials(),
    });
    const reply = await this.endpoint.send('POST', '/', headers, body, this.o.timeoutMs);
    let json: Record<string, unknown> = {};
    try {
      json = reply.text ? (JSON.parse(reply.text) as Record<string, unknown>) : {};
    } catch {
      // an empty or non-JSON body: the status decides
    }
    if (reply.status >= 200 && reply.status < 300) return json;
    throw toError(reply.status, json, reply.headers['x-amzn-errortype']);
  }
}

export function toError(status: number, body: Record<string, unknown>, headerType: string | string[] | undefined): AwsError {
  const rawType = String(body.__type ?? (Array.isArray(headerType) ? headerType[0] : headerType) ?? `Http${status}`);
  const name = rawType.split('#').pop()!.split(':')[0]!;
  const message = String(body.message ?? body.Message ?? name);
  const error = new AwsError(name, message, status, status >= 500 || RETRYABLE.has(name));
  const reasons = body.CancellationReasons;
  if (Array.isArray(reasons)) error.cancellationCodes = reasons.map((r) => String((r as { Code?: unknown } | null)?.Code ?? 'None'));
  return error;
}
