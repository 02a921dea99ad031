/** Tidy: asynchronous, reported by tidy-status, paged through the expiry indexes, resumable. */
import { beforeAll, describe, expect, it } from 'vitest';
import { autoTidy } from '../../../lib/pki/auto-tidy';
import { pkiEngine } from '../../../lib/pki/engine';
import { PkiRepository } from '../../../lib/pki/repository';
import { mountPartition } from '../../../lib/mount-partition';
import { CERT_INDEX, expiryIndexSort } from '../../../lib/pki/storage';
import { claimTidy, runTidy, tidyStatus } from '../../../lib/pki/tidy';
import { call, createTestService, type TestService } from '../../helpers/service';
import { text, verifyCrl } from '../../helpers/openssl';

/** A tidy of the certificate store only, claimed directly. */
const CERT_STORE_ONLY = { tidyCertStore: true, tidyRevokedCerts: false, safetyBuffer: 0, tidyAcme: false, acmeAccountSafetyBuffer: 0 };
let svc: TestService;
let clock = Date.now();
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });
const status = async (mount = 'pki') => (await call(svc.app, 'GET', `/v1/${mount}/tidy-status`, { token: svc.root })).json!.data;

async function finished(mount = 'pki') {
  for (let i = 0; i < 600; i++) {
    const s = await status(mount);
    if (s.state !== 'Running') return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('tidy did not finish');
}

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine], now: () => clock });
  await post('pki/root/generate/internal', { common_name: 'Tidy Root', key_type: 'ec', ttl: '87600h' });
  await post('pki/roles/short', { allow_any_name: true, key_type: 'ec', ttl: '1h' });
});

