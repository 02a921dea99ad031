/** OpenSSH public key lines read without sshpk: ssh-keygen's keys of every type, and what is refused. */
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { readPublicLine, UnsupportedKeyType } from '../../lib/ssh/public-line';
import { keygen, tempDir } from '../helpers/ssh-keys';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an OpenSSH public key line', () => {
  it.each([
    ['rsa', 2048],
    ['rsa', 1024],
    ['ecdsa', 256],
    ['ecdsa', 384],
    ['ecdsa', 521],
    ['ed25519', undefined],
  ] as const)("reads ssh-keygen's %s %s key and writes it back the same", (type, bits) => {
    const files = keygen(dir, type, bits);
    const key = readPublicLine(files.pubText);
    const [kind, blob] = files.pubText.split(' ');
    expect(key.type).toBe(kind);
    expect(key.blob.toString('base64')).toBe(blob);
    expect(key.bits).toBe(bits ?? 256);
  });

  it('reads a line broken inside its base64, and one without a comment', () => {
    const { pubText } = keygen(dir, 'ed25519');
    const [kind, blob] = pubText.split(' ');
    const broken = `${kind} ${blob!.slice(0, 20)}\n${blob!.slice(20)}`;
    expect(readPublicLine(broken).blob.toString('base64')).toBe(blob);
    expect(readPublicLine(`${kind} ${blob}`).blob.toString('base64')).toBe(blob);
  });

  it('names a DSA key as a type it does not sign for', () => {
    expect(() => readPublicLine(keygen(dir, 'dsa').pubText)).toThrow(UnsupportedKeyType);
  });

  it.each([
    ['malformed base64', 'ssh-ed25519 AAAA@@@'],
    ['no key', 'ssh-ed25519'],
    ['a truncated blob', 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ'],
    ['an unknown type', 'foo bar'],
  ])('refuses %s', (_, line) => {
    expect(() => readPublicLine(line)).toThrow(Error);
    expect(() => readPublicLine(line)).not.toThrow(UnsupportedKeyType);
  });

  it('refuses a line whose type is not the blob type', () => {
    const [, blob] = keygen(dir, 'ed25519').pubText.split(' ');
    expect(() => readPublicLine(`ssh-rsa ${blob}`)).toThrow(/not the blob type/);
  });

  it('refuses an EC point of the wrong size, and a compressed one', () => {
    const [kind, blob] = keygen(dir, 'ecdsa', 256).pubText.split(' ');
    const bytes = Buffer.from(blob!, 'base64');
    const short = Buffer.concat([bytes.subarray(0, bytes.length - 66), Buffer.from([0, 0, 0, 64]), bytes.subarray(bytes.length - 64)]);
    expect(() => readPublicLine(`${kind} ${short.toString('base64')}`)).toThrow(/EC point/);
    const compressed = Buffer.from(bytes);
    compressed[bytes.length - 65] = 2;
    expect(() => readPublicLine(`${kind} ${compressed.toString('base64')}`)).toThrow(/EC point/);
  });

  it('writes a blob with a padded RSA integer anew, as sshpk did', () => {
    const [kind, blob] = keygen(dir, 'rsa', 2048).pubText.split(' ');
    const bytes = Buffer.from(blob!, 'base64');
    // The exponent (after the 11-byte type string) given with a needless leading zero byte.
    const e = bytes.readUInt32BE(11);
    const padded = Buffer.concat([bytes.subarray(0, 11), Buffer.from([0, 0, 0, e + 1, 0]), bytes.subarray(15)]);
    expect(readPublicLine(`${kind} ${padded.toString('base64')}`).blob.toString('base64')).toBe(blob);
  });
});
