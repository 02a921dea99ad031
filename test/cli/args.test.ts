/** The vault CLI's flag grammar. */
import { describe, expect, it } from 'vitest';
import { parseArgs, strs, UsageError } from '../../lib/cli/args';

const spec = { format: 'string', 'no-store': 'boolean', policy: 'strings' } as const;

describe('parseArgs', () => {
  it.each([
    [['-format=json', 'a'], { format: 'json' }, ['a']],
    [['--format', 'json', 'a'], { format: 'json' }, ['a']],
    [['a', '-format=yaml'], { format: 'yaml' }, ['a']],
    [['-no-store', 'k=v'], { 'no-store': true }, ['k=v']],
    [['-no-store=false'], { 'no-store': false }, []],
    [['-format=a=b'], { format: 'a=b' }, []],
    [['-', 'k=-'], {}, ['-', 'k=-']],
  ])('%j', (argv, flags, args) => {
    const p = parseArgs(argv, spec);
    expect(p.flags).toEqual(flags);
    expect(p.args).toEqual(args);
  });

  it('everything after -- is passed through', () => {
    expect(parseArgs(['h', '--', '-p', '22', '-format=x'], spec)).toEqual({ flags: {}, args: ['h'], rest: ['-p', '22', '-format=x'] });
  });

  it('repeatable flags keep every value; strs splits commas', () => {
    const p = parseArgs(['-policy=a', '-policy', 'b,c'], spec);
    expect(strs(p, 'policy')).toEqual(['a', 'b', 'c']);
  });

  it.each([
    [['-bogus'], 'flag provided but not defined: -bogus'],
    [['-format'], 'flag needs an argument: -format'],
    [['-no-store=maybe'], 'invalid boolean value for -no-store: maybe'],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseArgs(argv, spec)).toThrow(new UsageError(message));
  });
});
