/** The one table at the edge: domain errors (no status) to HTTP statuses and client messages. */
import { describe, expect, it } from 'vitest';
import { ConflictError, DomainError, ExistsError, Forbidden, InvalidInput, NotFoundError } from '../../lib/domain-errors';
import { BadRequest, HttpError, httpErrorOf, InternalError, NotFound } from '../../lib/errors';

describe('httpErrorOf', () => {
  it.each([
    [new NotFoundError('certificate with serial 01 not found'), 404, ['certificate with serial 01 not found']],
    [new NotFoundError(), 404, []],
    [new ConflictError(), 400, ['the resource was changed concurrently; retry the request']],
    [new ExistsError(), 400, ['the resource already exists']],
    [new InvalidInput('empty storage key'), 400, ['empty storage key']],
    [new Forbidden(), 403, ['permission denied']],
    [new Forbidden('no'), 403, ['no']],
  ])('maps %s to its status and message', (e, status, messages) => {
    const err = httpErrorOf(e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(status);
    expect(err.messages).toEqual(messages);
    expect(err.cause).toBe(e);
  });

  it('maps a subclass by its parent', () => {
    class TooLong extends InvalidInput {}
    expect(httpErrorOf(new TooLong('name too long'))).toMatchObject({ status: 400, messages: ['name too long'] });
  });

  it('passes an HttpError through unchanged', () => {
    const e = new BadRequest('bad');
    expect(httpErrorOf(e)).toBe(e);
    const miss = new NotFound();
    expect(httpErrorOf(miss)).toBe(miss);
  });

  it('answers anything else with a generic 500 that keeps the cause for the log only', () => {
    const cause = new Error('secret-bearing detail');
    const err = httpErrorOf(cause);
    expect(err).toBeInstanceOf(InternalError);
    expect(err).toMatchObject({ status: 500, messages: ['internal error'] });
    expect(err.cause).toBe(cause);
    expect(httpErrorOf('a string')).toMatchObject({ status: 500, messages: ['internal error'] });
  });

  it('domain errors carry no HTTP status and are not HttpErrors', () => {
    for (const e of [new NotFoundError(), new ConflictError(), new ExistsError(), new InvalidInput('x'), new Forbidden()]) {
      expect(e).toBeInstanceOf(DomainError);
      expect(e).not.toBeInstanceOf(HttpError);
      expect('status' in e).toBe(false);
      expect(e.name).toBe(e.constructor.name);
    }
  });
});
