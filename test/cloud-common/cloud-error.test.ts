/** A failed cloud call: its kind from the status, secrets scrubbed from its text, and the client's status. */
import { describe, expect, it } from 'vitest';
import { CloudError, kindOfStatus, scrub, toHttpError } from '../../lib/cloud-common/cloud-error';
import { NotFoundError } from '../../lib/domain-errors';
import { BadRequest, HttpError } from '../../lib/errors';

describe('kindOfStatus', () => {
  it.each([
    [429, 'throttled'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not-found'],
    [409, 'conflict'],
    [500, 'server'],
    [503, 'server'],
    [400, 'invalid'],
    [422, 'invalid'],
  ])('%s is %s', (status, kind) => expect(kindOfStatus(status)).toBe(kind));
});

describe('scrub', () => {
  it('removes every known secret, and bearer-looking tokens', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    expect(scrub(`secret s3cr3t-value in ${jwt} and s3cr3t-value again`, ['s3cr3t-value', undefined])).toBe(
      'secret [redacted] in [redacted] and [redacted] again',
    );
  });

  it('leaves secrets shorter than four characters alone (they would match everywhere) and cuts the text at 400 characters', () => {
    expect(scrub('abc abc', ['abc'])).toBe('abc abc');
    expect(scrub('x'.repeat(1000), [])).toHaveLength(400);
  });
});

describe('toHttpError', () => {
  it.each<[CloudError, number, RegExp]>([
    [new CloudError('throttled', 429, 'slow down'), 429, /^create: slow down \(the cloud is throttling requests; retry later\)$/],
    [new CloudError('unauthorized', 401, 'bad secret'), 400, /rejected the engine's credentials/],
    [new CloudError('forbidden', 403, 'no'), 400, /lacks a permission/],
    [new CloudError('server', 503, 'down'), 502, /the cloud failed; retry later/],
    [new CloudError('not-found', 404, 'gone'), 400, /^create: gone$/],
    [new CloudError('invalid', 400, 'bad role'), 400, /^create: bad role$/],
  ])('%s is a %s', (e, status, message) => {
    const h = toHttpError(e, 'create');
    expect(h.status).toBe(status);
    expect(h.messages.join('; ')).toMatch(message);
    expect(h.cause).toBe(e);
  });

  it('passes an HTTP error through, and maps a domain error as the edge does', () => {
    const bad = new BadRequest('x');
    expect(toHttpError(bad, 'a')).toBe(bad);
    const nf = toHttpError(new NotFoundError('role r not found'), 'a');
    expect(nf).toBeInstanceOf(HttpError);
    expect(nf.status).toBe(404);
  });
});
