/** Lambda Invoke (RequestResponse) through the lean signer: how sys reaches engine functions. */
import { envCredentials, toError } from './json-client';
import { Endpoint } from './http';
import { signRequest, type Credentials } from './sigv4';

export class FunctionError extends Error {
  constructor(functionName: string, message: string) {
    super(`function ${functionName} failed: ${message}`);
    this.name = 'FunctionError';
  }
}

export class LambdaInvoker {
  private readonly endpoint: Endpoint;

  constructor(
    private readonly region: string,
    endpoint?: string,
    private readonly credentials: () => Credentials = () => envCredentials(),
  ) {
    this.endpoint = new Endpoint(endpoint ?? `https://lambda.${region}.amazonaws.com`);
  }

  async invoke<T>(functionName: string, payload: unknown): Promise<T> {
    const body = JSON.stringify(payload);
    const path = `/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`;
    const headers = signRequest({
      method: 'POST',
      host: this.endpoint.url.host,
      path,
      service: 'lambda',
      region: this.region,
      headers: { 'content-type': 'application/json', 'x-amz-invocation-type': 'RequestResponse' },
      body,
      credentials: this.credentials(),
    });
    const reply = await this.endpoint.send('POST', path, headers, body, 60_000);
    let json: unknown;
    try {
      json = reply.text ? JSON.parse(reply.text) : null;
    } catch {
      json = reply.text;
    }
    if (reply.status < 200 || reply.status >= 300)
      throw toError(reply.status, (json ?? {}) as Record<string, unknown>, reply.headers['x-amzn-errortype']);
    if (reply.headers['x-amz-function-error']) {
      const message = (json as { errorMessage?: unknown } | null)?.errorMessage;
      throw new FunctionError(functionName, typeof message === 'string' ? message.slice(0, 500) : 'unhandled error');
    }
    return json as T;
  }
}
