/**
 * SSH issuers through the app (OpenBao 2.3's API): several CA keys per mount, the default, roles
 * choosing theirs, certificates signed by the right key (ssh-keygen -L), the refusals, the
 * trusted-keys file, and a mount written by the previous release migrated on first use.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountPartition } from '../../../lib/mount-partition';
import { parsePrivateKey } from '../../../lib/ssh/ca-key';
import { publicLine } from '../../../lib/ssh/ssh-key';
import type { TestService } from '../../helpers/service';
import { tokenWith } from '../../helpers/service';
import { certInfo, field, keygen, tempDir } from '../../helpers/ssh-keys';
import { call, sign, sshService, writeRole } from './setup';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `SHA256:...` of a public key line, as ssh-keygen prints it. */
function fingerprint(line: string): string {
  const file = join(dir, `k-${randomBytes(4).toString('hex')}.pub`);
  writeFileSync(file, line);
  return execFileSync('ssh-keygen', ['-l', '-f', file], { encoding: 'utf8' }).split(' ')[1]!;
}

/** The fingerprint of the CA that signed a certificate (`Signing CA:` of ssh-keygen -L). */
const signingCa = (cert: string) => field(certInfo(cert), 'Signing CA').split(' ')[1];

const asRoot = (svc: TestService, method: string, path: string, body?: Record<string, unknown>) =>
  call(svc.app, method, `/v1/ssh/${path}`, { token: svc.root, ...(body ? { body } : {}) });

