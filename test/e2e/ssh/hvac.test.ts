/**
 * An existing secrets-server client library, unmodified: Debian's python3-hvac (run by
 * /usr/bin/python3) drives the SSH engine over real HTTP with its generic read/write/list calls,
 * and (hvac_ssh_api.py) with the requests of hvac's SSH methods, as hvac's own SSH tests make them.
 */
import { createAdaptorServer } from '@hono/node-server';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHvac } from '../../helpers/hvac';
import type { TestService } from '../../helpers/service';
import { certInfo, field, keygen, section, tempDir } from '../../helpers/ssh-keys';
import { sshService } from './setup';

const SCRIPT = `
import hvac, json, sys
url, token, pub = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
c = hvac.Client(url=url, token=token)
out = {}
out["ca"] = c.write("ssh/config/ca", key_type="ed25519")["data"]["public_key"]
c.write("ssh/roles/dev", key_type="ca", allow_user_certificates=True, allowed_users="dev,ops", default_extensions={"permit-pty": ""}, ttl="30m")
c.write("ssh/roles/otp", key_type="otp", default_user="ops", cidr_list="10.0.0.0/8")
out["roles"] = c.list("ssh/roles")["data"]
out["role"] = c.read("ssh/roles/dev")["data"]
signed = c.write("ssh/sign/dev", public_key=pub, valid_principals="dev")
out["signed"] = signed["data"]
out["lease_duration"] = signed["lease_duration"]
otp = c.write("ssh/creds/otp", ip="10.1.1.1")
out["otp_user"] = otp["data"]["username"]
anon = hvac.Client(url=url)
out["verify"] = anon.write("ssh/verify", otp=otp["data"]["key"])["data"]
try:
    c.write("ssh/sign/dev", public_key=pub, valid_principals="root")
    out["refused"] = None
except hvac.exceptions.InvalidRequest as e:
    out["refused"] = str(e)
print(json.dumps(out))
`;

let svc: TestService;
let server: ReturnType<typeof createAdaptorServer>;
const dir = tempDir();

