/** issue/<role>'s Ed25519 private key in OpenSSH's format: ssh-keygen reads it, and its public half is the key's. */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSshEd25519PrivateKey } from '../../lib/ssh/openssh-private';
import { publicLine } from '../../lib/ssh/ssh-key';
import { tempDir } from '../helpers/ssh-keys';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an Ed25519 private key in OpenSSH format', () => {
  it('is read by ssh-keygen, which derives the same public key', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const text = openSshEd25519PrivateKey(privateKey);
    expect(text).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n([A-Za-z0-9+/=]{1,70}\n)+-----END OPENSSH PRIVATE KEY-----\n$/);
    const file = join(dir, 'id');
    writeFileSync(file, text, { mode: 0o600 });
    const derived = execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' }).trim().split(' ').slice(0, 2).join(' ');
    expect(`${derived}\n`).toBe(publicLine(privateKey));
  });

  it('refuses another kind of key', () => {
    expect(() => openSshEd25519PrivateKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)).toThrow(/Ed25519/);
  });
});