async function must(svc: TestService, method: string, path: string, body?: Record<string, unknown>) {
  const r = await asRoot(svc, method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r;
}

describe('several CA keys on one mount', () => {
  let svc: TestService;
  let first: { issuer_id: string; public_key: string };
  let next: { issuer_id: string; public_key: string };
  const user = keygen(dir, 'ed25519');

  beforeAll(async () => {
    svc = await sshService();
    first = (await must(svc, 'POST', 'config/ca', { key_type: 'ed25519' })).json!.data;
    next = (await must(svc, 'POST', 'issuers/import/next', { key_type: 'ec', key_bits: 256 })).json!.data;
    await writeRole(svc, 'plain', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' });
    await writeRole(svc, 'pinned', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', issuer_ref: 'next' });
  });

  it('config/ca made the first issuer (no name) and the default; an import is not the default', async () => {
    expect(first).toMatchObject({ issuer_name: '', public_key: expect.stringMatching(/^ssh-ed25519 /) });
    expect(next).toMatchObject({ issuer_name: 'next', public_key: expect.stringMatching(/^ecdsa-sha2-nistp256 /) });
    const list = await call(svc.app, 'LIST', '/v1/ssh/issuers', { token: svc.root });
    expect(list.json!.data.keys).toEqual([first.issuer_id, next.issuer_id].sort());
    expect(list.json!.data.key_info).toEqual({
      [first.issuer_id]: { issuer_name: '', is_default: true, public_key: first.public_key },
      [next.issuer_id]: { issuer_name: 'next', is_default: false, public_key: next.public_key },
    });
    expect((await asRoot(svc, 'GET', 'config/issuers')).json!.data).toEqual({ default: first.issuer_id });
    expect((await asRoot(svc, 'GET', 'config/ca')).json!.data).toEqual(first);
    expect((await call(svc.app, 'GET', '/v1/ssh/public_key')).text).toBe(first.public_key);
  });

  it('reads an issuer by id, name or default; its public key without a token', async () => {
    for (const ref of [next.issuer_id, 'next']) expect((await asRoot(svc, 'GET', `issuer/${ref}`)).json!.data).toEqual(next);
    expect((await asRoot(svc, 'GET', 'issuer/default')).json!.data).toEqual(first);
    const pub = await call(svc.app, 'GET', '/v1/ssh/issuer/next/public_key');
    expect(pub.status).toBe(200);
    expect(pub.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(pub.text).toBe(next.public_key);
  });

  it("signs with the role's issuer, else with the default's; sign names the issuer", async () => {
    const pinned = await sign(svc, 'pinned', { public_key: user.pubText, valid_principals: 'u' });
    expect(pinned.json!.data.issuer_id).toBe(next.issuer_id);
    expect(signingCa(pinned.json!.data.signed_key)).toBe(fingerprint(next.public_key));
    const plain = await sign(svc, 'plain', { public_key: user.pubText, valid_principals: 'u' });
    expect(plain.json!.data.issuer_id).toBe(first.issuer_id);
    expect(signingCa(plain.json!.data.signed_key)).toBe(fingerprint(first.public_key));
    expect((await asRoot(svc, 'GET', 'roles/pinned')).json!.data.issuer_ref).toBe('next');
    expect((await asRoot(svc, 'GET', 'roles/plain')).json!.data.issuer_ref).toBe('default');
  });

  it('public_keys lists every issuer key, the default first, without a token', async () => {
    const r = await call(svc.app, 'GET', '/v1/ssh/public_keys');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const lines = r.text.trimEnd().split('\n');
    expect(lines).toEqual([`${first.public_key.trim()} ${first.issuer_id}`, `${next.public_key.trim()} ${next.issuer_id} next`]);
  });

  it('importing a key that is there already answers its issuer with a warning', async () => {
    const k = keygen(dir, 'ed25519');
    const a = await must(svc, 'POST', 'issuers/import', { issuer_name: 'imported', private_key: k.privText, public_key: k.pubText });
    expect(a.json!.warnings).toBeNull();
    const again = await must(svc, 'POST', 'issuers/import/other', { private_key: k.privText, public_key: k.pubText });
    expect(again.json!.data).toEqual(a.json!.data);
    expect(again.json!.warnings).toEqual(['An issuer with the provided public key already exists, returning the existing issuer']);
    expect((await asRoot(svc, 'DELETE', 'issuer/imported')).status).toBe(204);
    // An empty issuer_name is no name, as in OpenBao.
    const unnamed = await must(svc, 'POST', 'issuers/import', { issuer_name: ' ', key_type: 'ed25519' });
    expect(unnamed.json!.data.issuer_name).toBe('');
    expect((await asRoot(svc, 'DELETE', `issuer/${unnamed.json!.data.issuer_id}`)).status).toBe(204);
  });

  it.each([
    ['GET', 'issuer/nobody', undefined, 404, 'unable to find issuer for reference: nobody'],
    ['GET', 'issuer/nobody/public_key', undefined, 404, 'unable to find issuer for reference: nobody'],
    ['POST', 'issuer/nobody', { issuer_name: 'x' }, 404, 'unable to find issuer for reference: nobody'],
    ['POST', 'config/issuers', { default: 'nobody' }, 400, 'unable to find issuer for reference: nobody'],
    ['POST', 'config/issuers', { default: 'default' }, 400, "invalid issuer specification; must be non-empty and can't be 'default'"],
    ['POST', 'config/issuers', {}, 400, "invalid issuer specification; must be non-empty and can't be 'default'"],
    ['POST', 'issuers/import/next', { key_type: 'ed25519' }, 400, 'issuer name already in use'],
    ['POST', 'issuers/import/default', { key_type: 'ed25519' }, 400, "reserved keyword 'default' can not be used as issuer name"],
    ['POST', 'issuer/next', { issuer_name: 'default' }, 400, "reserved keyword 'default' can not be used as issuer name"],
    ['POST', 'issuer/next', {}, 400, 'expected non-empty issuer name'],
    [
      'POST',
      'issuers/import/bad',
      { private_key: 'hello', public_key: 'ssh-ed25519 AAAA' },
      400,
      'private_key is not a valid unencrypted private key',
    ],
    ['POST', 'issuers/import/bad', { key_type: 'dsa' }, 400, 'unsupported key_type "dsa"'],
    [
      'POST',
      'roles/r',
      { key_type: 'ca', allow_user_certificates: true, issuer_ref: 'a b' },
      400,
      "invalid issuer_ref: use an issuer's id, its name or default",
    ],
    [
      'POST',
      'roles/r',
      { key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8', issuer_ref: 'next' },
      400,
      'issuer_ref applies to ca roles only',
    ],
  ] as const)('%s %s %j: %i naming the problem', async (method, path, body, status, message) => {
    const r = await asRoot(svc, method, path, body);
    expect(r.status).toBe(status);
    expect(r.json!.errors).toEqual([message]);
  });

  it('refuses to sign with an issuer_ref that names no issuer', async () => {
    await writeRole(svc, 'lost', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', issuer_ref: 'retired' });
    const r = await sign(svc, 'lost', { public_key: user.pubText, valid_principals: 'u' });
    expect(r).toMatchObject({ status: 400, json: { errors: ['unable to find issuer for reference: retired'] } });
  });

  it('needs a token for everything but the public keys', async () => {
    for (const [method, path] of [
      ['LIST', 'issuers'],
      ['GET', 'issuer/next'],
      ['POST', 'issuer/next'],
      ['DELETE', 'issuer/next'],
      ['POST', 'issuers/import/x'],
      ['GET', 'config/issuers'],
      ['POST', 'config/issuers'],
    ] as const) {
      expect([path, (await call(svc.app, method, `/v1/ssh/${path}`, method === 'POST' ? { body: {} } : {})).status]).toEqual([path, 403]);
    }
    // Policies apply as to any path: reading one issuer does not grant listing them.
    const policy = { path: { 'ssh/issuer/*': { capabilities: ['read'] } } };
    await call(svc.app, 'PUT', '/v1/sys/policy/issuer-reader', { token: svc.root, body: { policy: JSON.stringify(policy) } });
    const reader = await tokenWith(svc, ['issuer-reader']);
    expect((await call(svc.app, 'GET', '/v1/ssh/issuer/next', { token: reader })).status).toBe(200);
    expect((await call(svc.app, 'LIST', '/v1/ssh/issuers', { token: reader })).status).toBe(403);
    expect((await call(svc.app, 'POST', '/v1/ssh/issuer/next', { token: reader, body: { issuer_name: 'x' } })).status).toBe(403);
  });
});

describe('rotating the default', () => {
  it('switches the default, renames with a warning for roles that named the old name, deletes the old default as OpenBao does', async () => {
    const svc = await sshService();
    const old = (await must(svc, 'POST', 'config/ca', { key_type: 'ed25519' })).json!.data;
    const fresh = (await must(svc, 'POST', 'issuers/import/fresh', { key_type: 'ed25519' })).json!.data;
    await must(svc, 'POST', `issuer/${old.issuer_id}`, { issuer_name: 'old' });
    await writeRole(svc, 'plain', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' });
    await writeRole(svc, 'on-old', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', issuer_ref: 'old' });
    const switched = await must(svc, 'POST', 'config/issuers', { default: 'fresh' });
    expect(switched.json!.data).toEqual({ default: fresh.issuer_id });
    expect(switched.json!.warnings).toEqual([
      `Previous default (${old.issuer_id}) has been updated with the issuer 'fresh' (resolved to ${fresh.issuer_id})`,
    ]);
    expect((await must(svc, 'POST', 'config/issuers', { default: fresh.issuer_id })).json!.warnings).toEqual([
      'The default issuer is already set to the specified issuer.',
    ]);
    expect((await call(svc.app, 'GET', '/v1/ssh/public_key')).text).toBe(fresh.public_key);

    const renamed = await must(svc, 'POST', 'issuer/old', { issuer_name: 'retired' });
    expect(renamed.json!.data).toEqual({ ...old, issuer_name: 'retired' });
    expect(renamed.json!.warnings).toEqual(["1 roles reference 'old'"]);

    const deleted = await asRoot(svc, 'DELETE', 'issuer/default');
    expect(deleted.status).toBe(200);
    expect(deleted.json!.warnings).toEqual([
      `Deleted issuer ${fresh.issuer_id} (via issuer_ref default); this was configured as the default issuer. Operations without an explicit issuer will not work until a new default is configured.`,
      "1 roles reference 'default'",
    ]);
    expect(await asRoot(svc, 'GET', 'config/issuers')).toMatchObject({
      status: 404,
      json: { errors: ['no default issuer currently configured'] },
    });
    expect((await call(svc.app, 'GET', '/v1/ssh/public_key')).status).toBe(404);
    const k = keygen(dir, 'ed25519');
    const refused = await sign(svc, 'plain', { public_key: k.pubText, valid_principals: 'u' });
    expect(refused).toMatchObject({ status: 400, json: { errors: ['no default issuer is configured on this mount (config/issuers)'] } });
    // An issuer that is not there: nothing to do, 204 as OpenBao.
    expect((await asRoot(svc, 'DELETE', `issuer/${fresh.issuer_id}`)).status).toBe(204);
    // config/ca deletes every issuer.
    expect((await asRoot(svc, 'DELETE', 'config/ca')).status).toBe(204);
    expect((await call(svc.app, 'LIST', '/v1/ssh/issuers', { token: svc.root })).status).toBe(404);
    expect((await call(svc.app, 'GET', '/v1/ssh/public_keys')).status).toBe(404);
  });
});

describe('a mount written by the previous release', () => {
  it('is migrated on first use: its CA key is the default issuer, signs, and config/ca stays for that release', async () => {
    const svc = await sshService();
    const part = mountPartition(svc.deps, 'ssh', 'ssh');
    const key = await parsePrivateKey(keygen(dir, 'ed25519').privText);
    // What the previous release's config/ca write stored: the public key line and the PKCS#8 key sealed under config/ca.
    const line = publicLine(key);
    const pem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
    const old = { public_key: line, private_key: await svc.deps.sealer.seal(pem, part.name, 'config/ca') };
    await part.put('config/ca', old);
    await writeRole(svc, 'plain', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' });

    expect((await call(svc.app, 'GET', '/v1/ssh/public_key')).text).toBe(line);
    const list = await call(svc.app, 'LIST', '/v1/ssh/issuers', { token: svc.root });
    expect(list.json!.data.keys).toHaveLength(1);
    const id = list.json!.data.keys[0] as string;
    expect(list.json!.data.key_info[id]).toEqual({ issuer_name: '', is_default: true, public_key: line });
    const k = keygen(dir, 'ed25519');
    const signed = await sign(svc, 'plain', { public_key: k.pubText, valid_principals: 'u' });
    expect(signed.json!.data.issuer_id).toBe(id);
    expect(signingCa(signed.json!.data.signed_key)).toBe(fingerprint(line));
    expect((await part.get('config/ca'))!.value).toEqual(old);
  });
});
