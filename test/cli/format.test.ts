/** Output as the vault CLI prints it: the table, durations, -field, json. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../lib/client/client';
import { cell, fieldOf, humanDuration, kvTable, printField, printSecret } from '../../lib/cli/format';
import type { Io } from '../../lib/cli/io';

function capture(tty = false): { io: Io; text: () => string } {
  const stdout = Object.assign(new PassThrough(), { isTTY: tty });
  let text = '';
  stdout.on('data', (d: Buffer) => (text += d.toString()));
  return { io: { stdout, stderr: new PassThrough(), stdin: new PassThrough(), env: {} }, text: () => text };
}

const secret: Envelope = {
  lease_id: 'pki/issue/x/abc',
  renewable: false,
  lease_duration: 3600,
  data: { b: [1, 'two'], a: { y: null, x: 'z' } },
  warnings: ['careful'],
  auth: null,
};

describe('format', () => {
  it.each([
    [0, '0s'],
    [45, '45s'],
    [60, '1m'],
    [3600, '1h'],
    [5400, '1h30m'],
    [3601, '1h1s'],
    [2764800, '768h'],
  ])('humanDuration(%d) = %s', (s, text) => expect(humanDuration(s)).toBe(text));

  it('cells as Go prints values', () => {
    expect(cell(['a', 1])).toBe('[a 1]');
    expect(cell({ b: 1, a: [] })).toBe('map[a:[] b:1]');
    expect(cell(null)).toBe('n/a');
  });

  it('the table: lease rows, data in order, then the warnings', () => {
    const { io, text } = capture();
    printSecret(io, secret, 'table');
    expect(text()).toBe(
      [
        'Key                Value',
        '---                -----',
        'lease_id           pki/issue/x/abc',
        'lease_duration     1h',
        'lease_renewable    false',
        'b                  [1 two]',
        'a                  map[x:z y:n/a]',
        '',
        'WARNING! The following warnings were returned from Latchkey:',
        '',
        '  * careful',
        '',
      ].join('\n'),
    );
    expect(kvTable([])).toBe('Key    Value\n---    -----\n');
  });

  it('json is the answer indented two spaces', () => {
    const { io, text } = capture();
    printSecret(io, secret, 'json');
    expect(text()).toBe(`${JSON.stringify(secret, null, 2)}\n`);
  });

  it('-field: a string raw, anything else as JSON; a newline only on a terminal', () => {
    const pipe = capture();
    printField(pipe.io, fieldOf(secret, 'b'), 'table');
    printField(pipe.io, 'x\n', 'table');
    expect(pipe.text()).toBe('[1,"two"]x\n');
    const tty = capture(true);
    printField(tty.io, 'v', 'table');
    expect(tty.text()).toBe('v\n');
    expect(fieldOf(secret, 'lease_id')).toBe('pki/issue/x/abc');
    expect(() => fieldOf(secret, 'nope')).toThrow('field "nope" not present in secret');
  });
});
