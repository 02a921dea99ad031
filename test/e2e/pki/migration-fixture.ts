/**
 * The version-1 PKI store of fixtures/pki-v1/ (made by its make.ts with the previous release's
 * code, on the embedded store and on dynalite) for the migration tests: its manifest, a fresh
 * copy of a data directory, the store of a data directory opened as the local service opens it
 * (deps with the copy's local key), and the state a migrated mount must be in, read from the
 * store (`migratedState`) so that every start, clean or after a kill, is held to the same
 * expectation.
 */
import { verify } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeps, dynamoApi } from '../../../lib/composition';
import { readEnvironment } from '../../../lib/config';
import type { Deps } from '../../../lib/deps';
import { LocalKeyWrapper } from '../../../lib/keys/local-key';
import { signatureAlgorithm } from '../../../lib/keys/signer';
import { mountPartition } from '../../../lib/mount-partition';
import { keySigner, pkiRepository } from '../../../lib/pki/issuer';
import { META_KEY } from '../../../lib/pki/migrations';
import { parseCertificate, parseCsr } from '../../../lib/pki/parse';
import { onePem } from '../../../lib/pki/pem';
import { parseSerial } from '../../../lib/pki/serial';
import type { CaRecord, PendingRecord, RevokedRecord } from '../../../lib/pki/storage';
import { DynamoStore } from '../../../lib/store/dynamo-store';
import { startEmbeddedDynamo } from '../../../lib/store/embedded';
import { LevelStore } from '../../../lib/store/level-store';
import type { Json, Partition, Store } from '../../../lib/store/store';

export const FIXTURE = join(import.meta.dirname, 'fixtures', 'pki-v1');
export type StoreKind = 'level' | 'dynalite';
/** The table the local service uses (TABLE_NAME's default). */
export const TABLE = 'latchkey';

export interface FixtureCert {
  serial: string;
  certificate: string;
  commonName: string;
  revoked: boolean;
  issuedBy?: 'A' | 'B';
}
export interface Manifest {
  revision: string;
  store: StoreKind;
  rootToken: string;
  pki: { ca: string; caSerial: string; roles: Record<string, Record<string, unknown>>; certificates: FixtureCert[]; crl: string };
  pki_int: {
    ca: string;
    caSerial: string;
    caChain: string[];
    replacedCa: string;
    replacedCaSerial: string;
    roles: Record<string, Record<string, unknown>>;
    certificates: FixtureCert[];
    crlOfReplacedCa: string;
    pendingCsr: string;
  };
}

export function manifestOf(kind: StoreKind): Manifest {
  return JSON.parse(readFileSync(join(FIXTURE, kind, 'manifest.json'), 'utf8')) as Manifest;
}

/** A fresh data directory holding a copy of the fixture's store and local key. */
export function copyFixture(kind: StoreKind): string {
  const dataDir = mkdtempSync(join(tmpdir(), `latchkey-pki-migration-${kind}-`));
  const dir = kind === 'level' ? 'store' : 'db';
  cpSync(join(FIXTURE, kind, dir), join(dataDir, dir), { recursive: true });
  cpSync(join(FIXTURE, kind, 'local.key'), join(dataDir, 'local.key'));
  return dataDir;
}

/** Deps on `store` with the data directory's local key, as the local service builds them. */
export function depsOn(store: Store, dataDir: string): Deps {
  const localKeyFile = join(dataDir, 'local.key');
  const env = { ...readEnvironment({}), localKeyFile };
  return createDeps({ env, store, wrapper: LocalKeyWrapper.fromFile(localKeyFile) });
}

export interface OpenedStore {
  store: Store;
  /** The dynalite endpoint serving the data directory's db/ (dynalite only). */
  endpoint?: string;
  close(): Promise<void>;
}

