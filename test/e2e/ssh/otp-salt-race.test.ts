/**
 * The per-mount OTP salt is created on first use with a conditional create: concurrent first
 * users lose the create (ExistsError, matched by class) and read the winner's salt.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service';
import { call, sshService, writeRole } from './setup';

let svc: TestService;

beforeAll(async () => {
  svc = await sshService();
  await writeRole(svc, 'otp', { key_type: 'otp', default_user: 'ubuntu', cidr_list: '10.0.0.0/8' });
});

describe('otp salt race', () => {
  it('concurrent first credentials all succeed, and every OTP verifies once', async () => {
    const issued = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(svc.app, 'POST', '/v1/ssh/creds/otp', { token: svc.root, body: { ip: `10.0.0.${i + 1}` } })),
    );
    expect(issued.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 200));
    for (const [i, r] of issued.entries()) {
      const v = await call(svc.app, 'POST', '/v1/ssh/verify', { body: { otp: r.json!.data.key } });
      expect(v).toMatchObject({ status: 200, json: { data: { ip: `10.0.0.${i + 1}` } } });
    }
  });
});
