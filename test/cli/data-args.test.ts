/** k=v arguments: text, @file, stdin, JSON objects, repeated keys, and the usage errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseData } from '../../lib/cli/data-args';
import type { Io } from '../../lib/cli/io';

const io = (stdin = ''): Io => ({
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  stdin: Readable.from([Buffer.from(stdin)]),
  env: {},
});
const dir = mkdtempSync(join(tmpdir(), 'latchkey-data-args-'));
writeFileSync(join(dir, 'v.txt'), 'file text\n');
writeFileSync(join(dir, 'o.json'), '{"a":1,"b":[true]}');
writeFileSync(join(dir, 'bad.json'), '[1]');

describe('parseData', () => {
  it('k=v, k=@file, k=- and a key given twice', async () => {
    expect(await parseData(['a=1', 'b=x=y', `f=@${join(dir, 'v.txt')}`, 's=-', 'a=2', 'e='], io('from stdin'))).toEqual({
      a: ['1', '2'],
      b: 'x=y',
      f: 'file text\n',
      s: 'from stdin',
      e: '',
    });
  });

  it('@file and - alone merge a JSON object; \\@ escapes an @', async () => {
    expect(await parseData([`@${join(dir, 'o.json')}`, 'c=\\@home'], io())).toEqual({ a: 1, b: [true], c: '@home' });
    expect(await parseData(['-'], io('{"x":"y"}'))).toEqual({ x: 'y' });
  });

  it.each([
    [['novalue'], 'invalid key/value pair "novalue": format must be key=value'],
    [['=v'], 'invalid key/value pair "=v": format must be key=value'],
    [['k=@/nonexistent/x'], 'cannot read /nonexistent/x: ENOENT'],
    [['a=-', 'b=-'], 'stdin (-) can be read only once'],
    [['-'], 'stdin is not JSON'],
  ])('%j is a usage error', async (args, message) => {
    await expect(parseData(args, io('not json'))).rejects.toThrow(message);
  });

  it('a JSON file that is not an object is refused', async () => {
    await expect(parseData([`@${join(dir, 'bad.json')}`], io())).rejects.toThrow('is not a JSON object');
  });
});
