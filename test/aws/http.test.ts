/** A timed-out exchange is a network error (retried by the AWS clients), recognised by its class. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Endpoint, isNetworkError, RequestTimeout } from '../../lib/aws/http';

let server: Server;
let url = '';
beforeAll(async () => {
  server = createServer(() => {
    // never answers
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('Endpoint timeout', () => {
  it('rejects with RequestTimeout, which isNetworkError recognises', async () => {
    const err = await new Endpoint(url).send('POST', '/', {}, '{}', 50).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeout);
    expect((err as Error).message).toBe('request timed out');
    expect(isNetworkError(err)).toBe(true);
  });

  it('does not take another error with the same message for a network error', () => {
    expect(isNetworkError(new Error('request timed out'))).toBe(false);
    expect(isNetworkError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isNetworkError(new Error('boom'))).toBe(false);
  });
});
