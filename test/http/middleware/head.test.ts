/**
 * HEAD (lib/http/middleware/head.ts): a HEAD answers as its GET would, status and headers, with
 * no body but the GET's content-length, so a keep-alive client knows the answer is complete.
 * A tiny app with the middleware and GET routes of each kind (text, JSON, bytes, a declared
 * length, an error, nothing); the route sees the HEAD as a HEAD.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { headOf, headWithoutBody } from '../../../lib/http/middleware/head';

const json = JSON.stringify({ data: { name: 'héllo' } });
const bytes = new Uint8Array([0x30, 0x82, 0x01, 0x0a, 0x00, 0xff]);
const methods: string[] = [];

const app = new Hono();
app.use(headWithoutBody());
app.get('/text', (c) => c.text('five!', 200, { 'x-extra': 'kept' }));
app.get('/json', (c) => c.body(json, 200, { 'content-type': 'application/json' }));
app.get('/bytes', (c) => c.body(bytes, 200, { 'content-type': 'application/pkix-cert' }));
app.get('/declared', () => new Response('abc', { headers: { 'content-length': '3', 'content-type': 'text/plain' } }));
app.get('/refused', (c) => c.json({ errors: ['permission denied'] }, 403));
app.get('/empty', (c) => c.body(null, 204));
app.get('/who', (c) => {
  methods.push(c.req.method);
  return c.text('seen');
});

const ask = (path: string, method = 'GET') => app.request(`http://localhost${path}`, { method });

describe('headWithoutBody', () => {
  it("answers the GET's status and headers with no body", async () => {
    const get = await ask('/text');
    const head = await ask('/text', 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('x-extra')).toBe('kept');
  });

  it("carries the GET body's length in bytes (not characters)", async () => {
    const head = await ask('/json', 'HEAD');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(json)));
    expect(Buffer.byteLength(json)).toBeGreaterThan(json.length);
    expect((await ask('/bytes', 'HEAD')).headers.get('content-length')).toBe(String(bytes.byteLength));
  });

  it('keeps a length the answer declared itself', async () => {
    const head = await ask('/declared', 'HEAD');
    expect(head.headers.get('content-length')).toBe('3');
    expect(await head.text()).toBe('');
  });

  it('drops the body of an error answer too, keeping its status', async () => {
    const head = await ask('/refused', 'HEAD');
    expect(head.status).toBe(403);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength('{"errors":["permission denied"]}')));
  });

  it('leaves a GET as it is', async () => {
    const get = await ask('/text');
    expect(await get.text()).toBe('five!');
    expect(get.headers.get('x-extra')).toBe('kept');
  });

  it('lets the route see the HEAD as a HEAD (routed as its GET)', async () => {
    methods.length = 0;
    await ask('/who', 'HEAD');
    await ask('/who');
    expect(methods).toEqual(['HEAD', 'GET']);
  });

  // RFC 9110 §8.6: no Content-Length on a 204. The GET sends none; its HEAD sends "0".
  it('adds no content-length to a 204, as its GET has none', async () => {
    const get = await ask('/empty');
    const head = await ask('/empty', 'HEAD');
    expect(head.status).toBe(204);
    expect(get.headers.has('content-length')).toBe(false);
    expect(head.headers.has('content-length')).toBe(false);
  });
});

describe('headOf', () => {
  it('keeps status, status text and headers, and measures the body it drops', async () => {
    const res = new Response('twelve bytes', { status: 202, statusText: 'Accepted', headers: { 'x-a': '1' } });
    const head = await headOf(res);
    expect(head.status).toBe(202);
    expect(head.statusText).toBe('Accepted');
    expect(head.headers.get('x-a')).toBe('1');
    expect(head.headers.get('content-length')).toBe('12');
    expect(head.body).toBeNull();
  });
});
