/** What the SSH engine's requests write to the log: no OTP, private key or token, even on failures. */
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setLogLevel } from '../../../lib/log';
import type { TestService } from '../../helpers/service';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import { freePort } from '../../helpers/sshd';
import { call, sshService, writeRole } from './setup';
import { captureLogs } from '../../helpers/capture-logs';

let svc: TestService;
const dir = tempDir();

beforeAll(async () => {
  svc = await sshService();
});
afterEach(() => {
  setLogLevel('silent');
  vi.restoreAllMocks();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SSH request logs', () => {
  it('carry no OTP, CA key, admin key, issued key or token', async () => {
    const lines = captureLogs();
    const ca = keygen(dir, 'ed25519');
    const admin = keygen(dir, 'ed25519');
    await call(svc.app, 'POST', '/v1/ssh/config/ca', { token: svc.root, body: { private_key: ca.privText, public_key: ca.pubText } });
    await call(svc.app, 'POST', '/v1/ssh/config/ca', {
      token: svc.root,
      body: { private_key: ca.privText.replace('A', 'B'), public_key: ca.pubText },
    });
    await call(svc.app, 'POST', '/v1/ssh/keys/admin', { token: svc.root, body: { key: admin.privText } });
    await call(svc.app, 'POST', '/v1/ssh/keys/bad', { token: svc.root, body: { key: admin.privText.slice(0, 200) } });
    await writeRole(svc, 'otp', { key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8' });
    const otp = (await call(svc.app, 'POST', '/v1/ssh/creds/otp', { token: svc.root, body: { ip: '10.0.0.1' } })).json!.data.key as string;
    await call(svc.app, 'POST', '/v1/ssh/verify', { body: { otp } });
    await call(svc.app, 'POST', '/v1/ssh/verify', { body: { otp } });
    await writeRole(svc, 'dyn', {
      key_type: 'dynamic',
      key: 'admin',
      admin_user: 'root',
      default_user: 'u',
      cidr_list: '127.0.0.0/8',
      port: await freePort(),
    });
    await call(svc.app, 'POST', '/v1/ssh/creds/dyn', { token: svc.root, body: { ip: '127.0.0.1' } });
    setLogLevel('silent');
    const log = lines.join('');
    expect(lines.length).toBeGreaterThanOrEqual(9);
    for (const secret of [otp, svc.root, 'PRIVATE KEY', ca.privText.split('\n')[2]!, admin.privText.split('\n')[2]!])
      expect(log).not.toContain(secret);
  });
});
