/** Atomic replacement: modes as asked, all files or none, no temporary file left behind. */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CERT_MODE, KEY_MODE, replaceFiles } from '../../lib/agent/files';

const dir = () => mkdtempSync(join(tmpdir(), 'latchkey-agent-files-'));

describe('replaceFiles', () => {
  it('writes each file with its mode, over older files of other modes', () => {
    const d = dir();
    writeFileSync(join(d, 'key.pem'), 'old key', { mode: 0o644 });
    writeFileSync(join(d, 'cert.pem'), 'old cert', { mode: 0o600 });
    replaceFiles([
      { path: join(d, 'key.pem'), content: 'new key\n', mode: KEY_MODE },
      { path: join(d, 'cert.pem'), content: 'new cert\n', mode: CERT_MODE },
    ]);
    expect(readFileSync(join(d, 'key.pem'), 'utf8')).toBe('new key\n');
    expect(statSync(join(d, 'key.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(d, 'cert.pem'), 'utf8')).toBe('new cert\n');
    expect(statSync(join(d, 'cert.pem')).mode & 0o777).toBe(0o644);
    expect(readdirSync(d).sort()).toEqual(['cert.pem', 'key.pem']);
  });

  it('replaces the file (a new inode): a reader holding the old one keeps reading it whole', () => {
    const d = dir();
    const f = join(d, 'cert.pem');
    writeFileSync(f, 'old');
    const before = statSync(f).ino;
    replaceFiles([{ path: f, content: 'new', mode: CERT_MODE }]);
    expect(statSync(f).ino).not.toBe(before);
  });

  it('writes none when one cannot be written, and leaves no temporary file', () => {
    const d = dir();
    writeFileSync(join(d, 'key.pem'), 'old key', { mode: 0o600 });
    expect(() =>
      replaceFiles([
        { path: join(d, 'key.pem'), content: 'new key', mode: KEY_MODE },
        { path: join(d, 'missing-folder', 'cert.pem'), content: 'new cert', mode: CERT_MODE },
      ]),
    ).toThrow(/ENOENT/);
    expect(readFileSync(join(d, 'key.pem'), 'utf8')).toBe('old key');
    expect(readdirSync(d)).toEqual(['key.pem']);
  });
});
