/**
 * Tidy with several issuers, on a moved clock: tidy_expired_issuers removes the issuers whose
 * certificate expired more than issuer_safety_buffer (365 days unless given) ago, with their
 * CRLs, never the default; keys and certificates stay; every remaining issuer's CRL is rebuilt;
 * tidy-status counts the removals (total_issuers_deleted_count); config/auto-tidy carries both
 * settings to the scheduled tidy. A tidy of revocations cut short and resumed rebuilds every
 * issuer's CRL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mountPartition } from '../../../lib/mount-partition';
import { autoTidy } from '../../../lib/pki/auto-tidy';
import { pkiEngine } from '../../../lib/pki/engine';
import { claimTidy, runTidy } from '../../../lib/pki/tidy';
import { text, verifyChain, verifyCrl } from '../../helpers/openssl';
import { call, createTestService, type TestService } from '../../helpers/service';

const HOUR = 3600_000;
let svc: TestService;
let clock = Date.now();
const ids: Record<string, string> = {};
const certs: Record<string, string> = {};
/** A revoked leaf of `old` (its serial in upper-case hex and as the API writes it) and the serial of one of `long`. */
let oldLeaf: { serial: string; colon: string; pem: string };
let longLeafSerial: string;

const post = (path: string, body: unknown = {}) => call(svc.app, 'POST', `/v1/pki/${path}`, { token: svc.root, body });
const get = (path: string) => call(svc.app, 'GET', `/v1/pki/${path}`, { token: svc.root });
const status = async (mount = 'pki') => (await call(svc.app, 'GET', `/v1/${mount}/tidy-status`, { token: svc.root })).json!.data;
const hex = (colon: string) => colon.replace(/:/g, '').toUpperCase();
const crlNumber = (crlPem: string) => Number(/CRL Number:\s*(?:critical)?\s*(\d+)/.exec(text(crlPem, 'crl'))?.[1]);

async function finished() {
  for (let i = 0; i < 600; i++) {
    const s = await status();
    if (s.state !== 'Running') return s;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('tidy did not finish');
}

/** A new root named `name`, valid for `ttl`, made at the clock's time. */
async function root(name: string, ttl: string, path = 'issuers/generate/root/internal') {
  const r = await post(path, { common_name: `${name} root`, issuer_name: name, key_type: 'ec', ttl });
  expect(r.status, r.text).toBe(200);
  ids[name] = r.json!.data.issuer_id;
  certs[name] = r.json!.data.certificate;
}

/** A leaf through issuer `name`, revoked. */
async function revokedLeaf(name: string, cn: string) {
  const r = await post(`issuer/${name}/issue/any`, { common_name: cn, ttl: '30m' });
  expect(r.status, r.text).toBe(200);
  expect((await post('revoke', { serial_number: r.json!.data.serial_number })).status).toBe(200);
  const colon = r.json!.data.serial_number as string;
  return { serial: hex(colon), colon, pem: r.json!.data.certificate as string };
}

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine], now: () => clock });
  await root('first', '2h', 'root/generate/internal');
  await root('old', '1h');
  await root('long', '87600h');
  expect((await post('roles/any', { allow_any_name: true, key_type: 'ec', max_ttl: '1h' })).status).toBe(200);
  oldLeaf = await revokedLeaf('old', 'old.example.com');
  longLeafSerial = (await revokedLeaf('long', 'long.example.com')).serial;
  clock += 48 * HOUR;
  await root('recent', '1h');
  clock += 2 * HOUR;
});