beforeAll(async () => {
  svc = await sshService();
  server = createAdaptorServer({ fetch: svc.app.fetch });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('python3-hvac against the SSH engine', () => {
  it('generates a CA, writes roles, signs a key, issues and verifies an OTP', async () => {
    const k = keygen(dir, 'ed25519');
    const pubFile = join(dir, 'user.pub');
    writeFileSync(pubFile, k.pubText);
    const { port } = server.address() as AddressInfo;
    const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', SCRIPT, `http://127.0.0.1:${port}`, svc.root, pubFile], {
      timeout: 60_000,
    });
    const out = JSON.parse(stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(out.ca).toMatch(/^ssh-ed25519 AAAA/);
    expect(out.roles).toEqual({ keys: ['dev', 'otp'], key_info: { dev: { key_type: 'ca' }, otp: { key_type: 'otp' } } });
    expect(out.role).toMatchObject({ key_type: 'ca', allow_user_certificates: true, ttl: '30m0s' });
    expect(out.lease_duration).toBe(1800);
    const info = certInfo(out.signed.signed_key);
    expect(section(info, 'Principals')).toEqual(['dev']);
    expect(BigInt(field(info, 'Serial'))).toBe(BigInt(`0x${out.signed.serial_number}`));
    expect(out.otp_user).toBe('ops');
    expect(out.verify).toMatchObject({ ip: '10.1.1.1', username: 'ops' });
    expect(out.refused).toMatch(/root is not a valid value for valid_principals/);
  }, 60_000);
});

describe("python3-hvac through hvac's SSH methods (hvac_ssh_api.py)", () => {
  it("runs hvac's SSH integration flow: an otp role without cidr_list, zeroaddress, creds for any IP, verify, deletes", async () => {
    const own = await sshService();
    const k = keygen(dir, 'ed25519');
    const out = await runHvac(own, join(import.meta.dirname, 'hvac_ssh_api.py'), { PUBLIC_KEY: k.pubText, PRIVATE_KEY: k.privText });
    // Debian's 0.11.2 has no SSH class (hvac_ssh_class false): the script then sends that class's requests itself.
    expect(out.hvac_version).toMatch(/^\d+\.\d+/);
    const unlisted = 'IP 1.2.3.4 does not belong to role "test_role": it has no cidr_list and is not listed in config/zeroaddress';

    expect(out.create_role).toBe(204);
    expect(out.read_role).toEqual({
      allowed_users: '',
      cidr_list: '',
      default_user: 'root',
      exclude_cidr_list: '',
      key_type: 'otp',
      port: 22,
    });
    expect(out.list_roles).toEqual({ keys: ['test_role'], key_info: { test_role: { key_type: 'otp' } } });
    expect(out.creds_unlisted).toMatch(`InvalidRequest: ${unlisted}`);
    expect(out.lookup_unlisted).toEqual([]);
    expect(out.zero_unknown_role).toMatch('InvalidRequest: role "no_such_role" does not exist');
    expect(out.configure_zeroaddress).toBe(204);
    expect(out.list_zeroaddress).toEqual({ roles: ['test_role'] });
    expect(out.creds).toMatchObject({ renewable: false, data: { ip: '1.2.3.4', key_type: 'otp', port: 22, username: 'root' } });
    expect(out.creds.lease_id).toMatch(/^ssh\/creds\/test_role\//);
    expect(out.creds.lease_duration).toBeGreaterThan(0);
    expect(out.creds.data.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.creds_ipv6).toBe('2001:db8::42');
    expect(out.lookup).toEqual(['test_role']);
    expect(out.verify).toEqual({ ip: '1.2.3.4', username: 'root', role_name: 'test_role' });
    expect(out.verify_again).toMatch('InvalidRequest: OTP not found');

    expect(out.delete_zeroaddress).toBe(204);
    expect(out.zeroaddress_after_delete).toMatch(/^InvalidPath/);
    expect(out.creds_after_zero_delete).toMatch(`InvalidRequest: ${unlisted}`);
    expect(out.delete_role).toBe(204);
    expect(out.zeroaddress_after_role_delete).toMatch(/^InvalidPath/);
    expect(out.creds_recreated_role).toMatch(`InvalidRequest: ${unlisted}`);

    expect([out.create_key, out.delete_key, out.delete_ca]).toEqual([204, 204, 204]);
    expect(out.ca_public_key).toMatch(/^ssh-rsa AAAA\S+\n$/);
    expect(out.sign_default_user).toMatch('InvalidRequest: root is not a valid value for valid_principals');
  }, 120_000);
});

describe("python3-hvac through OpenBao's SSH issuer API (hvac_ssh_issuers.py)", () => {
  it('submits, lists, reads, renames and deletes issuers, sets the default, signs with a role pinned to an issuer', async () => {
    const own = await sshService();
    const ca = keygen(dir, 'ed25519');
    const user = keygen(dir, 'ed25519');
    const out = await runHvac(own, join(import.meta.dirname, 'hvac_ssh_issuers.py'), {
      CA_PRIVATE_KEY: ca.privText,
      CA_PUBLIC_KEY: ca.pubText,
      USER_PUBLIC_KEY: user.pubText,
    });
    const first = out.config_ca as { issuer_id: string; issuer_name: string; public_key: string };
    expect(first).toMatchObject({ issuer_name: '', public_key: expect.stringMatching(/^ssh-ed25519 AAAA\S+\n$/) });
    expect(out.read_config_ca).toEqual(first);
    const next = out.import_generated as typeof first;
    expect(next).toMatchObject({ issuer_name: 'next', public_key: expect.stringMatching(/^ecdsa-sha2-nistp256 /) });
    const imported = out.import_submitted as typeof first;
    expect(imported).toMatchObject({ issuer_name: 'imported', public_key: `${ca.pubText.split(' ').slice(0, 2).join(' ')}\n` });
    const ids = [first, next, imported].map((i) => i.issuer_id);
    expect(out.list.keys).toEqual([...ids].sort());
    expect(out.list.key_info[first.issuer_id]).toEqual({ issuer_name: '', is_default: true, public_key: first.public_key });
    expect(out.read_by_name).toEqual(next);
    expect(out.update).toEqual({ ...next, issuer_name: 'current' });
    expect(out.issuer_public_key).toBe(next.public_key);
    expect(out.default_before).toEqual({ default: first.issuer_id });
    expect(out.set_default).toEqual({
      data: { default: next.issuer_id },
      warnings: [`Previous default (${first.issuer_id}) has been updated with the issuer 'current' (resolved to ${next.issuer_id})`],
    });
    expect(out.public_key).toBe(next.public_key);
    expect((out.public_keys as string).trimEnd().split('\n')).toHaveLength(3);
    expect((out.public_keys as string).split('\n')[0]).toBe(`${next.public_key.trim()} ${next.issuer_id} current`);
    expect(out.role_issuer_ref).toBe('imported');
    expect(out.signed_issuer).toBe(imported.issuer_id);
    expect(out.name_taken).toMatch(/^InvalidRequest: issuer name already in use/);
    expect(out.unknown_ref).toMatch(/^InvalidPath: unable to find issuer for reference: nobody/);
    expect(out.delete_issuer).toEqual(["1 roles reference 'imported'"]);
    expect(out.delete_ca).toBe(204);
    expect(out.after_delete).toMatch(/^InvalidPath/);
  }, 120_000);
});
