/**
 * The `matches` engine: Go's regexp (RE2) semantics through re2js, linear time on the classic
 * catastrophic patterns, the bounds on pattern length, size and matching steps, and a 400
 * naming what RE2 cannot compile.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/domain-errors';
import { httpErrorOf } from '../../../lib/errors';
import { MATCH_BUDGET, MAX_PATTERN_LENGTH, MAX_PATTERN_SIZE, Patterns, patternSize } from '../../../lib/catalog/filter/regex';

const matches = (re: string, value: string) => new Patterns().compile(re)(value);

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidInput);
    expect(httpErrorOf(e).status).toBe(400);
    return (e as InvalidInput).message;
  }
  throw new Error('accepted');
}

describe('matching as Go regexp.MatchString does', () => {
  it.each([
    ['b', 'abc', true], // anywhere in the value
    ['^b', 'abc', false],
    ['^abc$', 'abc', true],
    ['a$', 'a\n', false], // $ is the end of the text, not before a final newline
    ['^b$', 'a\nb\nc', false],
    ['(?m)^b$', 'a\nb\nc', true],
    ['.', '\n', false],
    ['(?s).', '\n', true],
    ['(?i)ABC', 'xabcx', true],
    ['(?i:A)b', 'aB', false],
    ['(?U)a+b', 'aab', true],
    ['^.$', '😀', true], // one code point, not two UTF-16 units
    ['\\d', '٣', false], // \d, \w, \s and \b are ASCII
    ['\\s', '\v', false], // Go's \s is [\t\n\f\r ]
    ['x\\b', 'xé', true],
    ['\\pL', 'é', true],
    ['\\p{Greek}', 'α', true],
    ['[[:alpha:]]+$', '12ab', true],
    ['\\Qa.b\\E', 'axb', false],
    ['\\Qa.b\\E', 'a.b', true],
    ['\\x{1F600}', '😀', true],
    ['\\Aab\\z', 'ab', true],
    ['(?P<v>[0-9]+)\\.(?<w>[0-9]+)', 'v1.2', true],
    ['^(prod|staging)-[0-9]{1,3}$', 'staging-12', true],
    ['^(prod|staging)-[0-9]{1,3}$', 'staging-1234', false],
    ['', 'anything', true],
  ])('%j on %j is %s', (re, value, want) => {
    expect(matches(re, value)).toBe(want);
  });
});

describe('catastrophic patterns', () => {
  // 2^n steps for a backtracking engine; linear here, so each answers at once.
  it.each([
    ['^(a|a)*$', `${'a'.repeat(5000)}!`],
    ['^(a+)+$', `${'a'.repeat(5000)}!`],
    ['(x+x+)+y', 'x'.repeat(5000)],
    ['^(\\w+\\s?)*$', `${'ab '.repeat(2000)}!`],
    ['(.*a){20}b', 'a'.repeat(5000)],
  ])('%s over a long value that does not match is false', (re, value) => {
    expect(matches(re, value)).toBe(false);
  });
});

describe('what RE2 cannot compile is a 400 naming it', () => {
  it.each([
    ['(a)\\1', 'back-references are not RE2 syntax'],
    ['(?P<n>a)\\k<n>', 'back-references are not RE2 syntax'],
    ['a(?=b)', 'lookaround is not RE2 syntax'],
    ['a(?!b)', 'lookaround is not RE2 syntax'],
    ['(?<=a)b', 'lookaround is not RE2 syntax'],
    ['(?<!a)b', 'lookaround is not RE2 syntax'],
    ['[', 'missing closing ]'],
    ['a**', 'invalid nested repetition operator'],
    ['a{1001}', 'invalid repeat count'],
    ['(?x)a b', 'invalid or unsupported Perl syntax'],
    ['\\Z', 'invalid escape sequence'],
  ])('%s', (re, why) => {
    const message = refusal(() => new Patterns().compile(re));
    expect(message).toContain('failed to compile regular expression');
    expect(message).toContain(why);
  });

  it('an escaped backslash before a digit is no back-reference', () => {
    expect(matches('\\\\1', 'a\\1')).toBe(true);
  });
});

describe('the bounds', () => {
  it(`refuses a pattern over ${MAX_PATTERN_LENGTH} characters`, () => {
    expect(() => new Patterns().compile('a'.repeat(MAX_PATTERN_LENGTH))).not.toThrow();
    expect(refusal(() => new Patterns().compile('a'.repeat(MAX_PATTERN_LENGTH + 1)))).toContain(
      `longer than ${MAX_PATTERN_LENGTH} characters`,
    );
  });

  it('estimates the compiled size from the text, counting repetitions out', () => {
    expect(patternSize('abc')).toBe(5);
    expect(patternSize('^(a|a)*$')).toBe(10);
    expect(patternSize('[ab]{1000}')).toBe(1002);
    expect(patternSize('[]{}]{10}')).toBe(12); // a class, `]` and `{` in it, repeated
    expect(patternSize('a{2,5}')).toBe(2 + 3 * 2 + 2);
    expect(patternSize('(a{10}){10}')).toBe(10 * (10 + 2) + 2);
    expect(patternSize('\\Qa{9}\\E')).toBe(8 + 2); // quoted: each character (marks included), no repetition
    expect(patternSize('\\p{Greek}{3}')).toBe(3 + 2);
  });

  it(`refuses patterns expanding to more than ${MAX_PATTERN_SIZE} instructions, one filter's together`, () => {
    expect(refusal(() => new Patterns().compile('.{0,1000}'))).toContain('is too large');
    const patterns = new Patterns();
    patterns.compile('[0-9]{500}');
    expect(refusal(() => patterns.compile('[a-z]{600}'))).toContain('is too large');
  });

  it(`stops one evaluation past ${MATCH_BUDGET} steps, and starts the count again for the next`, () => {
    const patterns = new Patterns();
    const test = patterns.compile('^(a+)+$'); // size 9: (length + 1) × (9 + 32) steps a value
    const fits = Math.floor(MATCH_BUDGET / 41) - 1;
    expect(test('a'.repeat(fits))).toBe(true);
    expect(refusal(() => test('a'))).toContain(`more than ${MATCH_BUDGET} steps`);
    patterns.startEvaluation();
    expect(test('a')).toBe(true);
  });
});
