/**
 * A local fake of the AWS Lambda Invoke API (REST-JSON: POST /2015-03-31/functions/{name}/invocations,
 * RequestResponse), verifying SigV4 and dispatching to in-process handlers. A handler that throws
 * answers 200 with `X-Amz-Function-Error: Unhandled`, as Lambda does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sigV4RequestOf, verifySigV4 } from './sigv4';

export type FakeFunction = (event: unknown) => Promise<unknown>;

export interface LambdaFake {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  calls: { functionName: string; event: unknown; error?: string }[];
  close(): Promise<void>;
}

const PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

export async function startLambdaFake(functions: Record<string, FakeFunction>, region = 'us-east-1'): Promise<LambdaFake> {
  const credentials = { accessKeyId: 'AKIDLAMBDA', secretAccessKey: 'lambda-secret' };
  const calls: LambdaFake['calls'] = [];

  const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  async function serve(req: IncomingMessage, res: ServerResponse, body: Buffer) {
    const auth = verifySigV4(sigV4RequestOf(req, body), {
      service: 'lambda',
      region,
      secretFor: (id) => (id === credentials.accessKeyId ? credentials.secretAccessKey : undefined),
    });
    if (!auth.ok) return reply(res, auth.status, { message: auth.message }, { 'x-amzn-errortype': auth.code });
    const m = PATH.exec((req.url ?? '').split('?')[0] ?? '');
    if (req.method !== 'POST' || !m)
      return reply(res, 404, { message: 'unknown operation' }, { 'x-amzn-errortype': 'UnknownOperationException' });
    const name = decodeURIComponent(m[1]!);
    const fn = functions[name];
    if (!fn)
      return reply(res, 404, { Type: 'User', message: `Function not found: ${name}` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
    const event: unknown = body.length ? JSON.parse(body.toString('utf8')) : null;
    try {
      const out = await fn(event);
      calls.push({ functionName: name, event });
      return reply(res, 200, out ?? null, { 'x-amz-executed-version': '$LATEST' });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      calls.push({ functionName: name, event, error: message });
      return reply(res, 200, { errorType: 'Error', errorMessage: message }, { 'x-amz-function-error': 'Unhandled' });
    }
  }

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      serve(req, res, Buffer.concat(parts)).catch((e: unknown) => reply(res, 500, { message: String(e) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    credentials,
    calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
