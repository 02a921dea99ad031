/** Fields that may hold JSON as a string, as the reference engines take them. */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { httpErrorOf } from '../../lib/errors';
import { BLANK, parseJsonText } from '../../lib/cloud-common/json-text';

describe('parseJsonText', () => {
  it.each<[unknown, unknown]>([
    ['{"a":1}', { a: 1 }],
    ['[1,2]', [1, 2]],
    ['"s"', 's'],
    ['null', null],
    [{ a: 1 }, { a: 1 }],
    [[1], [1]],
    [7, 7],
    [undefined, undefined],
  ])('%j reads as %j', (raw, value) => {
    expect(parseJsonText(raw, 'bad', 'f')).toEqual(value);
  });

  it('a blank string is BLANK, not a value', () => {
    expect(parseJsonText('', 'bad', 'f')).toBe(BLANK);
    expect(parseJsonText('  \n', 'bad', 'f')).toBe(BLANK);
  });

  it('invalid JSON is a 400 with the caller’s message', () => {
    try {
      parseJsonText('{nope', 'azure_roles must be JSON', 'azure_roles');
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidInput);
      expect(httpErrorOf(e).status).toBe(400);
      expect(httpErrorOf(e).messages).toEqual(['azure_roles must be JSON']);
    }
  });

  it('JSON nested deeper than the input limit is a 400 naming the field and the limit', () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    expect(() => parseJsonText(deep, 'bad', 'inline_policies')).toThrow('inline_policies nests deeper than 64 levels');
  });
});
