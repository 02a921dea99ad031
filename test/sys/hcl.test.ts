/**
 * The HCL (version 1) subset policy documents are written in: items, labelled blocks, values,
 * heredocs and comments read into one tree; JSON read into the same tree; syntax errors refused
 * with a 400 naming the line.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { httpErrorOf } from '../../lib/errors';
import { fromJson, isHclObject, parseHcl, type HclObject, type HclValue } from '../../lib/sys/hcl';

/** The tree as plain data, for comparing: an object is a list of [keys, value] pairs. */
function plain(v: HclValue): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (isHclObject(v)) return v.items.map((i) => [i.keys, plain(i.value)]);
  return v;
}
const read = (text: string) => plain(parseHcl(text));

function refusal(text: string): string {
  try {
    parseHcl(text);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidInput);
    expect(httpErrorOf(e).status).toBe(400);
    return httpErrorOf(e).messages.join('; ');
  }
  throw new Error(`accepted: ${text}`);
}

describe('parseHcl', () => {
  it('reads key = value items of every value kind', () => {
    expect(read('s = "x"\nn = 42\nf = -1.5e3\nt = true\nno = false\nl = ["a", 1, [true]]\no = { k = "v" }')).toEqual([
      [['s'], 'x'],
      [['n'], 42],
      [['f'], -1500],
      [['t'], true],
      [['no'], false],
      [['l'], ['a', 1, [true]]],
      [['o'], [[['k'], 'v']]],
    ]);
  });

  it('reads labelled blocks, keeping a repeated block twice and in order', () => {
    expect(read('path "a/*" { capabilities = ["read"] }\npath "a/*" { capabilities = ["list"] }\npath "b" {}')).toEqual([
      [['path', 'a/*'], [[['capabilities'], ['read']]]],
      [['path', 'a/*'], [[['capabilities'], ['list']]]],
      [['path', 'b'], []],
    ]);
  });

  it('takes ":" for "=", quoted keys, commas between items and trailing commas in lists', () => {
    expect(read('"my key": "v", other = ["x",]')).toEqual([
      [['my key'], 'v'],
      [['other'], ['x']],
    ]);
  });

  it('skips the three comment styles', () => {
    expect(read('# one\na = 1 // two\n/* three\n spans lines */ b = 2')).toEqual([
      [['a'], 1],
      [['b'], 2],
    ]);
  });

  it('reads string escapes', () => {
    expect(read(String.raw`s = "a\"b\\c\n\t\u00e9\/"`)).toEqual([[['s'], 'a"b\\c\n\té/']]);
  });

  it('reads heredocs, with and without the indented form', () => {
    expect(read('p = <<EOT\nline 1\n  line 2\nEOT\nq = 1')).toEqual([
      [['p'], 'line 1\n  line 2\n'],
      [['q'], 1],
    ]);
    expect(read('p = <<-EOT\n  x\n  EOT\n')).toEqual([[['p'], '  x\n']]);
    expect(read('p = <<EOT\r\nx\r\nEOT\r\n')).toEqual([[['p'], 'x\n']]);
    expect(read('p = <<EOT\nEOT')).toEqual([[['p'], '']]);
  });

  it('reads an empty document and one of comments only', () => {
    expect(read('')).toEqual([]);
    expect(read('  # nothing\n')).toEqual([]);
  });

  it.each([
    ['an unterminated block', 'path "a" {', /line 1: missing "}"/],
    ['a stray closing brace', 'a = 1\n}', /line 2: unexpected "}"/],
    ['an unterminated list', 'a = [1, ', /missing "]"/],
    ['a list without commas', 'a = [1 2]', /expected "," or "]" in a list/],
    ['an unterminated string', 'a = "x', /line 1: unterminated string/],
    ['a newline in a string', 'a = "x\ny"', /unterminated string/],
    ['an unterminated comment', 'a = 1 /* no end', /unterminated comment/],
    ['a bad escape', String.raw`a = "\q"`, /invalid escape/],
    ['a short \\u escape', String.raw`a = "\u12"`, /invalid escape/],
    ['a heredoc without its end', 'a = <<EOT\nx\n', /heredoc without its closing "EOT"/],
    ['a heredoc marker on the same line', 'a = <<EOT x\nEOT', /invalid heredoc/],
    ['a bare word value', 'a = yes', /expected a value/],
    ['a number run into a word', 'a = 12abc', /expected a value/],
    ['a missing value', 'a =', /expected a value/],
    ['a key without "=" or a block', 'a 1', /expected "=" or "{" after "a"/],
    ['labels before "="', 'path "a" = 1', /"path" has labels and must be followed by a block/],
    ['no key', '= 1', /expected a key/],
  ])('refuses %s', (_name, text, message) => {
    expect(refusal(text)).toMatch(message);
  });

  it('names the line of the error', () => {
    expect(refusal('a = 1\nb = 2\n\nc = [1 2]')).toMatch(/line 4:/);
  });

  it('refuses nesting past its limit, in blocks, objects and lists', () => {
    expect(refusal('a { '.repeat(40) + '}'.repeat(40))).toMatch(/nested too deeply/);
    expect(refusal('a = ' + '{ b = '.repeat(40) + '1' + ' }'.repeat(40))).toMatch(/nested too deeply/);
    expect(refusal('a = ' + '['.repeat(40) + ']'.repeat(40))).toMatch(/nested too deeply/);
  });
});

describe('fromJson', () => {
  it('gives the same tree as the HCL spelling of the same document', () => {
    const json = fromJson({ path: { 'a/*': { capabilities: ['read'], n: 1, on: true } } });
    expect(isHclObject(json)).toBe(true);
    expect(plain(json)).toEqual(read('path = { "a/*" = { capabilities = ["read"], n = 1, on = true } }'));
    expect((json as HclObject).items[0]?.keys).toEqual(['path']);
  });

  it('keeps the order of object keys', () => {
    expect(plain(fromJson({ b: 1, a: 2 }))).toEqual([
      [['b'], 1],
      [['a'], 2],
    ]);
  });

  it('refuses null, and nesting past its limit', () => {
    expect(() => fromJson({ a: null })).toThrow(/null is not a value/);
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(() => fromJson(deep)).toThrow(/nested too deeply/);
  });
});
