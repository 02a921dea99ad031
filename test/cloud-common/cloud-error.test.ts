/** A failed cloud call: its kind from the status, secrets scrubbed from its text, its domain error and the client's status. */
import { describe, expect, it } from 'vitest';
import { CloudError, kindOfStatus, scrub, toDomainError } from '../../lib/cloud-common/cloud-error';
import { InvalidInput, NotFoundError, Throttled, UpstreamError, type DomainError } from '../../lib/domain-errors';
import { BadRequest, httpErrorOf } from '../../lib/errors';

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

describe('toDomainError', () => {
  it.each<[CloudError, abstract new (...args: never[]) => DomainError, number, RegExp]>([
    [
      new CloudError('throttled', 429, 'slow down'),
      Throttled,
      429,
      /^create: slow down \(the cloud is throttling requests; retry later\)$/,
    ],
    [new CloudError('unauthorized', 401, 'bad secret'), InvalidInput, 400, /rejected the engine's credentials/],
    [new CloudError('forbidden', 403, 'no'), InvalidInput, 400, /lacks a permission/],
    [new CloudError('server', 503, 'down'), UpstreamError, 502, /the cloud failed; retry later/],
    [new CloudError('not-found', 404, 'gone'), InvalidInput, 400, /^create: gone$/],
    [new CloudError('invalid', 400, 'bad role'), InvalidInput, 400, /^create: bad role$/],
  ])('%s is a %s, answered %s', (e, type, status, message) => {
    const d = toDomainError(e, 'create');
    expect(d).toBeInstanceOf(type);
    expect((d as DomainError).message).toMatch(message);
    expect((d as DomainError).cause).toBe(e);
    const h = httpErrorOf(d);
    expect(h.status).toBe(status);
    expect(h.messages.join('; ')).toMatch(message);
  });

  it('passes anything that is not a cloud error through, for the edge to map', () => {
    const bad = new BadRequest('x');
    expect(toDomainError(bad, 'a')).toBe(bad);
    const missing = new NotFoundError('role r not found');
    expect(toDomainError(missing, 'a')).toBe(missing);
    expect(httpErrorOf(toDomainError(missing, 'a')).status).toBe(404);
    const fault = new Error('boom');
    expect(toDomainError(fault, 'a')).toBe(fault);
    expect(httpErrorOf(toDomainError(fault, 'a')).status).toBe(500);
  });
});
