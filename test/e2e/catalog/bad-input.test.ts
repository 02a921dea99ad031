/** Hostile and malformed input: a clear 4xx each, and nothing lost or half-written. */
import { beforeAll, describe, expect, it } from 'vitest';
import { cat, catalogService, type CatalogService } from './helpers';

let svc: CatalogService;
beforeAll(async () => {
  svc = await catalogService();
});

const LIMIT = 512 * 1024;

describe('kv bad input', () => {
  it('takes a value of exactly 512 KiB and refuses one byte more with 413, keeping the old value', async () => {
    const full = new Uint8Array(LIMIT).fill(120);
    expect((await cat(svc, 'PUT', '/v1/kv/size/k', { raw: full })).text).toBe('true');
    const over = await cat(svc, 'PUT', '/v1/kv/size/k', { raw: new Uint8Array(LIMIT + 1).fill(121) });
    expect(over.status).toBe(413);
    expect(over.text).toMatch(/too large/);
    expect((await cat(svc, 'GET', '/v1/kv/size/k?raw')).text).toBe('x'.repeat(LIMIT));
  });

  it('refuses a body whose declared length is over the limit before reading it', async () => {
    const r = await svc.catalog.request('http://localhost/v1/kv/size/declared', {
      method: 'PUT',
      headers: { 'content-length': String(10 * 1024 * 1024) },
      body: 'small',
    });
    expect(r.status).toBe(413);
  });

  it.each([
    ['PUT', '/v1/kv/', 400, 'Missing key name'],
    ['GET', '/v1/kv/', 400, 'Missing key name'],
    ['DELETE', '/v1/kv/', 400, 'Missing key name'],
    ['PUT', '/v1/kv//leading', 400, "Invalid key name: it must not begin with a '/'"],
    ['PUT', '/v1/kv/a/..%2Fb', 400, 'the request path contains a "." or ".." segment'],
    ['PUT', '/v1/kv/a%5Cb', 400, 'Invalid key name: it contains a path traversal sequence'],
    ['PUT', `/v1/kv/${'k'.repeat(513)}`, 400, 'Invalid key name: longer than 512 bytes'],
    ['PUT', '/v1/kv/f?flags=abc', 400, 'Invalid flags: expected an unsigned integer below 2^64'],
    ['PUT', '/v1/kv/f?flags=-1', 400, 'Invalid flags: expected an unsigned integer below 2^64'],
    ['PUT', '/v1/kv/f?flags=99999999999999999999', 400, 'Invalid flags: expected an unsigned integer below 2^64'],
    ['PUT', '/v1/kv/f?cas=abc', 400, 'Invalid cas index: expected an unsigned integer below 2^53'],
    ['PUT', '/v1/kv/f?cas=1&acquire=s', 400, 'Conflicting flags: cas, acquire'],
    ['PUT', '/v1/kv/f?acquire=session', 400, 'Sessions are not supported: acquire and release cannot be used'],
    ['DELETE', '/v1/kv/f?recurse&cas=1', 400, 'Conflicting flags: recurse, cas'],
    ['GET', '/v1/kv/a%ZZb', 400, 'malformed percent-encoding in the request path'],
  ])('%s %s -> %i %s', async (method, path, status, text) => {
    const r = await cat(svc, method, path, method === 'PUT' ? { raw: 'v' } : {});
    expect(r.status).toBe(status);
    expect(r.text).toBe(text);
  });

  it('a refused write leaves nothing behind', async () => {
    expect((await cat(svc, 'GET', '/v1/kv/f')).status).toBe(404);
  });
});

