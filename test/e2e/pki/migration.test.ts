/**
 * A store written by the previous release (storage version 1, fixtures/pki-v1/, made with its
 * own code by make.ts there) started with the current code, on the embedded store and on the
 * DynamoDB store (dynalite): the migration on first use makes the one CA an issuer, the default,
 * with its key; every old certificate reads back and is attributed to it; the old CRL is served
 * and verifies; a revocation of an old certificate lands on the next CRL; the roles are as they
 * were and still issue under the old CA; the key intermediate/generate left waiting accepts its
 * signed certificate; and a second start changes nothing.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { currentCrl } from '../../../lib/pki/crl';
import { pkiRepository } from '../../../lib/pki/issuer';
import { META_KEY } from '../../../lib/pki/migrations';
import { toPem } from '../../../lib/pki/pem';
import { revokeSerial } from '../../../lib/pki/revoke';
import { parseSerial } from '../../../lib/pki/serial';
import { makeCsr, openssl, verifyChain, verifyCrl, withFiles } from '../../helpers/openssl';
import {
  copyFixture,
  depsOn,
  dynamoStoreAt,
  expectedState,
  manifestOf,
  migratedState,
  openStore,
  pkiPart,
  snapshot,
  V1_RECORDS,
  type Manifest,
  type StoreKind,
} from './migration-fixture';

interface Answer {
  status: number;
  text: string;
  data: Record<string, unknown>;
  errors?: string[];
}

/** The serials a CRL lists (colon hex, lower case) and its number, read by openssl. */
function crlContents(pem: string): { serials: string[]; number: number } {
  const out = withFiles({ 'crl.pem': pem }, (p) => openssl(['crl', '-in', p('crl.pem'), '-noout', '-text']));
  if (!out.ok) throw new Error(out.out);
  const serials = [...out.out.matchAll(/Serial Number: ([0-9A-F]+)/gi)].map((s) => (s[1]!.toLowerCase().match(/../g) ?? []).join(':'));
  const number = Number.parseInt(/X509v3 CRL Number:\s*\n\s*([0-9A-F]+)/i.exec(out.out)?.[1] ?? 'x', 16);
  return { serials: serials.sort(), number };
}

const trimmed = (pem: string) => pem.trim();

