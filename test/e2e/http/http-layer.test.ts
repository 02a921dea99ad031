import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;
beforeAll(async () => {
  svc = await createTestService();
});

describe('the HTTP layer', () => {
  it.each(['%0a', '%00', '%09', '%7f', '%c2%85'])('refuses a decoded path with %s before anything else', async (seq) => {
    const r = await call(svc.app, 'GET', `/v1/sys/po${seq}licy`);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ errors: ['the request path contains a non-printable character'] });
  });

  it('refuses malformed percent-encoding with 400', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/%E0%A4%A');
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/percent-encoding/);
  });

  it('answers minimised JSON, and indented JSON with ?pretty', async () => {
    const plain = await call(svc.app, 'GET', '/v1/sys/mounts', { token: svc.root });
    expect(plain.text).not.toContain('\n');
    const pretty = await call(svc.app, 'GET', '/v1/sys/mounts?pretty', { token: svc.root });
    expect(pretty.text).toContain('\n    "request_id"');
    expect(JSON.parse(pretty.text)).toMatchObject({
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      wrap_info: null,
      warnings: null,
      auth: null,
    });
  });

  it('pretty-prints errors too', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/nope?pretty', { token: svc.root });
    expect(r.status).toBe(404);
    expect(r.text).toContain('\n');
  });

  it('404 for unknown routes and paths, 405 for a method the path does not take', async () => {
    expect((await call(svc.app, 'GET', '/v1/nomount/x', { token: svc.root })).json).toEqual({
      errors: ['no handler for route "nomount/x": no mount serves it'],
    });
    expect((await call(svc.app, 'GET', '/v2/sys/health')).status).toBe(404);
    const unknown = await call(svc.app, 'GET', '/v1/sys/unknown/thing', { token: svc.root });
    expect(unknown.status).toBe(404);
    expect(unknown.json!.errors).toEqual(['unsupported path "sys/unknown/thing": the sys/ mount has no such path']);
    const wrong = await call(svc.app, 'DELETE', '/v1/sys/mounts', { token: svc.root });
    expect(wrong.status).toBe(405);
    expect(wrong.json).toEqual({ errors: ['unsupported operation: DELETE on "sys/mounts"; it takes GET'] });
    expect((await call(svc.app, 'PATCH', '/v1/sys/mounts', { token: svc.root })).status).toBe(405);
  });

  it('LIST and GET ?list=true are the same operation', async () => {
    await call(svc.app, 'PUT', '/v1/sys/policy/listed', { token: svc.root, body: { policy: '{"path":{}}' } });
    const a = await call(svc.app, 'LIST', '/v1/sys/policy', { token: svc.root });
    const b = await call(svc.app, 'GET', '/v1/sys/policy?list=true', { token: svc.root });
    const c = await call(svc.app, 'GET', '/v1/sys/policy?list=True', { token: svc.root });
    expect(c.json!.data.keys).toEqual(b.json!.data.keys);
    expect(a.status).toBe(200);
    expect(a.json!.data.keys).toEqual(b.json!.data.keys);
    expect(a.json!.data.keys).toContain('listed');
  });

  it('reads a form-encoded body', async () => {
    const r = await call(svc.app, 'POST', '/v1/auth/token/create', {
      token: svc.root,
      raw: 'policies=a,b&ttl=1h&num_uses=3',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    expect(r.json!.auth).toMatchObject({ policies: ['a', 'b', 'default'], lease_duration: 3600, num_uses: 3 });
  });

  it('reads JSON sent with a form content type, as curl --data does', async () => {
    const r = await call(svc.app, 'POST', '/v1/auth/token/create', {
      token: svc.root,
      raw: '{"policies":["x"],"ttl":"2h"}',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.json!.auth).toMatchObject({ policies: ['default', 'x'], lease_duration: 7200 });
  });

  it('warns about unknown parameters when the response has a body', async () => {
    const r = await call(svc.app, 'POST', '/v1/auth/token/create', { token: svc.root, body: { ttl: '1h', zeta: 1, alpha: 'x' } });
    expect(r.status).toBe(200);
    expect(r.json!.warnings).toEqual(['Endpoint ignored these unrecognized parameters: [alpha zeta]']);
  });

  it('answers 204 with no body for a write without output, warnings or not', async () => {
    const r = await call(svc.app, 'PUT', '/v1/sys/policy/quiet', { token: svc.root, body: { policy: '{}', junk: 1 } });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  it.each([
    ['{"unterminated": ', /not valid JSON/],
    ['[1,2]', /must be a JSON object/],
    ['"text"', /must be a JSON object/],
    ['12', /must be a JSON object/],
  ])('refuses the body %s with 400', async (raw, message) => {
    const r = await call(svc.app, 'POST', '/v1/auth/token/create', {
      token: svc.root,
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(message);
  });

  it('refuses a field of the wrong type with 400 naming the field', async () => {
    const r = await call(svc.app, 'POST', '/v1/auth/token/create', { token: svc.root, body: { ttl: { a: 1 }, num_uses: 'many' } });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/field "num_uses": expected an integer/);
    expect(r.json!.errors[0]).toMatch(/field "ttl": expected a duration/);
  });

  it('answers 413 for a body over 1 MiB, declared or not', async () => {
    const big = JSON.stringify({ policy: 'x'.repeat(1024 * 1024 + 10) });
    const declared = await call(svc.app, 'PUT', '/v1/sys/policy/big', {
      token: svc.root,
      raw: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(declared.status).toBe(413);
    expect(declared.json!.errors[0]).toMatch(/request body too large/);
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new Uint8Array(64 * 1024).fill(32));
        c.close();
      },
    });
    const res = await svc.app.request('http://localhost/v1/sys/policy/big', {
      method: 'PUT',
      body: stream,
      headers: { 'x-svc-token': svc.root },
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await call(svc.app, 'GET', '/v1/sys/policy/big', { token: svc.root })).status).toBe(404);
  });

  it('answers 400, not a fault, when the client stops sending the body, declared or not', async () => {
    for (const headers of [{ 'content-length': '100' }, {}] as Record<string, string>[]) {
      const failing = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"policy": "pa'));
          c.error(new Error('client went away'));
        },
      });
      const res = await svc.app.request('http://localhost/v1/sys/policy/cut', {
        method: 'PUT',
        body: failing,
        headers: { 'x-svc-token': svc.root, ...headers },
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: string[] }).errors).toEqual(['the request body could not be read']);
    }
    expect((await call(svc.app, 'GET', '/v1/sys/policy/cut', { token: svc.root })).status).toBe(404);
  });

  it('takes the token from X-Svc-Token, X-Vault-Token or Authorization: Bearer', async () => {
    const t = await tokenWith(svc, ['default']);
    for (const headers of <Record<string, string>[]>[
      { 'x-svc-token': t },
      { 'x-vault-token': t },
      { authorization: `Bearer ${t}` },
      { authorization: `bearer ${t}` },
    ]) {
      const r = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { headers });
      expect(r.status).toBe(200);
    }
  });

  it('sets a request id on every response', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/mounts', { token: svc.root });
    expect(r.headers.get('x-request-id')).toBe(r.json!.request_id);
  });

  it('serves an OpenAPI document derived from the declared paths', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/openapi', { token: svc.root });
    expect(r.status).toBe(200);
    expect(r.json!.openapi).toBe('3.0.2');
    expect(r.json!.paths['/auth/token/create'].post.requestBody.content['application/json'].schema.properties.ttl).toMatchObject({
      type: 'string',
    });
    expect(r.json!.paths['/sys/policy/{name}']).toHaveProperty('delete');
    expect(r.json!.paths['/sys/health']['x-unauthenticated']).toEqual(['read']);
  });
});
