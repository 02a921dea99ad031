/**
 * config/crl auto_rebuild and the scheduled CRL work (issue 26, item 2): with auto_rebuild a
 * revocation does not rebuild the complete CRL; the schedule (lib/pki/crl-schedule.ts, run by
 * functions/pki-tidy.ts) rebuilds it once within auto_rebuild_grace_period of its nextUpdate;
 * with enable_delta the schedule rebuilds a delta that misses a revocation (its at-once rebuild
 * lost) once delta_rebuild_interval has passed, and removes delta list entries no base needs.
 * The local service runs the same schedule on the sweeper's timer (a child process, checked
 * through its HTTP API). The clock of the in-process service is the test's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountPartition } from '../../../lib/mount-partition';
import { pkiSchedule } from '../../../lib/pki/auto-tidy';
import { pkiEngine } from '../../../lib/pki/engine';
import { REVOKED_INDEX, expiryIndexSort, type RevokedRecord } from '../../../lib/pki/storage';
import { freePort, killLocalChildren, startLocalChild } from '../../helpers/local-child';
import { text } from '../../helpers/openssl';
import { call, createTestService, type TestService } from '../../helpers/service';

type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let svc: TestService;
let clock = Date.now();
const HOUR = 3600_000;
const request = (method: string, path: string, body?: unknown) => call(svc.app, method, `/v1/pki/${path}`, { token: svc.root, body });
async function ok(method: string, path: string, body?: unknown): Promise<Data> {
  const r = await request(method, path, body);
  expect([200, 204], `${method} ${path}: ${r.status} ${r.text}`).toContain(r.status);
  return (r.json?.data ?? {}) as Data;
}
const crlText = async (path = 'crl/pem') => text((await call(svc.app, 'GET', `/v1/pki/${path}`)).text, 'crl');
const numberOf = (t: string) => Number(/X509v3 CRL Number:\s*\n\s*(\d+)/.exec(t)?.[1]);
const serialsOf = (t: string) => [...t.matchAll(/Serial Number: ([0-9A-F]+)/g)].map((m) => m[1]!.toLowerCase());
const hex = (colon: string) => colon.replaceAll(':', '').replace(/^0+/, '');
const schedule = async () => (await pkiSchedule(svc.deps, Date.now() + 60_000)).crl.find((m) => m.mount === 'pki')!;

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine], now: () => clock });
  await ok('POST', 'root/generate/internal', { common_name: 'Auto Root', key_type: 'ec', ttl: '87600h' });
  await ok('POST', 'roles/web', { allow_any_name: true, key_type: 'ec', ttl: '8760h' });
});

afterAll(async () => {
  await killLocalChildren();
});

describe('auto_rebuild', () => {
  let serial = '';

  it('a revocation does not rebuild the complete CRL', async () => {
    await ok('POST', 'config/crl', { auto_rebuild: true, expiry: '72h', auto_rebuild_grace_period: '12h' });
    const before = await crlText();
    serial = ((await ok('POST', 'issue/web', { common_name: 'a.test' })) as { serial_number: string }).serial_number;
    await ok('POST', 'revoke', { serial_number: serial });
    const after = await crlText();
    expect(numberOf(after)).toBe(numberOf(before));
    expect(serialsOf(after)).not.toContain(hex(serial));
  });

  it('the schedule leaves it until the grace period of its nextUpdate, then rebuilds it once', async () => {
    const n = numberOf(await crlText());
    clock += 59 * HOUR; // 13 h before nextUpdate: not yet within the 12 h grace period
    expect(await schedule()).toMatchObject({ complete: 0 });
    expect(numberOf(await crlText())).toBe(n);
    clock += 2 * HOUR; // 11 h before nextUpdate
    expect(await schedule()).toMatchObject({ complete: 1, failed: 0 });
    const rebuilt = await crlText();
    expect(numberOf(rebuilt)).toBeGreaterThan(n);
    expect(serialsOf(rebuilt)).toContain(hex(serial));
    expect(await schedule()).toMatchObject({ complete: 0 }); // the new one is 72 h away from its nextUpdate
  });

  it('without auto_rebuild the schedule rebuilds nothing and a revocation rebuilds the complete CRL', async () => {
    await ok('POST', 'config/crl', { auto_rebuild: false });
    clock += 70 * HOUR;
    expect(await schedule()).toMatchObject({ complete: 0, delta: 0 });
    const n = numberOf(await crlText());
    const s = ((await ok('POST', 'issue/web', { common_name: 'b.test' })) as { serial_number: string }).serial_number;
    await ok('POST', 'revoke', { serial_number: s });
    const t = await crlText();
    expect(numberOf(t)).toBeGreaterThan(n);
    expect(serialsOf(t)).toContain(hex(s));
  });
});

describe('the scheduled delta rebuild', () => {
  it('rebuilds a delta that misses a revocation once delta_rebuild_interval has passed; a new complete CRL clears the delta list', async () => {
    await ok('POST', 'config/crl', { auto_rebuild: true, enable_delta: true, delta_rebuild_interval: '15m' });
    const deltaBefore = await crlText('crl/delta/pem');
    // A revocation whose at-once delta rebuild was lost (a crash after its two writes): written straight to the store.
    const { serial_number: serial } = (await ok('POST', 'issue/web', { common_name: 'lost.test' })) as { serial_number: string };
    const key = serial.replaceAll(':', '');
    const part = mountPartition(svc.deps, 'pki', 'pki');
    const issuerId = (await ok('GET', 'issuer/default')).issuer_id as string;
    const record: RevokedRecord = { serial: key, revokedAt: clock, notAfter: clock + 8000 * HOUR, issuerId };
    await part.put(`revoked/${key}`, record, { index: { name: REVOKED_INDEX, sort: expiryIndexSort(record.notAfter, key) } });
    await part.put(`delta-wal/${key}`, record);

    clock += 5 * 60_000;
    expect(await schedule()).toMatchObject({ delta: 0 });
    expect(serialsOf(await crlText('crl/delta/pem'))).not.toContain(hex(serial));
    clock += 11 * 60_000; // 16 minutes after the delta was built
    expect(await schedule()).toMatchObject({ delta: 1, failed: 0 });
    const delta = await crlText('crl/delta/pem');
    expect(serialsOf(delta)).toContain(hex(serial));
    expect(numberOf(delta)).toBeGreaterThan(numberOf(deltaBefore));
    // Nothing changed since: the interval passes without a rebuild.
    clock += 20 * 60_000;
    expect(await schedule()).toMatchObject({ delta: 0 });

    // The complete CRL's grace period: rebuilt with the revocation, a fresh delta on it, and the list pruned once the overlap passed.
    clock += 61 * HOUR;
    expect(await schedule()).toMatchObject({ complete: 1 });
    const complete = await crlText();
    expect(serialsOf(complete)).toContain(hex(serial));
    expect(/Delta CRL Indicator: critical\s*\n\s*(\d+)/.exec(await crlText('crl/delta/pem'))?.[1]).toBe(String(numberOf(complete)));
    expect((await part.list('delta-wal/')).items.length).toBe(0);
  });
});

describe('the local service', () => {
  it("runs the CRL schedule on the sweeper's timer: a complete CRL is rebuilt within its grace period with no request", async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'crl-local-'));
    try {
      const port = await freePort();
      await startLocalChild({ dataDir: join(tmp, 'data'), port, env: { SWEEP_INTERVAL_MS: '200' } });
      const token = readFileSync(join(tmp, 'data', 'root-token'), 'utf8').trim();
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`http://127.0.0.1:${port}/v1/pki/${path}`, {
          method,
          headers: { 'x-vault-token': token },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, text: await res.text() };
      };
      expect((await api('POST', 'root/generate/internal', { common_name: 'Local Root', key_type: 'ec', ttl: '8760h' })).status).toBe(200);
      // Valid 4 s, rebuilt from 3 s before its nextUpdate: the schedule rebuilds it about a second after it was built.
      const set = await api('POST', 'config/crl', { auto_rebuild: true, expiry: '4s', auto_rebuild_grace_period: '3s' });
      expect(set.status, set.text).toBe(200);
      const first = numberOf(text((await api('GET', 'crl/pem')).text, 'crl'));
      let latest = first;
      for (let i = 0; i < 200 && latest <= first; i++) {
        await new Promise((r) => setTimeout(r, 100));
        latest = numberOf(text((await api('GET', 'crl/pem')).text, 'crl'));
      }
      expect(latest).toBeGreaterThan(first);
    } finally {
      await killLocalChildren();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