describe.each(['level', 'dynalite'] as const)('a PKI store of the previous release on the current code (%s store)', (kind: StoreKind) => {
  const m: Manifest = manifestOf(kind);
  let dataDir = '';
  let svc: LocalService;
  let before: { meta: unknown; records: string[] } = { meta: undefined, records: [] };

  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const r = await fetch(`${svc.url}/v1/${path}`, {
      method,
      headers: { 'x-svc-token': m.rootToken },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    const json = text.startsWith('{') ? (JSON.parse(text) as { data?: Record<string, unknown>; errors?: string[] }) : {};
    return { status: r.status, text, data: json.data ?? {}, ...(json.errors ? { errors: json.errors } : {}) };
  };

  beforeAll(async () => {
    dataDir = copyFixture(kind);
    // The fixture is of version 1: no marker, the CA in ca/current.
    const opened = await openStore(dataDir, kind);
    const part = pkiPart({ store: opened.store }, 'pki_int');
    before = {
      meta: (await part.get(META_KEY))?.value,
      records: (await Promise.all(V1_RECORDS.map(async (k) => ((await part.get(k)) ? k : '')))).filter(Boolean),
    };
    await opened.close();
    svc = await startLocal({ dataDir, port: 0, store: kind });
  });

  afterAll(async () => {
    await svc?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the fixture was made by the previous release (version 1: no storage marker, ca/current, ca/pending, crl/current)', () => {
    expect(m.revision).toBe('60e5e2b');
    expect(before).toEqual({ meta: undefined, records: V1_RECORDS });
  });

  it('serves the old CA, now the one issuer of each mount: the default, with its key, every certificate and revocation its own', async () => {
    expect(trimmed((await call('GET', 'pki/ca/pem')).text)).toBe(m.pki.ca);
    expect(trimmed((await call('GET', 'pki_int/ca/pem')).text)).toBe(m.pki_int.ca);
    const chain = (await call('GET', 'pki_int/cert/ca_chain')).data.certificate as string;
    expect(chain.replace(/\s+/g, '')).toBe(`${m.pki_int.ca}${m.pki_int.caChain.join('')}`.replace(/\s+/g, ''));
    for (const mount of ['pki', 'pki_int'] as const) expect(await migratedState(svc.deps, mount, m)).toEqual(expectedState(mount, m));
  });

  it('every old certificate reads back, the revoked ones with their revocation time', async () => {
    for (const mount of ['pki', 'pki_int'] as const) {
      for (const c of m[mount].certificates) {
        const r = await call('GET', `${mount}/cert/${c.serial}`);
        expect({ mount, serial: c.serial, status: r.status }).toEqual({ mount, serial: c.serial, status: 200 });
        expect(trimmed(r.data.certificate as string)).toBe(trimmed(c.certificate));
        expect(Number(r.data.revocation_time) > 0, c.serial).toBe(c.revoked);
      }
    }
  });

  it('serves the old CRL: it lists the revoked certificates and verifies against the old CA', async () => {
    const crl = (await call('GET', 'pki/crl/pem')).text;
    expect(trimmed(crl)).toBe(m.pki.crl);
    expect(verifyCrl(crl, m.pki.ca)).toMatchObject({ ok: true });
    const revoked = m.pki.certificates.filter((c) => c.revoked).map((c) => c.serial);
    expect(crlContents(crl).serials).toEqual([...revoked].sort());
  });

  it('revokes another old certificate onto the next CRL, signed by the old CA and numbered after the old one', async () => {
    const old = crlContents(m.pki.crl);
    const target = m.pki.certificates.find((c) => !c.revoked)!;
    const r = await call('POST', 'pki/revoke', { serial_number: target.serial });
    expect(r.status, r.text).toBe(200);
    const crl = (await call('GET', 'pki/crl/pem')).text;
    expect(verifyCrl(crl, m.pki.ca)).toMatchObject({ ok: true });
    const now = crlContents(crl);
    expect(now.serials).toEqual([...old.serials, target.serial].sort());
    expect(now.number).toBe(old.number + 1);
    expect(verifyChain(target.certificate, m.pki.ca, [], [crl]).out).toMatch(/certificate revoked/);
  });

  it('refuses to put the old CA on its own CRL (the issuer knows its serial)', async () => {
    const r = await call('POST', 'pki/revoke', { serial_number: m.pki.caSerial });
    expect(r.status).toBe(400);
    expect(r.errors?.[0]).toMatch(/to its own CRL is not allowed/);
  });

  it('keeps the roles as they were, and they still issue certificates that chain to the old CA', async () => {
    for (const mount of ['pki', 'pki_int'] as const) {
      for (const [name, role] of Object.entries(m[mount].roles)) {
        expect((await call('GET', `${mount}/roles/${name}`)).data, `${mount}/roles/${name}`).toMatchObject(role);
      }
    }
    expect((await call('LIST', 'pki/roles')).data.keys).toEqual(Object.keys(m.pki.roles).sort());
    const web = await call('POST', 'pki/issue/web', { common_name: 'new.example.com' });
    expect(web.status, web.text).toBe(200);
    expect(verifyChain(web.data.certificate as string, m.pki.ca)).toMatchObject({ ok: true });
    expect(trimmed(web.data.issuing_ca as string)).toBe(m.pki.ca);
    const any = await call('POST', 'pki/sign/any', {
      csr: makeCsr('/CN=anything.example.org', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']),
      common_name: 'anything.example.org',
    });
    expect(any.status, any.text).toBe(200);
    expect(verifyChain(any.data.certificate as string, m.pki.ca)).toMatchObject({ ok: true });
    const svcCert = await call('POST', 'pki_int/issue/svc', { common_name: 'new.svc.internal' });
    expect(svcCert.status, svcCert.text).toBe(200);
    expect(verifyChain(svcCert.data.certificate as string, m.pki.ca, [m.pki_int.ca])).toMatchObject({ ok: true });
    // The new certificates are stored under the migrated issuer.
    const repo = pkiRepository(svc.deps, pkiPart(svc.deps, 'pki'));
    const [issuer] = await repo.issuers();
    const stored = await call('GET', `pki/cert/${web.data.serial_number as string}`);
    expect(stored.status).toBe(200);
    const rec = await repo.certificate(Buffer.from((web.data.serial_number as string).replace(/:/g, ''), 'hex'));
    expect(rec?.issuerId).toBe(issuer!.id);
  });

  it('the key intermediate/generate left waiting on pki_int accepts its certificate signed by the old root, and signs', async () => {
    const signed = await call('POST', 'pki/root/sign-intermediate', {
      csr: m.pki_int.pendingCsr,
      common_name: 'Latchkey v1 Intermediate C',
      ttl: '8760h',
    });
    expect(signed.status, signed.text).toBe(200);
    const c = signed.data.certificate as string;
    expect(verifyChain(c, m.pki.ca)).toMatchObject({ ok: true });
    const set = await call('POST', 'pki_int/intermediate/set-signed', { certificate: `${c}\n${m.pki.ca}` });
    expect(set.status, set.text).toBeLessThan(300);
    const repo = pkiRepository(svc.deps, pkiPart(svc.deps, 'pki_int'));
    const keys = await repo.keys();
    const issuerOfC = (await repo.issuers()).find((i) => i.certificate.trim() === c.trim());
    expect(issuerOfC?.keyId, 'the set-signed issuer signs with the migrated pending key').toBeTruthy();
    expect(keys.map((k) => k.id)).toContain(issuerOfC!.keyId);
    // The old CA is still the default; a role naming the new issuer issues under it.
    expect((await repo.issuersConfig()).default).not.toBe(issuerOfC!.id);
    expect((await call('POST', 'pki_int/roles/via-c', { allow_any_name: true, issuer_ref: issuerOfC!.id })).status).toBeLessThan(300);
    const leaf = await call('POST', 'pki_int/issue/via-c', { common_name: 'c.svc.internal' });
    expect(leaf.status, leaf.text).toBe(200);
    expect(verifyChain(leaf.data.certificate as string, m.pki.ca, [c])).toMatchObject({ ok: true });
  });

  // Once a defect of lib/pki/migrations.ts (issue 25, item 7), fixed in 3efb74b:
  // version 1 kept the serial of the CA a CRL was built for (crl/current's `ca`) and rebuilt it on
  // its next read once the CA had changed; the migration copies crl/current under the new issuer
  // whatever CA signed it, and the current code serves that copy as is. pki_int's CA A was
  // replaced by B and its CRL not read since: the current code serves A's CRL (the fixture's
  // crlOfReplacedCa) as B's, which does not verify against B; the previous release served a new
  // CRL signed by B.
  it('pki_int, whose CA A was replaced by B under version 1 before its CRL was read again, serves a CRL signed by B, as the previous release did', async () => {
    const crl = (await call('GET', 'pki_int/crl/pem')).text;
    expect(trimmed(crl)).not.toBe(m.pki_int.crlOfReplacedCa);
    expect(verifyCrl(crl, m.pki_int.ca)).toMatchObject({ ok: true });
  });

  // Once a defect of lib/pki/migrations.ts (issue 25, item 7), fixed in 3efb74b:
  // version 1 listed on a CA's CRL only the revocations of certificates that CA issued (each
  // revocation records its certificate's issuer name and key id, issuer-id.ts). The migration
  // attributes every version-1 certificate and revocation to the current CA (meta/storage's
  // legacyIssuer), so the certificates of A, the CA B replaced, land on B's CRL: its revoked
  // one once B's CRL is rebuilt, and any revoked after the migration.
  it("pki_int keeps A's certificates off B's CRL, as the previous release did (its revocations name their issuer)", async () => {
    const ofA = m.pki_int.certificates.filter((c) => c.issuedBy === 'A');
    const r = await call('POST', 'pki_int/revoke', { serial_number: ofA.find((c) => !c.revoked)!.serial });
    expect(r.status, r.text).toBe(200);
    const crl = (await call('GET', 'pki_int/crl/pem')).text;
    expect(verifyCrl(crl, m.pki_int.ca)).toMatchObject({ ok: true });
    expect(crlContents(crl).serials).toEqual([]);
  });

  it('a second start migrates nothing again: the same records, one issuer per old CA, the same marker', async () => {
    const parts = (deps: LocalService['deps']) => [pkiPart(deps, 'pki'), pkiPart(deps, 'pki_int')];
    // The count shards are the only records a request may still touch; none is made between the two reads.
    const first = await Promise.all(parts(svc.deps).map((p) => snapshot(p)));
    const firstMeta = await Promise.all(parts(svc.deps).map((p) => pkiRepository(svc.deps, p).ready()));
    await svc.close();
    svc = await startLocal({ dataDir, port: 0, store: kind });
    const again = await Promise.all(parts(svc.deps).map((p) => pkiRepository(svc.deps, p).ready()));
    expect(again).toEqual(firstMeta);
    expect(await Promise.all(parts(svc.deps).map((p) => snapshot(p)))).toEqual(first);
    expect(trimmed((await call('GET', 'pki/ca/pem')).text)).toBe(m.pki.ca);
    expect((await pkiRepository(svc.deps, pkiPart(svc.deps, 'pki')).issuers()).length).toBe(1);
  });
});

describe('two instances migrating one version-1 mount at once (the DynamoDB store, as two Lambda instances after a deploy)', () => {
  // Once a defect of lib/pki/migrations.ts (issue 25, item 7), fixed in 3efb74b:
  // every write of the migration is an unconditional put. An instance that read no marker and is
  // still migrating when another has finished and served a revocation puts crl/<issuer> back to
  // the version-1 CRL: the revocation drops off the served CRL and its number goes back.
  it('a revocation served by the instance that finished first stays on the CRL after the slower one finishes', async () => {
    const m = manifestOf('dynalite');
    const dataDir = copyFixture('dynalite');
    const opened = await openStore(dataDir, 'dynalite');
    try {
      const fast = depsOn(dynamoStoreAt(opened.endpoint!), dataDir);
      const slow = depsOn(dynamoStoreAt(opened.endpoint!), dataDir);
      // The slow instance reads the marker (absent), then waits until the fast one has revoked.
      let release = () => {};
      const gate = new Promise<void>((r) => (release = r));
      const part = pkiPart(slow, 'pki');
      const paused = new Proxy(part, {
        get(target, prop) {
          if (prop === 'get')
            return async (key: string) => {
              const item = await target.get(key);
              if (key === META_KEY) await gate;
              return item;
            };
          const v: unknown = Reflect.get(target, prop);
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      const slowDone = pkiRepository(slow, paused).ready();

      const target = m.pki.certificates.find((c) => !c.revoked)!;
      await revokeSerial(fast, pkiPart(fast, 'pki'), parseSerial(target.serial));
      const afterRevoke = crlContents(toPem('X509 CRL', await currentCrl(fast, pkiPart(fast, 'pki'))));
      expect(afterRevoke.serials).toContain(target.serial);

      release();
      await slowDone;
      const later = crlContents(toPem('X509 CRL', await currentCrl(fast, pkiPart(fast, 'pki'))));
      expect(later.number).toBeGreaterThanOrEqual(afterRevoke.number);
      expect(later.serials).toContain(target.serial);
    } finally {
      await opened.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