/** The data directory's store: the embedded store on store/, or a dynalite server on db/ and the DynamoDB store on it. */
export async function openStore(dataDir: string, kind: StoreKind): Promise<OpenedStore> {
  if (kind === 'level') {
    const store = await LevelStore.open(join(dataDir, 'store'));
    return { store, close: () => store.close() };
  }
  const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'db') });
  return { store: dynamoStoreAt(dynamo.endpoint), endpoint: dynamo.endpoint, close: () => dynamo.close() };
}

export function dynamoStoreAt(endpoint: string): DynamoStore {
  return new DynamoStore(dynamoApi({ ...readEnvironment({}), dynamoEndpoint: endpoint }), TABLE);
}

export const pkiPart = (deps: { store: Store }, mount: 'pki' | 'pki_int') => mountPartition(deps, 'pki', mount);

/** Every item of a partition, key to value (`omit`: keys left out). */
export async function snapshot(part: Partition, omit: (key: string) => boolean = () => false): Promise<Record<string, Json>> {
  const out: Record<string, Json> = {};
  let cursor: string | undefined;
  do {
    const page = await part.list('', { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const i of page.items) if (!omit(i.key)) out[i.key] = i.value;
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/** The records a version-1 release wrote and reads: the migration must leave them as they were. */
export const V1_RECORDS = ['ca/current', 'ca/pending', 'crl/current'];

/** Which of the version-2 records are in the partition (none, some, or the marker): where a kill landed. */
export async function migrationProgress(part: Partition): Promise<'before' | 'mid-way' | 'done'> {
  if (await part.get(META_KEY)) return 'done';
  const written = [
    ...(await part.listKeys('issuer/')).items,
    ...(await part.listKeys('key/')).items,
    ...(await part.listKeys('config/issuers')).items,
    ...(await part.listKeys('config/keys')).items,
  ];
  const crls = (await part.listKeys('crl/')).items.filter((k) => k !== 'crl/current');
  return written.length + crls.length ? 'mid-way' : 'before';
}

const der = (pem: string) => onePem(pem, ['CERTIFICATE'], 'a certificate');
const pemEq = (a: string, b: string) => der(a).equals(der(b));

/** Whether a key opened from the store signs so that the certificate's (or CSR's) public key verifies it. */
async function keySignsFor(deps: Deps, part: Partition, keyId: string, spki: Buffer): Promise<boolean> {
  const key = await pkiRepository(deps, part).key(keyId);
  if (!key) return false;
  const signer = await keySigner(deps, part, key);
  const message = Buffer.from(`migration check ${keyId}`);
  const alg = signatureAlgorithm(signer);
  const signature = await signer.sign(message, alg);
  // EC signatures come as DER (the form X.509 carries), node's default for EC keys.
  return signer.spki.equals(spki) && verify(alg.hash, message, { key: spki, format: 'der', type: 'spki' }, signature);
}

/**
 * What the store says of a mount after its migration, in plain values (compared whole by the
 * tests): the marker, the one issuer (the default, its certificate the old CA's, its key opening
 * and signing), the keys, every old certificate and revocation attributed to the issuer, the CRL
 * carried over, the version-1 records left as they were.
 */
export async function migratedState(deps: Deps, mount: 'pki' | 'pki_int', m: Manifest) {
  const part = pkiPart(deps, mount);
  const repo = pkiRepository(deps, part);
  const meta = await repo.ready();
  const fixture = m[mount];
  const caCert = parseCertificate(der(fixture.ca));
  const issuers = await repo.issuers();
  const issuer = issuers[0];
  const keys = await repo.keys();
  const pendingSpki = mount === 'pki_int' ? parseCsr(onePem(m.pki_int.pendingCsr, ['CERTIFICATE REQUEST'], 'the CSR')).spki : undefined;
  const pendingKey = pendingSpki && keys.find((k) => k.spki === pendingSpki.toString('base64'));
  const certs = await Promise.all(
    fixture.certificates.map(async (c) => {
      const rec = await repo.certificate(parseSerial(c.serial));
      const revoked = (await part.get<RevokedRecord>(`revoked/${parseSerial(c.serial).toString('hex')}`))?.value;
      const stored = rec !== undefined && Buffer.from(rec.der, 'base64').equals(der(c.certificate));
      // Certificates of a CA replaced under version 1 (pki_int's A): their attribution is the replaced-CA tests' matter.
      if (c.issuedBy === 'A') return { serial: c.serial, stored, revoked: revoked !== undefined };
      return {
        serial: c.serial,
        stored,
        issuer: rec && (await repo.issuerIdOf(rec)) === issuer?.id ? 'the migrated issuer' : (rec?.issuerId ?? 'none'),
        revoked: revoked !== undefined,
        revocationIssuer: revoked ? ((await repo.issuerIdOf(revoked)) === issuer?.id ? 'the migrated issuer' : 'other') : 'n/a',
      };
    }),
  );
  const crlCurrent = (await part.get<{ der: string }>('crl/current'))?.value;
  const crlNow = issuer ? await repo.crlRecord<{ der: string }>(issuer.id) : undefined;
  const ca = (await part.get<CaRecord>('ca/current'))?.value;
  const pending = (await part.get<PendingRecord>('ca/pending'))?.value;
  return {
    meta: { version: meta.version, legacyIssuerIsTheIssuer: meta.legacyIssuer !== undefined && meta.legacyIssuer === issuer?.id },
    issuers: issuers.length,
    issuer: issuer && {
      isDefault: (await repo.issuersConfig()).default === issuer.id,
      certificateIsTheCa: pemEq(issuer.certificate, fixture.ca),
      serial: issuer.serial === fixture.caSerial,
      chain: issuer.caChain.map((c) => (m.pki.ca && pemEq(c, m.pki.ca) ? 'the pki root' : 'other')),
      keySigns: issuer.keyId !== '' && (await keySignsFor(deps, part, issuer.keyId, caCert.spki)),
      keyIsDefault: (await repo.keysConfig()).default === issuer.keyId,
      usage: issuer.usage,
    },
    keys: keys.length,
    pendingKey: pendingSpki ? pendingKey !== undefined && (await keySignsFor(deps, part, pendingKey.id, pendingSpki)) : 'n/a',
    certs,
    // pki: the CRL as version 1 left it, carried over under the issuer (copied, not rebuilt). pki_int's
    // crl/current is the replaced CA's: what is served there is the replaced-CA tests' matter.
    crlCarriedOver: mount === 'pki_int' ? 'n/a' : crlCurrent !== undefined && crlNow !== undefined && crlNow.der === crlCurrent.der,
    v1Records: {
      ca: ca !== undefined && pemEq(ca.certificate, fixture.ca),
      pending: mount === 'pki_int' ? pending !== undefined : pending === undefined,
      crl: crlCurrent !== undefined,
    },
  };
}

/** What migratedState must answer for a mount of the fixture. */
export function expectedState(mount: 'pki' | 'pki_int', m: Manifest) {
  const fixture = m[mount];
  return {
    meta: { version: 2, legacyIssuerIsTheIssuer: true },
    issuers: 1,
    issuer: {
      isDefault: true,
      certificateIsTheCa: true,
      serial: true,
      chain: mount === 'pki' ? [] : ['the pki root'],
      keySigns: true,
      keyIsDefault: true,
      usage: ['read-only', 'issuing-certificates', 'crl-signing', 'ocsp-signing'],
    },
    keys: mount === 'pki' ? 1 : 2,
    pendingKey: mount === 'pki' ? 'n/a' : true,
    certs: fixture.certificates.map((c) =>
      c.issuedBy === 'A'
        ? { serial: c.serial, stored: true, revoked: c.revoked }
        : {
            serial: c.serial,
            stored: true,
            issuer: 'the migrated issuer',
            revoked: c.revoked,
            revocationIssuer: c.revoked ? 'the migrated issuer' : 'n/a',
          },
    ),
    crlCarriedOver: mount === 'pki_int' ? 'n/a' : true,
    v1Records: { ca: true, pending: true, crl: true },
  };
}