describe('tidy_expired_issuers', () => {
  it('reports its settings at their defaults before any tidy', async () => {
    expect(await status('pki_int')).toMatchObject({
      state: 'Inactive',
      tidy_expired_issuers: false,
      issuer_safety_buffer: 365 * 86_400,
      total_issuers_deleted_count: 0,
    });
  });

  it('refuses an issuer_safety_buffer under a second, on tidy and on config/auto-tidy', async () => {
    for (const path of ['tidy', 'config/auto-tidy']) {
      const r = await post(path, { tidy_expired_issuers: true, issuer_safety_buffer: 0 });
      expect(r.status, path).toBe(400);
      expect(r.json!.errors).toEqual(['issuer_safety_buffer must be greater than zero']);
    }
  });

  it('removes nothing within the default buffer of 365 days', async () => {
    expect((await post('tidy', { tidy_expired_issuers: true })).status).toBe(202);
    expect(await finished()).toMatchObject({
      state: 'Finished',
      tidy_expired_issuers: true,
      issuer_safety_buffer: 365 * 86_400,
      total_issuers_deleted_count: 0,
    });
    expect(Object.keys((await call(svc.app, 'LIST', '/v1/pki/issuers', { token: svc.root })).json!.data.key_info)).toHaveLength(4);
  });

  it('removes an issuer expired past the buffer with its CRL, keeps the expired default, the keys and the certificates', async () => {
    const longCrlBefore = (await call(svc.app, 'GET', `/v1/pki/issuer/long/crl/pem`)).text;
    expect(text(longCrlBefore, 'crl')).toContain(longLeafSerial);
    expect(text((await call(svc.app, 'GET', '/v1/pki/issuer/old/crl/pem')).text, 'crl')).toContain(oldLeaf.serial);
    const keysBefore = (await call(svc.app, 'LIST', '/v1/pki/keys', { token: svc.root })).json!.data.keys as string[];

    expect((await post('tidy', { tidy_expired_issuers: true, issuer_safety_buffer: '24h' })).status).toBe(202);
    expect(await finished()).toMatchObject({
      state: 'Finished',
      error: null,
      tidy_expired_issuers: true,
      issuer_safety_buffer: 86_400,
      total_issuers_deleted_count: 1,
    });

    // old (expired 49h ago) is gone; first (the default, expired 48h ago) and recent (1h ago) stay.
    const left = (await call(svc.app, 'LIST', '/v1/pki/issuers', { token: svc.root })).json!.data.key_info as Record<
      string,
      { issuer_name: string }
    >;
    expect(
      Object.values(left)
        .map((i) => i.issuer_name)
        .sort(),
    ).toEqual(['first', 'long', 'recent']);
    expect((await get('config/issuers')).json!.data.default).toBe(ids.first);
    for (const path of ['issuer/old/json', 'issuer/old/crl/pem', `issuer/${ids.old}/crl`]) expect((await get(path)).status, path).toBe(404);
    // Its key stays (the reference removes no key), and so do the certificates it signed.
    expect((await call(svc.app, 'LIST', '/v1/pki/keys', { token: svc.root })).json!.data.keys).toEqual(keysBefore);
    const stored = await call(svc.app, 'GET', `/v1/pki/cert/${oldLeaf.colon}`);
    expect(stored.status).toBe(200);
    expect(verifyChain(oldLeaf.pem, certs.old!).ok).toBe(true);

    // The remaining issuers' CRLs were rebuilt: a higher number, still listing their revocations, signed by them.
    const longCrl = (await call(svc.app, 'GET', '/v1/pki/issuer/long/crl/pem')).text;
    expect(crlNumber(longCrl)).toBeGreaterThan(crlNumber(longCrlBefore));
    expect(text(longCrl, 'crl')).toContain(longLeafSerial);
    expect(verifyCrl(longCrl, certs.long!).ok).toBe(true);
    const recentCrl = (await call(svc.app, 'GET', '/v1/pki/issuer/recent/crl/pem')).text;
    expect(verifyCrl(recentCrl, certs.recent!).ok).toBe(true);
  });

  it('config/auto-tidy: the scheduled tidy takes tidy_expired_issuers and issuer_safety_buffer', async () => {
    const w = await post('config/auto-tidy', {
      enabled: true,
      interval_duration: '1h',
      tidy_expired_issuers: true,
      issuer_safety_buffer: '30m',
    });
    expect(w.status).toBe(204);
    expect((await get('config/auto-tidy')).json!.data).toMatchObject({
      enabled: true,
      tidy_expired_issuers: true,
      issuer_safety_buffer: 1800,
      tidy_cert_store: false,
    });
    const out = (await autoTidy(svc.deps, Date.now() + 30_000)).find((r) => r.mount === 'pki');
    expect(out).toMatchObject({ ran: true, finished: true });
    expect(await status()).toMatchObject({
      state: 'Finished',
      tidy_expired_issuers: true,
      issuer_safety_buffer: 1800,
      total_issuers_deleted_count: 1,
    });
    // recent (expired an hour ago) went; the default stays, expired or not.
    const left = (await call(svc.app, 'LIST', '/v1/pki/issuers', { token: svc.root })).json!.data.key_info as Record<
      string,
      { issuer_name: string }
    >;
    expect(
      Object.values(left)
        .map((i) => i.issuer_name)
        .sort(),
    ).toEqual(['first', 'long']);
    expect((await post('config/auto-tidy', { enabled: false })).status).toBe(204);
    expect((await get('config/auto-tidy')).json!.data).toMatchObject({ tidy_expired_issuers: false, issuer_safety_buffer: 365 * 86_400 });
  });
});

describe('CRLs after tidy_revoked_certs', () => {
  it("rebuilds every issuer's CRL when a run cut short after removing revocations is resumed", async () => {
    await root('another', '87600h');
    const leaves = [await revokedLeaf('long', 'l2.example.com'), await revokedLeaf('another', 'a2.example.com')];
    const crlOf = async (name: string) => (await call(svc.app, 'GET', `/v1/pki/issuer/${name}/crl/pem`)).text;
    expect(text(await crlOf('long'), 'crl')).toContain(leaves[0]!.serial);
    expect(text(await crlOf('another'), 'crl')).toContain(leaves[1]!.serial);
    clock += 2 * HOUR;
    const part = mountPartition(svc.deps, 'pki', 'pki');
    const options = { tidyCertStore: false, tidyRevokedCerts: true, safetyBuffer: 1, tidyAcme: false, acmeAccountSafetyBuffer: 1 };
    expect(await claimTidy(svc.deps, part, options)).toBe(true);
    // The first invocation is out of time after its first page: the revocations are gone, the CRLs not yet rebuilt.
    expect(await runTidy(svc.deps, part, Date.now() - 1)).toBe(false);
    expect((await status()).revoked_cert_deleted_count).toBeGreaterThanOrEqual(2);
    expect(text(await crlOf('another'), 'crl')).toContain(leaves[1]!.serial);
    // The next one finds nothing left to remove, and still rebuilds every issuer's CRL.
    expect(await runTidy(svc.deps, part)).toBe(true);
    for (const [name, leaf] of [
      ['long', leaves[0]!],
      ['another', leaves[1]!],
    ] as const) {
      const crl = await crlOf(name);
      expect(text(crl, 'crl'), name).not.toContain(leaf.serial);
      expect(verifyCrl(crl, certs[name]!).ok).toBe(true);
    }
  });
});
