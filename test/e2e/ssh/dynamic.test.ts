/** Dynamic keys installed on a real sshd over SSH (ssh2), used to log in, and uninstalled on revocation. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../../../lib/sys/sweeper';
import type { TestService } from '../../helpers/service';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import { ensureUser, freePort, sshLogin, startSshd, type Sshd } from '../../helpers/sshd';
import { call, sshService, writeRole } from './setup';

const USER = 'lkdyn';
const dir = tempDir();
let svc: TestService;
let sshd: Sshd;
let home: string;

beforeAll(async () => {
  home = ensureUser(USER);
  rmSync(join(home, '.ssh'), { recursive: true, force: true });
  sshd = await startSshd();
  const admin = keygen(dir, 'ed25519');
  writeFileSync(join(sshd.keysDir, 'root'), admin.pubText);
  svc = await sshService();
  expect((await call(svc.app, 'POST', '/v1/ssh/keys/admin', { token: svc.root, body: { key: admin.privText } })).status).toBe(204);
}, 30_000);
afterAll(async () => {
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const creds = (role: string, body: Record<string, unknown> = { ip: '127.0.0.1' }) =>
  call(svc.app, 'POST', `/v1/ssh/creds/${role}`, { token: svc.root, body });
const authorizedKeys = () =>
  existsSync(join(home, '.ssh/authorized_keys')) ? readFileSync(join(home, '.ssh/authorized_keys'), 'utf8') : '';
const revoke = (leaseId: string) => call(svc.app, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: leaseId } });

function keyFile(pem: string): string {
  const file = join(dir, `dyn-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, pem);
  chmodSync(file, 0o600);
  return file;
}

describe('dynamic keys with the built-in install script', () => {
  it('installs a generated key (with key_option_specs), logs in with it, and revocation uninstalls it', async () => {
    await writeRole(svc, 'dyn', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'root',
      default_user: USER,
      cidr_list: '127.0.0.0/8',
      port: sshd.port,
      key_option_specs: 'no-agent-forwarding,no-X11-forwarding',
    });
    const r = await creds('dyn');
    expect(r.status).toBe(200);
    expect(r.json!.lease_id).toMatch(/^ssh\/creds\/dyn\//);
    expect(r.json!.data).toMatchObject({
      key_type: 'dynamic',
      admin_user: 'root',
      default_user: USER,
      username: USER,
      ip: '127.0.0.1',
      port: sshd.port,
      key_bits: 1024,
    });
    const pem = r.json!.data.key as string;
    expect(pem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const installed = authorizedKeys();
    expect(installed).toMatch(/^no-agent-forwarding,no-X11-forwarding ssh-rsa AAAA\S+$/m);
    const key = keyFile(pem);
    const ok = await sshLogin({ port: sshd.port, user: USER, key });
    expect(ok.stderr).not.toMatch(/Permission denied/);
    expect(ok.stdout.trim()).toBe(`logged-in-as-${USER}`);

    expect((await revoke(r.json!.lease_id)).status).toBe(204);
    expect(authorizedKeys()).not.toContain(installed.trim());
    expect((await sshLogin({ port: sshd.port, user: USER, key })).code).not.toBe(0);
  }, 60_000);

  it('keeps other keys; revocation is idempotent', async () => {
    await writeRole(svc, 'dyn2', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'root',
      default_user: USER,
      cidr_list: '127.0.0.1/32',
      port: sshd.port,
      key_bits: 2048,
    });
    const a = await creds('dyn2');
    const b = await creds('dyn2');
    expect([a.status, b.status]).toEqual([200, 200]);
    const lease = await svc.deps.leases.lookup(a.json!.lease_id);
    expect(lease.revoke).toMatchObject({ kind: 'dynamic', phase: 'installed' });
    const revoker = (await svc.deps.revokers.get('ssh'))!;
    await revoker(lease);
    await revoker(lease); // again: nothing to remove, still succeeds
    expect((await sshLogin({ port: sshd.port, user: USER, key: keyFile(a.json!.data.key) })).code).not.toBe(0);
    expect((await sshLogin({ port: sshd.port, user: USER, key: keyFile(b.json!.data.key) })).code).toBe(0);
    expect((await revoke(a.json!.lease_id)).status).toBe(204);
    expect((await revoke(b.json!.lease_id)).status).toBe(204);
  }, 60_000);
});

describe('a dynamic role without cidr_list', () => {
  it('installs nothing until listed in config/zeroaddress, then installs a key it logs in with', async () => {
    await writeRole(svc, 'anyhost', { key_type: 'dynamic', key: 'admin', admin_user: 'root', default_user: USER, port: sshd.port });
    const before = authorizedKeys();
    const refused = await creds('anyhost');
    expect(refused).toMatchObject({
      status: 400,
      json: { errors: ['IP 127.0.0.1 does not belong to role "anyhost": it has no cidr_list and is not listed in config/zeroaddress'] },
    });
    expect(authorizedKeys()).toBe(before);
    expect(await svc.deps.leases.list('ssh/creds/anyhost/')).toEqual([]);

    const zero = await call(svc.app, 'POST', '/v1/ssh/config/zeroaddress', { token: svc.root, body: { roles: 'anyhost' } });
    expect(zero.status).toBe(204);
    const r = await creds('anyhost');
    expect(r).toMatchObject({ status: 200, json: { data: { key_type: 'dynamic', ip: '127.0.0.1', cidr_list: '' } } });
    const key = keyFile(r.json!.data.key);
    expect((await sshLogin({ port: sshd.port, user: USER, key })).code).toBe(0);
    expect((await revoke(r.json!.lease_id)).status).toBe(204);
    expect((await sshLogin({ port: sshd.port, user: USER, key })).code).not.toBe(0);
    expect((await call(svc.app, 'DELETE', '/v1/ssh/config/zeroaddress', { token: svc.root })).status).toBe(204);
  }, 60_000);
});

describe('dynamic keys at lease expiry', () => {
  it('the sweeper uninstalls an expired key', async () => {
    await writeRole(svc, 'short', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'root',
      default_user: USER,
      cidr_list: '127.0.0.0/8',
      port: sshd.port,
      ttl: '1s',
      max_ttl: '1s',
    });
    const r = await creds('short');
    expect(r.json!.lease_duration).toBe(1);
    const key = keyFile(r.json!.data.key);
    expect((await sshLogin({ port: sshd.port, user: USER, key })).code).toBe(0);
    await new Promise((ok) => setTimeout(ok, 2100));
    expect(await sweep(svc.deps, 5000)).toMatchObject({ leasesFailed: 0 });
    await expect(svc.deps.leases.lookup(r.json!.lease_id)).rejects.toThrow('invalid lease');
    expect((await sshLogin({ port: sshd.port, user: USER, key })).code).not.toBe(0);
  }, 60_000);
});

describe('dynamic keys with a role install script', () => {
  // Written for the reference interface: install|uninstall <public key file> <authorized_keys path>,
  // run in the directory holding the key file (it builds temp_<key file> next to it).
  const referenceScript = (argsLog: string) => `#!/bin/bash
printf '%s\\n' "$@" > ${argsLog}
if [ "$1" != install ] && [ "$1" != uninstall ]; then exit 1; fi
INSTALL_OPTION=$1
PUBLIC_KEY_FILE=$2
AUTH_KEYS_FILE=$3
mkdir -p "$(dirname "$AUTH_KEYS_FILE")"
touch "$AUTH_KEYS_FILE"
grep -vFf "$PUBLIC_KEY_FILE" "$AUTH_KEYS_FILE" > "temp_$PUBLIC_KEY_FILE" || true
cat "temp_$PUBLIC_KEY_FILE" | tee "$AUTH_KEYS_FILE" > /dev/null
if [ "$INSTALL_OPTION" == install ]; then cat "$PUBLIC_KEY_FILE" | tee --append "$AUTH_KEYS_FILE" > /dev/null; fi
rm -f "temp_$PUBLIC_KEY_FILE"
`;

  it('runs a script written for the reference with install|uninstall <key file> <authorized_keys path>', async () => {
    const argsLog = join(dir, 'script-args');
    const auth = join(home, '.ssh/authorized_keys');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(auth, 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOtherKeyStaysHereXXXXXXXXXXXXXXXXXXXXXXXX other\n');
    execFileSync('chown', ['-R', `${USER}:`, join(home, '.ssh')]);
    await writeRole(svc, 'scripted', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'root',
      default_user: USER,
      cidr_list: '127.0.0.0/8',
      port: sshd.port,
      install_script: referenceScript(argsLog),
    });
    const r = await creds('scripted');
    expect(r.status).toBe(200);
    const args = readFileSync(argsLog, 'utf8').trim().split('\n');
    expect(args).toEqual(['install', 'key.pub', auth]);
    expect(authorizedKeys()).toMatch(/^ssh-rsa AAAA/m);
    expect(authorizedKeys()).toContain('other');
    expect(existsSync(join(sshd.keysDir, USER))).toBe(false);
    const key = keyFile(r.json!.data.key);
    expect((await sshLogin({ port: sshd.port, user: USER, key })).code).toBe(0);

    expect((await revoke(r.json!.lease_id)).status).toBe(204);
    expect(readFileSync(argsLog, 'utf8').trim().split('\n')).toEqual(['uninstall', 'key.pub', auth]);
    expect(authorizedKeys()).not.toMatch(/ssh-rsa/);
    expect(authorizedKeys()).toContain('other');
    expect((await sshLogin({ port: sshd.port, user: USER, key })).code).not.toBe(0);
  }, 60_000);
});

describe('dynamic keys: failures leave no lease behind', () => {
  const leasesOf = (role: string) => svc.deps.leases.list(`ssh/creds/${role}/`);

  it('a host that refuses the connection', async () => {
    await writeRole(svc, 'closed', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'root',
      default_user: USER,
      cidr_list: '127.0.0.0/8',
      port: await freePort(),
    });
    const r = await creds('closed');
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/^failed to connect to root@127.0.0.1:\d+: .*ECONNREFUSED/);
    expect(await leasesOf('closed')).toEqual([]);
  }, 30_000);

  it('an admin user the host does not accept', async () => {
    await writeRole(svc, 'wrongadmin', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'nobody',
      default_user: USER,
      cidr_list: '127.0.0.0/8',
      port: sshd.port,
    });
    const r = await creds('wrongadmin');
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/^failed to connect to nobody@127.0.0.1:\d+: All configured authentication methods failed/);
    expect(await leasesOf('wrongadmin')).toEqual([]);
  }, 30_000);

  it('a script that fails', async () => {
    await writeRole(svc, 'failing', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'root',
      default_user: USER,
      cidr_list: '127.0.0.0/8',
      port: sshd.port,
      install_script: '#!/bin/sh\necho "disk full" >&2\nexit 3\n',
    });
    const r = await creds('failing');
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/^the install script failed on root@127.0.0.1:\d+ \(exit 3\): disk full$/);
    expect(await leasesOf('failing')).toEqual([]);
  }, 30_000);

  it('a user that does not exist on the host (built-in script)', async () => {
    await writeRole(svc, 'nouser', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'root',
      default_user: 'no-such-user-lk',
      cidr_list: '127.0.0.0/8',
      port: sshd.port,
    });
    const r = await creds('nouser');
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/no such user: no-such-user-lk/);
    expect(await leasesOf('nouser')).toEqual([]);
  }, 30_000);

  it('an IP outside the role and a deleted admin key', async () => {
    expect((await creds('dyn', { ip: '10.0.0.1' })).json!.errors[0]).toMatch(/does not belong to role "dyn"/);
    await call(svc.app, 'POST', '/v1/ssh/keys/temp', { token: svc.root, body: { key: keygen(dir, 'ed25519').privText } });
    await writeRole(svc, 'orphan', {
      key_type: 'dynamic',
      key: 'temp',
      admin_user: 'root',
      default_user: USER,
      cidr_list: '127.0.0.0/8',
      port: sshd.port,
    });
    await call(svc.app, 'DELETE', '/v1/ssh/keys/temp', { token: svc.root });
    expect(await creds('orphan')).toMatchObject({ status: 400, json: { errors: ['key "temp" is not registered'] } });
    expect(await leasesOf('orphan')).toEqual([]);
  });
});
