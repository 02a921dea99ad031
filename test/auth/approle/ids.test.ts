import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/domain-errors';
import { checkChosenId, checkRoleName, cidrsWithin, parseMetadata, randomId } from '../../../lib/auth/approle/ids';

describe('randomId', () => {
  it('is uuid-shaped, 128 random bits, never repeated', () => {
    const ids = new Set(Array.from({ length: 1000 }, randomId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // No fixed version nibble: all 32 hex digits vary.
    expect(new Set([...ids].map((id) => id[14])).size).toBeGreaterThan(8);
  });
});

describe('checkRoleName', () => {
  it.each(['web', 'a', 'web-1', 'my_role', 'a.b', '0'])('accepts %s', (n) => expect(checkRoleName(n)).toBe(n));
  it.each(['', '-web', '.a', 'a/b', 'a b', 'x'.repeat(257)])('refuses %j', (n) => expect(() => checkRoleName(n)).toThrow(InvalidInput));
  it.each([
    ['Web', 'web'],
    ['WEB', 'web'],
    ['Prod.1', 'prod.1'],
  ])('folds %j to %j, as Vault stores AppRole names', (n, folded) => expect(checkRoleName(n)).toBe(folded));
});

describe('checkChosenId', () => {
  it('refuses blank and over-long ids', () => {
    expect(() => checkChosenId('  ', 'role_id')).toThrow('missing role_id');
    expect(() => checkChosenId('x'.repeat(4097), 'secret_id')).toThrow(/longer than/);
    expect(checkChosenId('my-id', 'role_id')).toBe('my-id');
  });
});

describe('parseMetadata', () => {
  it.each([
    [undefined, {}],
    ['', {}],
    ['{"team":"blue","env":"prod"}', { team: 'blue', env: 'prod' }],
    [Buffer.from('{"team":"blue"}').toString('base64'), { team: 'blue' }],
    ['team=blue, env=prod', { team: 'blue', env: 'prod' }],
    [{ team: 'blue' }, { team: 'blue' }],
  ])('parses %j', (raw, want) => expect(parseMetadata(raw)).toEqual(want));

  it.each([['{"n":1}'], ['{not json'], ['novalue'], [42], [['a']], ['{"role_name":"x"}']])('refuses %j', (raw) =>
    expect(() => parseMetadata(raw)).toThrow(InvalidInput),
  );

  it('keeps __proto__ as a plain key', () => {
    const m = parseMetadata('{"__proto__":"x"}');
    expect(Object.keys(m)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
  });
});

describe('cidrsWithin', () => {
  it.each([
    [['10.1.0.0/16'], ['10.0.0.0/8'], true],
    [['10.1.2.3'], ['10.0.0.0/8'], true],
    [['10.0.0.0/8'], ['10.0.0.0/16'], false],
    [['192.168.0.0/16'], ['10.0.0.0/8', '192.168.1.0/24'], false],
    [['192.168.1.0/25'], ['10.0.0.0/8', '192.168.1.0/24'], true],
    [['127.0.0.1'], ['127.0.0.1'], true],
    [['::1'], ['10.0.0.0/8'], false],
    [['2001:db8::1'], ['2001:db8::/32'], true],
    [['10.0.0.0/8'], [], true],
    [[], ['10.0.0.0/8'], true],
  ])('%j within %j: %s', (inner, outer, want) => expect(cidrsWithin(inner, outer)).toBe(want));
});