describe('tidy', () => {
  it('reports Inactive before any tidy', async () => {
    expect(await status('pki_int')).toMatchObject({
      state: 'Inactive',
      error: null,
      time_started: null,
      time_finished: null,
      cert_store_deleted_count: 0,
    });
  });

  it('removes expired certificates and revocations after the safety buffer, reporting progress', async () => {
    const issued = [];
    for (let i = 0; i < 6; i++)
      issued.push((await post('pki/issue/short', { common_name: `t${i}.example.com` })).json!.data.serial_number as string);
    await post('pki/revoke', { serial_number: issued[0] });
    clock += 2 * 3600_000; // all six expired an hour ago
    const keeper = (await post('pki/issue/short', { common_name: 'keep.example.com' })).json!.data.serial_number as string;
    await post('pki/revoke', { serial_number: keeper });
    // Within the (default 72h) buffer nothing goes.
    const r0 = await post('pki/tidy', { tidy_cert_store: true, tidy_revoked_certs: true });
    expect(r0.status).toBe(202);
    const s0 = await finished();
    expect(s0).toMatchObject({ state: 'Finished', cert_store_deleted_count: 0, revoked_cert_deleted_count: 0, safety_buffer: 259200 });
    const r = await post('pki/tidy', { tidy_cert_store: true, tidy_revoked_certs: true, safety_buffer: '30m' });
    expect(r.status).toBe(202);
    expect(r.json!.warnings[0]).toMatch(/Tidy operation successfully started/);
    const s = await finished();
    expect(s).toMatchObject({
      state: 'Finished',
      error: null,
      tidy_cert_store: true,
      tidy_revoked_certs: true,
      safety_buffer: 1800,
      revoked_cert_deleted_count: 1,
    });
    // The root is in the store too, but expires in ten years.
    expect(s.cert_store_deleted_count).toBe(6);
    expect(s.message).toMatch(/^Tidying (certificate store: checking entry|revoked certificates: checking certificate) \d+ of \d+$/);
    expect(Date.parse(s.time_started)).toBeLessThanOrEqual(Date.parse(s.time_finished));
    for (const serial of issued) expect((await call(svc.app, 'GET', `/v1/pki/cert/${serial}`)).status).toBe(404);
    expect((await call(svc.app, 'GET', `/v1/pki/cert/${keeper}`)).status).toBe(200);
    // The CRL was rotated: only the unexpired revocation is left, and it verifies.
    const crl = (await call(svc.app, 'GET', '/v1/pki/crl/pem')).text;
    const ca = (await call(svc.app, 'GET', '/v1/pki/ca/pem')).text;
    expect(verifyCrl(crl, ca).ok).toBe(true);
    const listed = text(crl, 'crl');
    expect(listed).toContain(keeper.replace(/:/g, '').toUpperCase());
    expect(listed).not.toContain(issued[0]!.replace(/:/g, '').toUpperCase());
  });

  it('refuses a second tidy while one runs, with a warning', async () => {
    const part = mountPartition(svc.deps, 'pki', 'pki_int');
    expect(await claimTidy(svc.deps, part, CERT_STORE_ONLY)).toBe(true);
    const r = await post('pki_int/tidy', { tidy_cert_store: true });
    expect(r.status).toBe(202);
    expect(r.json!.warnings).toEqual(['Tidy operation already in progress.']);
    expect((await status('pki_int')).state).toBe('Running');
    await runTidy(svc.deps, part);
    expect((await status('pki_int')).state).toBe('Finished');
  });

  it('config/auto-tidy: the schedule starts a due tidy with the configured options, then waits an interval', async () => {
    const w = await post('pki/config/auto-tidy', { enabled: true, interval_duration: '1h', tidy_cert_store: true, safety_buffer: '1s' });
    expect(w.status).toBe(204);
    expect((await call(svc.app, 'GET', '/v1/pki/config/auto-tidy', { token: svc.root })).json!.data).toMatchObject({
      enabled: true,
      interval_duration: 3600,
      tidy_cert_store: true,
      safety_buffer: 1,
    });
    const serial = (await post('pki/issue/short', { common_name: 'auto.example.com' })).json!.data.serial_number as string;
    clock += 2 * 3600_000;
    const first = (await autoTidy(svc.deps, Date.now() + 30_000)).find((r) => r.mount === 'pki');
    expect(first).toMatchObject({ ran: true, finished: true });
    expect((await call(svc.app, 'GET', `/v1/pki/cert/${serial}`)).status).toBe(404);
    expect(await status()).toMatchObject({ state: 'Finished', tidy_cert_store: true, safety_buffer: 1 });
    expect((await autoTidy(svc.deps, Date.now() + 30_000)).find((r) => r.mount === 'pki')).toMatchObject({ ran: false });
    await post('pki/config/auto-tidy', { enabled: false });
  });

  it('counts stored certificates across the count shards, and not no_store ones', async () => {
    const part = mountPartition(svc.deps, 'pki', 'pki');
    await post('pki/roles/unstored', { allow_any_name: true, key_type: 'ec', ttl: '1h', no_store: true });
    const before = await new PkiRepository(svc.deps, part).certificateCount();
    await Promise.all(Array.from({ length: 40 }, (_, i) => post('pki/issue/short', { common_name: `count${i}.example.com` })));
    await post('pki/issue/unstored', { common_name: 'nocount.example.com' });
    expect(await new PkiRepository(svc.deps, part).certificateCount()).toBe(before + 40);
    const shards = (await part.listKeys('count/certs/', { limit: 100 })).items;
    expect(shards.length).toBeGreaterThan(1);
  });

  it('rejects bad tidy input', async () => {
    expect((await post('pki/tidy', { safety_buffer: 'soon' })).status).toBe(400);
    expect((await post('pki/tidy', { tidy_cert_store: 'maybe' })).status).toBe(400);
  });

  const BIG = Number(process.env.PKI_TIDY_COUNT ?? 100_000);
  it(`finishes for ${BIG} certificates, paged, continuing across invocations`, { timeout: 900_000 }, async () => {
    const part = mountPartition(svc.deps, 'pki', 'pki_int');
    const expired = clock - 10 * 86_400_000;
    const rows = Array.from({ length: BIG }, (_, i) => {
      const serial = (0x4000000000n + BigInt(i)).toString(16);
      return {
        key: `cert/${serial}`,
        value: { der: 'MA==', notAfter: expired },
        index: { name: CERT_INDEX, sort: expiryIndexSort(expired, serial) },
      };
    });
    for (let i = 0; i < rows.length; i += 2500)
      await Promise.all(Array.from({ length: 5 }, (_, j) => part.batchPut(rows.slice(i + j * 500, i + (j + 1) * 500))));
    // The count as an earlier version kept it (one item) plus the sharded count: both are summed.
    await part.increment('count/certs', 5);
    await new PkiRepository(svc.deps, part).countCertificates(BIG - 5);
    expect(await claimTidy(svc.deps, part, CERT_STORE_ONLY)).toBe(true);
    // The first invocation runs out of time after its first page (a Lambda at its limit).
    expect(await runTidy(svc.deps, part, Date.now())).toBe(false);
    const partial = await tidyStatus(part);
    expect(partial.state).toBe('Running');
    expect(partial.certStoreDeletedCount).toBe(500);
    expect(partial.certStoreDeletedCount).toBeLessThan(BIG);
    expect(partial.message).toBe(`Tidying certificate store: checking entry ${partial.certStoreDeletedCount} of ${BIG}`);
    // While its heartbeat is fresh, the schedule leaves it alone; once stale, it takes over and finishes.
    expect((await autoTidy(svc.deps, Date.now() + 60_000)).find((r) => r.mount === 'pki_int')).toMatchObject({ ran: false });
    clock += 5 * 60_000;
    let runs = 0;
    for (;;) {
      runs++;
      const out = (await autoTidy(svc.deps, Date.now() + 600_000)).find((r) => r.mount === 'pki_int');
      if (out?.finished) break;
      clock += 5 * 60_000;
      if (runs > 20) throw new Error('tidy never finished');
    }
    const s = await tidyStatus(part);
    expect(s.state).toBe('Finished');
    expect(s.certStoreDeletedCount).toBe(BIG);
    expect(s.message).toBe(`Tidying certificate store: checking entry ${BIG} of ${BIG}`);
    expect((await part.listKeys('cert/', { limit: 10 })).items).toEqual([]);
  });
});