describe('register bad input', () => {
  const cases: [string, string, number, RegExp][] = [
    ['not JSON', '{"Node": ', 400, /^Request decode failed: body: not valid JSON$/],
    ['empty', '', 400, /empty body/],
    ['an array', '[1,2]', 400, /expected a JSON object/],
    ['a string', '"x"', 400, /expected a JSON object/],
    ['no node', '{"Address":"1.2.3.4"}', 400, /^Missing node name$/],
    ['no address for a new node', '{"Node":"a1"}', 400, /^Must provide address/],
    ['node of the wrong type', '{"Node":["x"],"Address":"1"}', 400, /Node: expected a string/],
    ['node with a slash', '{"Node":"a/b","Address":"1"}', 400, /Invalid node name: it must not contain '\/'/],
    ['node with a newline', '{"Node":"a\\nb","Address":"1"}', 400, /non-printable/],
    ['a huge node name', `{"Node":"${'n'.repeat(300)}","Address":"1"}`, 400, /longer than 256 bytes/],
    ['a node ID that is not a UUID', '{"Node":"a1","Address":"1","ID":"xyz"}', 400, /^Bad node ID/],
    ['another datacenter', '{"Node":"a1","Address":"1","Datacenter":"dc7"}', 400, /No path to datacenter/],
    ['a service without a name', '{"Node":"a1","Address":"1","Service":{"Port":1}}', 400, /^Missing service name$/],
    ['a service that is not an object', '{"Node":"a1","Address":"1","Service":"web"}', 400, /Service: expected an object/],
    [
      'a port out of range',
      '{"Node":"a1","Address":"1","Service":{"Service":"w","Port":70000}}',
      400,
      /Service.Port: expected a port number/,
    ],
    ['a fractional port', '{"Node":"a1","Address":"1","Service":{"Service":"w","Port":1.5}}', 400, /Service.Port/],
    ['tags that are not strings', '{"Node":"a1","Address":"1","Service":{"Service":"w","Tags":[1]}}', 400, /Service.Tags\[0\]/],
    ['tags as a string', '{"Node":"a1","Address":"1","Service":{"Service":"w","Tags":"a,b"}}', 400, /Service.Tags: expected an array/],
    ['meta with a bad key', '{"Node":"a1","Address":"1","NodeMeta":{"a b":"c"}}', 400, /NodeMeta: invalid key/],
    ['meta with a non-string value', '{"Node":"a1","Address":"1","NodeMeta":{"a":{}}}', 400, /NodeMeta.a: expected a printable string/],
    ['a check with a bad status', '{"Node":"a1","Address":"1","Check":{"CheckID":"c","Status":"great"}}', 400, /Status: expected one of/],
    [
      'a check for an unknown service',
      '{"Node":"a1","Address":"1","Check":{"CheckID":"c","ServiceID":"ghost"}}',
      400,
      /^Unknown service "ghost" for check "c"$/,
    ],
    ['a check on another node', '{"Node":"a1","Address":"1","Check":{"Node":"b1","CheckID":"c"}}', 400, /^Node mismatch/],
    ['a check without an ID or name', '{"Node":"a1","Address":"1","Check":{"Status":"passing"}}', 400, /^Missing check ID$/],
    ['checks that are not objects', '{"Node":"a1","Address":"1","Checks":[1]}', 400, /Checks: expected an array of objects/],
    [
      'SkipNodeUpdate of the wrong type',
      '{"Node":"a1","Address":"1","SkipNodeUpdate":"yes"}',
      400,
      /SkipNodeUpdate: expected true or false/,
    ],
  ];

  it.each(cases)('refuses %s', async (_what, body, status, message) => {
    const r = await cat(svc, 'PUT', '/v1/catalog/register', { raw: body });
    expect(r.status).toBe(status);
    expect(r.text).toMatch(message);
  });

  it('a refused registration wrote nothing', async () => {
    expect((await cat(svc, 'GET', '/v1/catalog/node/a1')).text).toBe('null');
    expect((await cat(svc, 'GET', '/v1/catalog/nodes')).json).toEqual([]);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const r = await cat(svc, 'PUT', '/v1/catalog/register', { raw: `{"Node":"${'x'.repeat(1024 * 1024)}"}` });
    expect(r.status).toBe(413);
  });

  it.each([
    ['{}', /^Missing node name$/],
    ['{"Node":"n","ServiceID":5}', /ServiceID: expected a string/],
    ['{"Node":"n","Datacenter":"elsewhere"}', /No path to datacenter/],
    ['null', /expected a JSON object/],
  ])('refuses the deregistration %s', async (body, message) => {
    const r = await cat(svc, 'PUT', '/v1/catalog/deregister', { raw: body });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(message);
  });

  it('refuses odd names in read paths', async () => {
    expect((await cat(svc, 'GET', `/v1/catalog/node/${'x'.repeat(300)}`)).status).toBe(400);
    expect((await cat(svc, 'GET', `/v1/catalog/service/${'x'.repeat(300)}`)).status).toBe(400);
    expect((await cat(svc, 'GET', '/v1/catalog/node/a%2Fb')).status).toBe(404);
  });

  it('concurrent registrations of one node keep every service and one node', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        cat(svc, 'PUT', '/v1/catalog/register', {
          body: { Node: 'busy', Address: '10.5.0.1', Service: { ID: `s${i}`, Service: 'busy-svc', Port: 1000 + i } },
        }),
      ),
    );
    expect(answers.every((a) => a.text === 'true')).toBe(true);
    const node = (await cat(svc, 'GET', '/v1/catalog/node/busy')).json as unknown as { Services: Record<string, unknown> };
    expect(Object.keys(node.Services).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `s${i}`).sort());
    expect(((await cat(svc, 'GET', '/v1/catalog/service/busy-svc')).json as unknown as unknown[]).length).toBe(10);
    expect(
      ((await cat(svc, 'GET', '/v1/catalog/nodes')).json as unknown as { Node: string }[]).filter((n) => n.Node === 'busy'),
    ).toHaveLength(1);
  });
});
