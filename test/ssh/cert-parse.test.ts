/** Reading submitted certificates (lib/ssh/cert-parse.ts): ssh-keygen's and ours, their CA signatures, hostile input. */
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import sshpk from 'sshpk';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { parseCertificate, signedBy } from '../../lib/ssh/cert-parse';
import { signCertificate } from '../../lib/ssh/certificate';
import { parseUserKey } from '../../lib/ssh/public-key';
import { publicBlob } from '../../lib/ssh/ssh-key';
import { keygen, tempDir } from '../helpers/ssh-keys';

const dir = tempDir('latchkey-cert-parse-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nodeKey = (pub: string) => createPublicKey(sshpk.parseKey(pub, 'ssh').toString('pkcs8'));

describe('parseCertificate', () => {
  it.each(['ed25519', 'ecdsa', 'rsa'] as const)("reads ssh-keygen's certificate by a %s CA and checks its signature", (type) => {
    const ca = keygen(dir, type, type === 'rsa' ? 2048 : undefined);
    const other = keygen(dir, type, type === 'rsa' ? 2048 : undefined);
    const user = keygen(dir, 'ed25519');
    execFileSync('ssh-keygen', ['-q', '-s', ca.priv, '-I', 'id-1', '-n', 'alice,bob', '-z', '18446744073709551615', '-V', '+1h', user.pub]);
    const c = parseCertificate(readFileSync(user.pub.replace(/\.pub$/, '-cert.pub'), 'utf8'));
    expect(c).toMatchObject({ serial: 18446744073709551615n, certType: 'user', keyId: 'id-1', principals: ['alice', 'bob'] });
    expect(c.caKey).toEqual(Buffer.from(ca.pubText.split(' ')[1]!, 'base64'));
    expect(signedBy(c, nodeKey(ca.pubText))).toBe(true);
    expect(signedBy(c, nodeKey(other.pubText))).toBe(false);
  });

  it('reads the certificates Latchkey signs', () => {
    const ca = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    const user = keygen(dir, 'rsa', 2048);
    const line = signCertificate(
      {
        key: parseUserKey(user.pubText),
        serial: 42n,
        certType: 'host',
        keyId: 'h',
        principals: ['web.example.com'],
        validAfter: 1n,
        validBefore: 2n,
        criticalOptions: {},
        extensions: {},
      },
      { key: ca, blob: publicBlob(ca) },
      'rsa-sha2-256',
    );
    const c = parseCertificate(line);
    expect(c).toMatchObject({ serial: 42n, certType: 'host', validAfter: 1n, validBefore: 2n });
    expect(signedBy(c, ca)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['not base64', 'ssh-ed25519-cert-v01@openssh.com !!!'],
    ['a public key', 'AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl'],
    ['truncated', 'AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAA'],
    ['huge', 'A'.repeat(70_000)],
  ])('refuses %s input as InvalidInput', (_name, text) => {
    expect(() => parseCertificate(text)).toThrow(InvalidInput);
  });
});
