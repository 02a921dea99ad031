/** The field builders' coercion and refusals, as the reference server coerces request fields. */
import { describe, expect, it } from 'vitest';
import { f } from '../../lib/http/fields';
import { validateFields } from '../../lib/http/input';

describe('field coercion like the reference server', () => {
  const fields = {
    name: f.pathParam(),
    ttl: f.duration(),
    on: f.bool({ default: false }),
    tags: f.list(),
    n: f.int({ min: 0 }),
    meta: f.map(),
    mode: f.string({ enum: ['a', 'b'] }),
    req: f.string({ required: true }),
  };

  it('coerces strings, lists and booleans', () => {
    const { data, ignored } = validateFields(
      fields,
      { ttl: '1h', on: 'true', tags: 'x, y,,z', n: '5', meta: 'a=1,b=2', mode: 'b', req: 7, extra: 1 },
      { name: 'web' },
    );
    expect(data).toEqual({ name: 'web', ttl: 3600, on: true, tags: ['x', 'y', 'z'], n: 5, meta: { a: '1', b: '2' }, mode: 'b', req: '7' });
    expect(ignored).toEqual(['extra']);
  });

  it('requires required body fields of writes only', () => {
    expect(() => validateFields(fields, {}, { name: 'a' }, true)).toThrow(/missing required field "req"/);
    expect(validateFields(fields, {}, { name: 'a' }, false).data).toEqual({ name: 'a', on: false });
  });

  it('applies defaults and leaves optional fields out', () => {
    const { data } = validateFields(fields, { req: 'x' }, { name: 'a' });
    expect(data).toEqual({ name: 'a', on: false, req: 'x' });
  });

  it.each([
    [{ req: 'x', ttl: 'soon' }, /field "ttl": expected a duration/],
    [{ req: 'x', on: 'maybe' }, /field "on": expected a boolean/],
    [{ req: 'x', n: 'five' }, /field "n": expected an integer/],
    [{ req: 'x', n: -1 }, /field "n": expected an integer >= 0/],
    [{ req: 'x', tags: { a: 1 } }, /field "tags": expected a list/],
    [{ req: 'x', mode: 'c' }, /field "mode": expected one of: a, b/],
    [{ req: { a: 1 } }, /field "req": expected a string/],
    [{}, /missing required field "req"/],
    [{ req: '' }, /missing required field "req"/],
  ])('refuses %j', (input, message) => {
    expect(() => validateFields(fields, input, { name: 'a' })).toThrow(message);
  });
});
