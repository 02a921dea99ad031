import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import { call, generateCa, sshService } from './setup';

let svc: TestService;
const dir = tempDir();

beforeAll(async () => {
  svc = await sshService();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** ssh-keygen -l: "<bits> SHA256:... comment (TYPE)" of a public key line. */
function fingerprint(line: string): string {
  const file = join(dir, `pub-${Math.random().toString(36).slice(2)}.pub`);
  writeFileSync(file, line);
  return execFileSync('ssh-keygen', ['-l', '-f', file], { encoding: 'utf8' }).trim();
}

describe('config/ca: generated keys', () => {
  it.each([
    [{}, 'ssh-rsa', '4096', '(RSA)'],
    [{ key_type: 'rsa', key_bits: 2048 }, 'ssh-rsa', '2048', '(RSA)'],
    [{ key_type: 'ssh-rsa', key_bits: 3072 }, 'ssh-rsa', '3072', '(RSA)'],
    [{ key_type: 'ec' }, 'ecdsa-sha2-nistp256', '256', '(ECDSA)'],
    [{ key_type: 'ec', key_bits: 384 }, 'ecdsa-sha2-nistp384', '384', '(ECDSA)'],
    [{ key_type: 'ec', key_bits: 521 }, 'ecdsa-sha2-nistp521', '521', '(ECDSA)'],
    [{ key_type: 'ecdsa-sha2-nistp256' }, 'ecdsa-sha2-nistp256', '256', '(ECDSA)'],
    [{ key_type: 'ecdsa-sha2-nistp384' }, 'ecdsa-sha2-nistp384', '384', '(ECDSA)'],
    [{ key_type: 'ecdsa-sha2-nistp521' }, 'ecdsa-sha2-nistp521', '521', '(ECDSA)'],
    [{ key_type: 'ed25519' }, 'ssh-ed25519', '256', '(ED25519)'],
    [{ key_type: 'ssh-ed25519', generate_signing_key: true }, 'ssh-ed25519', '256', '(ED25519)'],
  ])(
    '%j gives a %s key ssh-keygen reads as %s bits',
    async (body, type, bits, kind) => {
      const pub = await generateCa(svc, body);
      expect(pub.startsWith(`${type} `)).toBe(true);
      expect(pub.endsWith('\n')).toBe(true);
      const fp = fingerprint(pub);
      expect(fp.split(' ')[0]).toBe(bits);
      expect(fp.endsWith(kind)).toBe(true);
      const read = await call(svc.app, 'GET', '/v1/ssh/config/ca', { token: svc.root });
      expect(read.json!.data.public_key).toBe(pub);
    },
    60_000,
  );

  it.each([
    [{ key_type: 'rsa', key_bits: 1024 }, /invalid key_bits 1024/],
    [{ key_type: 'ec', key_bits: 200 }, /invalid key_bits 200/],
    [{ key_type: 'ecdsa-sha2-nistp256', key_bits: 384 }, /invalid key_bits 384/],
    [{ key_type: 'dsa' }, /unsupported key_type "dsa"/],
    [{ key_type: 'ssh-rsa', key_bits: 'lots' }, /field "key_bits": expected an integer/],
    [{ generate_signing_key: false }, /missing public_key and private_key/],
  ])('refuses %j', async (body, message) => {
    const r = await call(svc.app, 'POST', '/v1/ssh/config/ca', { token: svc.root, body });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(message);
  });
});

describe('public_key', () => {
  it('is served as text/plain without a token, and follows config/ca', async () => {
    const pub = await generateCa(svc, { key_type: 'ed25519' });
    const r = await call(svc.app, 'GET', '/v1/ssh/public_key');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toBe(pub);
  });

  it('config/ca needs a token; deleting the CA removes the public key', async () => {
    expect((await call(svc.app, 'GET', '/v1/ssh/config/ca')).status).toBe(403);
    expect((await call(svc.app, 'DELETE', '/v1/ssh/config/ca', { token: svc.root })).status).toBe(204);
    expect((await call(svc.app, 'GET', '/v1/ssh/public_key')).status).toBe(404);
    const read = await call(svc.app, 'GET', '/v1/ssh/config/ca', { token: svc.root });
    expect(read).toMatchObject({ status: 400, json: { errors: ["keys haven't been configured yet"] } });
  });
});

describe('config/ca: imported keys', () => {
  it.each([
    ['ed25519', undefined],
    ['ecdsa', 384],
    ['rsa', 2048],
  ] as const)('imports an OpenSSH %s key pair (204) and serves its public key', async (type, bits) => {
    const k = keygen(dir, type, bits);
    const r = await call(svc.app, 'POST', '/v1/ssh/config/ca', {
      token: svc.root,
      body: { private_key: k.privText, public_key: k.pubText },
    });
    expect(r.status).toBe(204);
    const served = (await call(svc.app, 'GET', '/v1/ssh/public_key')).text;
    expect(served.trim().split(' ').slice(0, 2).join(' ')).toBe(k.pubText.split(' ').slice(0, 2).join(' '));
  });

  it('imports a PKCS#8 PEM key with generate_signing_key false', async () => {
    const k = keygen(dir, 'ecdsa', 256);
    const pem = execFileSync('ssh-keygen', ['-e', '-m', 'PKCS8', '-f', k.priv], { encoding: 'utf8' });
    expect(pem).toContain('PUBLIC KEY'); // ssh-keygen -e exports the public half; convert the private key instead:
    execFileSync('ssh-keygen', ['-p', '-N', '', '-m', 'PEM', '-f', k.priv], { stdio: 'pipe' });
    const privPem = execFileSync('cat', [k.priv], { encoding: 'utf8' });
    expect(privPem).toContain('BEGIN EC PRIVATE KEY');
    const r = await call(svc.app, 'POST', '/v1/ssh/config/ca', {
      token: svc.root,
      body: { generate_signing_key: false, private_key: privPem, public_key: k.pubText },
    });
    expect(r.status).toBe(204);
  });

  it.each([
    [
      "a public key that is not the private key's",
      () => ({ private_key: keygen(dir, 'ed25519').privText, public_key: keygen(dir, 'ed25519').pubText }),
      /public_key does not match private_key/,
    ],
    [
      'a malformed private key',
      () => ({
        private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n',
        public_key: keygen(dir, 'ed25519').pubText,
      }),
      /private_key is not a valid unencrypted private key/,
    ],
    [
      'garbage as a private key',
      () => ({ private_key: 'hello', public_key: keygen(dir, 'ed25519').pubText }),
      /private_key is not a valid/,
    ],
    [
      'a malformed public key',
      () => ({ private_key: keygen(dir, 'ed25519').privText, public_key: 'ssh-ed25519 AAAA!!' }),
      /public_key is not a valid SSH public key/,
    ],
    ['only a private key', () => ({ private_key: keygen(dir, 'ed25519').privText }), /missing public_key/],
    [
      'keys with generate_signing_key true',
      () => ({ ...pair(), generate_signing_key: true }),
      /must not be set when generate_signing_key is true/,
    ],
    ['a 1024-bit RSA key', () => pair('rsa', 1024), /RSA keys shorter than 2048 bits are refused/],
    ['a DSA key', () => pair('dsa'), /unsupported key type|not a valid/],
  ])('refuses %s', async (_what, body, message) => {
    const r = await call(svc.app, 'POST', '/v1/ssh/config/ca', { token: svc.root, body: body() });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(message);
  });
});

function pair(type: 'rsa' | 'ecdsa' | 'ed25519' | 'dsa' = 'ed25519', bits?: number) {
  const k = keygen(dir, type, bits);
  return { private_key: k.privText, public_key: k.pubText };
}
