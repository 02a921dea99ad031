/**
 * An existing secrets-server client library, unmodified: Debian's python3-hvac (run by
 * /usr/bin/python3) drives the SSH engine over real HTTP with its generic read/write/list calls.
 */
import { createAdaptorServer } from '@hono/node-server';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
