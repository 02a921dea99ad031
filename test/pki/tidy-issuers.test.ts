/**
 * lib/pki/tidy-issuers.ts: which issuers are past their NotAfter by more than the buffer (the
 * default set apart), and their removal on a real store: the issuer and its CRL go, its key and
 * its certificates stay, the default stays, each removal counted; afterwards the others' CRLs
 * are rebuilt.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDeps } from '../../lib/composition';
import { readEnvironment } from '../../lib/config';
import type { Deps } from '../../lib/deps';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { mountPartition } from '../../lib/mount-partition';
import { generateRoot, type CaRequest, type KeyChoice } from '../../lib/pki/ca';
import { rebuildCrl } from '../../lib/pki/crl';
import { pkiRepository } from '../../lib/pki/issuer';
import { issuerRecord } from '../../lib/pki/migrations';
import { parseCertificate } from '../../lib/pki/parse';
import { onePem } from '../../lib/pki/pem';
import { afterIssuersRemoved, expiredIssuers, removeExpiredIssuers } from '../../lib/pki/tidy-issuers';
import type { Partition } from '../../lib/store/store';
import { quickTlsChain } from '../helpers/quick-chain';
import { createTestStore } from '../helpers/store';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
let clock = Date.now();
let deps: Deps;

beforeAll(async () => {
  const { store, table } = await createTestStore();
  deps = createDeps({
    env: { ...readEnvironment({}), tableName: table },
    store,
    wrapper: new LocalKeyWrapper(randomBytes(32)),
    now: () => clock,
  });
});

const INTERNAL: KeyChoice = { type: 'internal', keyType: 'ec', keyBits: 256, keyParamsGiven: true };
const caRequest = (commonName: string, ttlSeconds: number): CaRequest => ({
  commonName,
  altNames: [],
  ipSans: [],
  uriSans: [],
  otherSans: [],
  excludeCnFromSans: true,
  subject: {},
  ttl: ttlSeconds,
  maxPathLength: -1,
  permittedDnsDomains: [],
  signatureBits: 0,
});

/** A root made now (the moved clock), named `name`, valid for `ttlSeconds`. */
const root = async (part: Partition, name: string, ttlSeconds: number) =>
  (await generateRoot(deps, part, caRequest(`${name} root`, ttlSeconds), INTERNAL, 10 * 365 * 86_400, { issuerName: name })).issuerId;

const notAfterOf = (pem: string) => parseCertificate(onePem(pem, ['CERTIFICATE'], 'test')).notAfter;
const crlNumber = async (part: Partition, id: string) => (await pkiRepository(deps, part).crlRecord<{ number: number }>(id))?.number;

describe('expiredIssuers', () => {
  it('picks the issuers expired by more than the buffer, keeping the default apart', async () => {
    const [a, b, c] = await Promise.all([
      quickTlsChain(['a'], [], 3600),
      quickTlsChain(['b'], [], 7200),
      quickTlsChain(['c'], [], 10 * 86_400),
    ]);
    const rec = (id: string, pem: string) => issuerRecord({ id, certificate: pem, keyId: '', caChain: [], serial: '01', createdAt: 0 });
    const issuers = [rec('a', a.caPem), rec('b', b.caPem), rec('c', c.caPem)];
    const at = notAfterOf(a.caPem) + 1000 * 1000;
    const cases: { now: number; buffer: number; defaultId: string; remove: string[]; kept?: string }[] = [
      { now: at, buffer: 1000, defaultId: 'c', remove: [] },
      { now: at + 1, buffer: 1000, defaultId: 'c', remove: ['a'] },
      { now: at + 1, buffer: 1000, defaultId: 'a', remove: [], kept: 'a' },
      { now: notAfterOf(b.caPem) + 2000, buffer: 1, defaultId: 'c', remove: ['a', 'b'] },
      { now: notAfterOf(a.caPem) - 1, buffer: 0, defaultId: '', remove: [] },
    ];
    for (const t of cases) {
      const out = expiredIssuers(issuers, t.defaultId, t.now, t.buffer);
      expect(
        out.remove.map((i) => i.id),
        JSON.stringify(t),
      ).toEqual(t.remove);
      expect(out.keptDefault?.id).toBe(t.kept);
    }
  });
});

describe('removeExpiredIssuers, afterIssuersRemoved', () => {
  it('removes expired issuers and their CRLs, keeps the default, the keys and the certificates; then the other CRLs are rebuilt', async () => {
    const part = mountPartition(deps, 'pki', 'tidy-issuers');
    const repo = pkiRepository(deps, part);
    const start = clock;
    const def = await root(part, 'first', 3600);
    const old = await root(part, 'old', 3600);
    const older = await root(part, 'older', 1800);
    const long = await root(part, 'long', 365 * 86_400);
    clock = start + 2 * DAY;
    const recent = await root(part, 'recent', 3600);
    clock = start + 2 * DAY + 2 * HOUR;
    for (const id of [def, old, older, long, recent]) await rebuildCrl(deps, part, id);
    const keyOfOld = (await repo.issuer(old))!.keyId;
    const serialOfOld = parseCertificate(onePem((await repo.issuer(old))!.certificate, ['CERTIFICATE'], 'test')).serial;
    const before = await crlNumber(part, long);
    const counted: number[] = [];
    const n = await removeExpiredIssuers(deps, part, 86_400, async (c) => void counted.push(c));
    expect(n).toBe(2);
    expect(counted).toEqual([1, 2]);
    expect(await crlNumber(part, long)).toBe(before);
    await afterIssuersRemoved(deps, part);
    expect((await repo.issuers()).map((i) => i.name).sort()).toEqual(['first', 'long', 'recent']);
    for (const id of [old, older]) expect(await repo.crlRecord(id)).toBeUndefined();
    expect(await repo.key(keyOfOld)).toBeDefined();
    expect(await repo.certificate(serialOfOld)).toBeDefined();
    expect((await repo.keys()).length).toBe(5);
    expect((await repo.issuersConfig()).default).toBe(def);
    expect(await crlNumber(part, long)).toBe(before! + 1);
    // A second run finds nothing more.
    expect(await removeExpiredIssuers(deps, part, 86_400, async () => undefined)).toBe(0);
  });
});
