/**
 * Reading request input: the body (JSON or form, bounded by the limit), the query without the
 * HTTP layer's control parameters, and which input keys no field declares.
 */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../lib/errors';
import { f } from '../../lib/http/fields';
import { ignoredWarning, parseBody, queryInput, readRawBody, validateFields } from '../../lib/http/input';

const enc = (s: string) => new TextEncoder().encode(s);
const FORM = 'application/x-www-form-urlencoded';

async function status(p: Promise<unknown>): Promise<[number, string]> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    return [(e as HttpError).status, (e as HttpError).messages.join('; ')];
  }
  throw new Error('accepted');
}

/** A request whose body is streamed in chunks, with no declared length. */
function chunked(chunks: string[]): Request {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const x of chunks) c.enqueue(enc(x));
      c.close();
    },
  });
  return new Request('http://x/v1/a', { method: 'POST', body, duplex: 'half' } as RequestInit);
}

describe('readRawBody', () => {
  it('reads a body within the limit, declared or streamed', async () => {
    const declared = new Request('http://x/v1/a', { method: 'POST', body: '{"a":1}' });
    expect(Buffer.from(await readRawBody(declared, 100)).toString()).toBe('{"a":1}');
    expect(Buffer.from(await readRawBody(chunked(['ab', 'cd']), 4)).toString()).toBe('abcd');
  });

  it('reads no body as empty', async () => {
    expect((await readRawBody(new Request('http://x/v1/a'), 10)).byteLength).toBe(0);
  });

  it('refuses a declared length over the limit before reading (413)', async () => {
    const r = new Request('http://x/v1/a', { method: 'POST', body: 'x'.repeat(11), headers: { 'content-length': '11' } });
    expect(await status(readRawBody(r, 10))).toEqual([413, 'request body too large: limit is 10 bytes']);
  });

  it('stops a streamed body at the limit (413)', async () => {
    expect((await status(readRawBody(chunked(['abc', 'def']), 5)))[0]).toBe(413);
  });

  it('a body the client stops sending is a 400, not a fault', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc('ab'));
        c.error(new Error('socket hang up'));
      },
    });
    const r = new Request('http://x/v1/a', { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await status(readRawBody(r, 100))).toEqual([400, 'the request body could not be read']);
  });
});

describe('parseBody', () => {
  it.each<[string, string, string | null, Record<string, unknown>]>([
    ['a JSON object', '{"a":1,"b":[2]}', 'application/json', { a: 1, b: [2] }],
    ['JSON with no content type', '{"a":1}', null, { a: 1 }],
    ['JSON labelled as a form (curl --data)', ' {"a":"x"}', FORM, { a: 'x' }],
    ['a form', 'a=1&b=x%20y&a=2', FORM, { a: ['1', '2'], b: 'x y' }],
    ['a form, content type in upper case with a charset', 'a=1', 'Application/X-WWW-Form-Urlencoded; charset=utf-8', { a: '1' }],
    ['an empty body', '', 'application/json', {}],
    ['white space only', ' \n ', 'application/json', {}],
    ['JSON null', 'null', 'application/json', {}],
  ])('reads %s', (_name, body, type, expected) => {
    expect(parseBody(enc(body), type)).toEqual(expected);
  });

  it.each([
    ['invalid JSON', '{"a":', /not valid JSON/],
    ['a JSON array', '[1,2]', /must be a JSON object/],
    ['a JSON string', '"x"', /must be a JSON object/],
    ['a JSON number', '42', /must be a JSON object/],
    ['a form sent as JSON', 'a=1', /not valid JSON/],
  ])('refuses %s with a 400', (_name, body, message) => {
    try {
      parseBody(enc(body), 'application/json');
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(HttpError);
      expect((e as HttpError).status).toBe(400);
      expect((e as HttpError).messages.join('; ')).toMatch(message);
    }
  });
});

describe('parseBody and queryInput: the input limits (json-limits.ts)', () => {
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (e) {
      expect(e).toBeInstanceOf(HttpError);
      return [(e as HttpError).status, (e as HttpError).messages.join('; ')];
    }
    throw new Error('accepted');
  };

  it('refuses a JSON body nested 10,000 levels with a 400 naming the limit', () => {
    const body = `{"meta":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    expect(refusal(() => parseBody(enc(body), 'application/json'))).toEqual([400, 'the request body nests deeper than 64 levels']);
  });

  it('reads a body nested exactly 64 levels', () => {
    const body = `${'{"a":'.repeat(64)}1${'}'.repeat(64)}`;
    expect(parseBody(enc(body), 'application/json')).toHaveProperty('a');
  });

  it('refuses a form of 200,000 values, at once (a repeated key grows its list in place)', () => {
    const body = 'a=' + '&a='.repeat(200_000);
    expect(refusal(() => parseBody(enc(body), FORM))).toEqual([400, 'the request body holds more than 100000 values']);
  });

  it('refuses a query of more than 100,000 values', () => {
    const query = new URLSearchParams('x=1' + '&x=1'.repeat(100_000));
    expect(refusal(() => queryInput(query))).toEqual([400, 'the query holds more than 100000 values']);
  });
});

describe('queryInput', () => {
  it('reads parameters, repeated ones as a list, without the control parameters', () => {
    expect(queryInput(new URLSearchParams('a=1&b=2&b=3&list=true&pretty&help=1'))).toEqual({ a: '1', b: ['2', '3'] });
  });

  it('keeps a parameter named like an Object method as a string', () => {
    expect(queryInput(new URLSearchParams('toString=a&constructor=b'))).toEqual({ toString: 'a', constructor: 'b' });
  });
});

describe('validateFields: input no field declares', () => {
  const fields = { name: f.pathParam(), ttl: f.duration() };

  it('reports unknown keys, sorted, and a path parameter sent in the body', () => {
    const { data, ignored } = validateFields(fields, { zeta: 1, ttl: '1m', alpha: 2, name: 'other' }, { name: 'web' });
    expect(data).toEqual({ name: 'web', ttl: 60 });
    expect(ignored).toEqual(['alpha', 'name', 'zeta']);
  });

  it('collects every field error in one 400', () => {
    const more = { ...fields, n: f.int({ min: 0 }) };
    expect(() => validateFields(more, { ttl: 'soon', n: 'x' }, { name: 'a' })).toThrow(/field "ttl": .*; field "n": /);
  });

  it('gives each request its own copy of a default', () => {
    const withDefault = { tags: f.list({ default: ['a'] }) };
    const first = validateFields(withDefault, {}, {}).data.tags as string[];
    first.push('changed');
    expect(validateFields(withDefault, {}, {}).data.tags).toEqual(['a']);
  });
});

describe('ignoredWarning', () => {
  it('words the warning as the reference server does, and gives none for no keys', () => {
    expect(ignoredWarning(['a', 'b'])).toBe('Endpoint ignored these unrecognized parameters: [a b]');
    expect(ignoredWarning([])).toBeUndefined();
  });
});
