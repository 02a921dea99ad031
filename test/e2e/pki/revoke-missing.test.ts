/**
 * Revocation of a certificate that is not stored: 400 naming the serial on the wire, and a
 * lease whose certificate is gone (tidied) revokes quietly. Both used to hang on an error's
 * class name and message text; they now hang on NotFoundError.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { certKey } from '../../../lib/pki/repository';
import { parseSerial } from '../../../lib/pki/serial';
import { mountPartition } from '../../../lib/mount-partition';
import { call, createTestService, type TestService } from '../../helpers/service';

let svc: TestService;
let caSerial = '';
let caIssuerId = '';
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  const r = await post('pki/root/generate/internal', { common_name: 'Revoke Root', ttl: '8760h', key_type: 'ec' });
  expect(r.status, r.text).toBe(200);
  caSerial = r.json!.data.serial_number as string;
  caIssuerId = r.json!.data.issuer_id as string;
  const w = await post('pki/roles/leased', {
    allowed_domains: 'example.com',
    allow_subdomains: true,
    key_type: 'ec',
    generate_lease: true,
    ttl: '1h',
  });
  expect(w.status, w.text).toBe(200);
});

describe('revoking a missing certificate', () => {
  it('answers 400 naming the serial, as the reference does', async () => {
    const r = await post('pki/revoke', { serial_number: '0a:0b:0c' });
    expect(r.status).toBe(400);
    expect(r.json!.errors).toEqual(['certificate with serial 0a:0b:0c not found']);
  });

  it('revokes a lease whose certificate is gone without an error', async () => {
    const r = await post('pki/issue/leased', { common_name: 'gone.example.com' });
    expect(r.status, r.text).toBe(200);
    const serial = r.json!.data.serial_number as string;
    await mountPartition(svc.deps, 'pki', 'pki').delete(certKey(parseSerial(serial)));
    expect((await call(svc.app, 'GET', `/v1/pki/cert/${serial}`)).status).toBe(404);
    const rev = await call(svc.app, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: r.json!.lease_id } });
    expect(rev.status, rev.text).toBe(204);
    const look = await call(svc.app, 'PUT', '/v1/sys/leases/lookup', { token: svc.root, body: { lease_id: r.json!.lease_id } });
    expect(look.status).toBe(400);
  });

  it('still refuses a lease revocation for another failure (the CA cannot revoke itself)', async () => {
    expect(caSerial).toMatch(/^[0-9a-f:]+$/);
    expect(caIssuerId).toMatch(/^[0-9a-f-]{36}$/);
    const revoke = pkiEngine.revoker!(svc.deps);
    await expect(revoke({ mount: 'pki', revoke: { serial: caSerial } } as never)).rejects.toThrow(/own CRL/);
    expect(await post('pki/revoke', { serial_number: caSerial })).toMatchObject({
      status: 400,
      json: { errors: [`adding issuer (id: ${caIssuerId}) to its own CRL is not allowed`] },
    });
  });

  it('concurrent revocations of one serial all succeed with the first revocation time', async () => {
    const r = await post('pki/issue/leased', { common_name: 'twice.example.com' });
    const serial = r.json!.data.serial_number as string;
    const all = await Promise.all(Array.from({ length: 6 }, () => post('pki/revoke', { serial_number: serial })));
    expect(all.map((a) => a.status)).toEqual(Array.from({ length: 6 }, () => 200));
    const times = new Set(all.map((a) => a.json!.data.revocation_time));
    expect(times.size).toBe(1);
  });
});
