/**
 * config/crl as OpenBao has it: the CRL and OCSP settings, their defaults, a write that changes
 * only what it names, and OpenBao's refusals (a grace period or delta interval not shorter than
 * the expiry, delta CRLs without auto rebuild, a negative ocsp_expiry).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { call, createTestService, type TestService } from '../../helpers/service';

let svc: TestService;
const crl = (method: string, body?: unknown) => call(svc.app, method, '/v1/pki/config/crl', { token: svc.root, body });

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
});

describe('config/crl', () => {
  it("reads OpenBao's defaults", async () => {
    expect((await crl('GET')).json!.data).toEqual({
      expiry: '72h',
      disable: false,
      ocsp_disable: false,
      ocsp_expiry: '1h',
      auto_rebuild: false,
      auto_rebuild_grace_period: '12h',
      enable_delta: false,
      delta_rebuild_interval: '15m',
    });
  });

  it('a write changes only the fields it names and answers the whole configuration', async () => {
    const w = await crl('POST', { auto_rebuild: true, ocsp_expiry: '30m' });
    expect(w.status, w.text).toBe(200);
    expect(w.json!.data).toMatchObject({ expiry: '72h', auto_rebuild: true, ocsp_expiry: '30m', enable_delta: false });
    await crl('POST', { enable_delta: true, delta_rebuild_interval: '90s' });
    expect((await crl('GET')).json!.data).toMatchObject({
      auto_rebuild: true,
      enable_delta: true,
      delta_rebuild_interval: '90s',
      ocsp_expiry: '30m',
    });
  });

  it.each([
    [{ auto_rebuild: false }, /Delta CRLs cannot be enabled when auto rebuilding is disabled/],
    [{ expiry: '10h', auto_rebuild_grace_period: '12h' }, /grace period \(43200s\) must be strictly shorter than CRL expiry \(36000s\)/],
    [{ expiry: '1m', auto_rebuild_grace_period: '30s' }, /delta rebuild window \(90s\) must be strictly shorter than CRL expiry \(60s\)/],
    [{ ocsp_expiry: '-5s' }, /ocsp_expiry/],
    [{ expiry: 'soon' }, /expiry/],
    [{ enable_delta: 'maybe' }, /enable_delta/],
  ])('refuses %j, naming the rule, and keeps what was there', async (body, message) => {
    const before = (await crl('GET')).json!.data;
    const r = await crl('POST', body);
    expect(r.status, r.text).toBe(400);
    expect((r.json!.errors as string[]).join(' ')).toMatch(message);
    expect((await crl('GET')).json!.data).toEqual(before);
  });
});
