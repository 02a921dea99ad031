/**
 * Each issuer's complete CRL: rebuilt from the `revoked` index on every revocation of a
 * certificate it issued (or, with config/crl auto_rebuild, by the schedule within
 * auto_rebuild_grace_period of its nextUpdate: crl-schedule.ts), signed by that issuer and
 * listing the certificates of its CRL group: itself and the issuers sharing its key and subject
 * (a cross-signed copy and its original), whose leaves a relying party cannot tell apart, as
 * OpenBao shares one CRL among them. A certificate's record names its issuer; records of version
 * 1 belong to the migrated CA. Built on first need. With enable_delta, each complete CRL carries
 * the Freshest CRL extension (when delta CRL distribution points are set) and is followed by a
 * delta on it (crl-delta.ts); complete and delta CRLs take their numbers from one sequence.
 */
import { metrics, mountOf } from '../metrics/catalog';
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import { keyIdentifier, signatureAlgorithm } from '../keys/signer';
import { mutate, type Partition } from '../store/store';
import type { CrlConfig } from './config';
import {
  baseKey,
  buildAndStoreDelta,
  crlBase,
  deltaRecord,
  hasDeltaWal,
  numberKey,
  writeDeltaWal,
  type CrlBase,
  type CrlSigning,
} from './crl-delta';
import { buildCrl, encodeRevoked } from './der/crl';
import { loadIssuer, pkiRepository } from './issuer';
import type { PkiRepository } from './repository';
import { parseCertificate } from './parse';
import { onePem } from './pem';
import { REVOKED_INDEX, type IssuerRecord, type RevokedRecord } from './storage';
import { aiaUrls } from './urls';

type CrlRecord = {
  der: string;
  number: number;
  /** When the build started reading the revoked index (ms); absent (with the times) on records of before delta CRLs. */
  cutoff?: number;
  thisUpdate?: number;
  nextUpdate?: number;
};

const subjectOf = (i: IssuerRecord) =>
  parseCertificate(onePem(i.certificate, ['CERTIFICATE'], 'an issuer certificate')).subjectDer.toString('base64');

/** The issuers whose certificates `issuer`'s CRL lists: it and those with its key and subject. */
export function crlGroup(all: IssuerRecord[], issuer: IssuerRecord): IssuerRecord[] {
  if (!issuer.keyId) return [issuer];
  const subject = subjectOf(issuer);
  return all.filter((i) => i.id === issuer.id || (i.keyId === issuer.keyId && subjectOf(i) === subject));
}

/**
 * The CRL entries of the group's revocations, encoded as the index is paged (1000 at a time):
 * one buffer per page, so a CRL of 100,000 entries holds a hundred buffers, not 100,000 objects.
 */
async function revokedEntries(repo: PkiRepository, disabled: boolean, issuerIds: Set<string>): Promise<{ revokedDer: Buffer[] }> {
  const pages: Buffer[] = [];
  if (disabled) return { revokedDer: pages };
  let cursor: string | undefined;
  do {
    const page = await repo.part.queryIndex<RevokedRecord>(REVOKED_INDEX, { limit: 1000, ...(cursor ? { cursor } : {}) });
    const entries: Buffer[] = [];
    for (const { value: r } of page.items) {
      if (!issuerIds.has(r.issuerId ?? (await repo.issuerIdOf(r)))) continue;
      entries.push(
        encodeRevoked({ serial: Buffer.from(r.serial, 'hex'), revokedAt: r.revokedAt, ...(r.reason ? { reason: r.reason } : {}) }),
      );
    }
    pages.push(Buffer.concat(entries));
    cursor = page.cursor;
  } while (cursor);
  return { revokedDer: pages };
}

/** The RSA hash size an issuer's revocation_signature_algorithm asks for (0: the default; issuer-admin.ts checks it fits the key). */
const revocationHashBits = (alg: string): number => Number(/^SHA(256|384|512)WithRSA$/.exec(alg)?.[1] ?? 0);

interface Flight {
  run: Promise<Buffer>;
  queued?: Promise<Buffer>;
}
const flights = new WeakMap<object, Map<string, Flight>>();

/**
 * Runs `build` for `key` (a mount, an issuer, complete or delta): callers that arrive while one
 * runs share the next one, which starts after it. Each still gets a CRL built after its call,
 * and a burst of revocations (a token's leases revoked together) costs a few rebuilds instead of
 * one each.
 */
function coalesced(deps: Deps, key: string, build: () => Promise<Buffer>): Promise<Buffer> {
  let runs = flights.get(deps.store);
  if (!runs) flights.set(deps.store, (runs = new Map()));
  const byKey = runs;
  const launch = (): Promise<Buffer> => {
    const run = build().finally(() => {
      if (byKey.get(key)?.run === run) byKey.delete(key);
    });
    byKey.set(key, { run });
    return run;
  };
  const flight = byKey.get(key);
  if (!flight) return launch();
  flight.queued ??= flight.run.catch(() => undefined).then(launch);
  return flight.queued;
}

/** The next number of an issuer's CRL sequence, above `floor` (a number already used, by a record of before the sequence). */
async function nextNumber(part: Partition, issuerId: string, floor = 0): Promise<number> {
  const n = await part.increment(numberKey(issuerId));
  return n > floor ? n : part.increment(numberKey(issuerId), floor - n + 1);
}

interface Context {
  repo: PkiRepository;
  config: CrlConfig;
  signing: CrlSigning;
  /** Delta CRL distribution points, for the complete CRL's Freshest CRL extension. */
  freshest: string[];
}

async function context(deps: Deps, part: Partition, issuerId: string): Promise<Context> {
  const issuer = await loadIssuer(deps, part, issuerId, 'crl-signing');
  const repo = pkiRepository(deps, part);
  const config = await repo.config('crl');
  const group = new Set(crlGroup(await repo.issuers(), issuer.record).map((i) => i.id));
  // The issuer's URLs as its certificates carry them; none when it has none to carry.
  const urls = await aiaUrls(repo, issuer.record).catch((e: unknown) => {
    if (e instanceof InvalidInput) return undefined;
    throw e;
  });
  return {
    repo,
    config,
    freshest: urls?.deltaCrlDistributionPoints ?? [],
    signing: {
      issuerDer: issuer.cert.subjectDer,
      issuerKeyId: issuer.cert.subjectKeyId ?? keyIdentifier(issuer.signer.spki),
      signer: issuer.signer,
      alg: signatureAlgorithm(issuer.signer, revocationHashBits(issuer.record.revocationSignatureAlgorithm)),
      group,
      expiry: config.expiry,
      disable: config.disable,
    },
  };
}

/** Rebuilds an issuer's complete CRL (by id; default: the default issuer), then its delta when deltas are on. */
export async function rebuildCrl(deps: Deps, part: Partition, issuerId?: string): Promise<Buffer> {
  const id = issuerId ?? (await pkiRepository(deps, part).resolveIssuer('default')).id;
  const der = await buildComplete(deps, part, id);
  if ((await pkiRepository(deps, part).config('crl')).enableDelta) await rebuildDelta(deps, part, id);
  return der;
}

const buildComplete = (deps: Deps, part: Partition, id: string) =>
  coalesced(deps, `${part.name}|complete|${id}`, () => timedBuild(part, 'complete', () => buildAndStore(deps, part, id)));

/** Counts a CRL build of `kind` on the partition's mount with its duration (a failed build is not counted). */
async function timedBuild<T>(part: Partition, kind: 'complete' | 'delta', build: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const out = await build();
  const labels = { mount: mountOf(part.name), kind };
  metrics.pki.crlBuilds.inc(labels);
  metrics.pki.crlBuildSeconds.observe(labels, (performance.now() - started) / 1000);
  return out;
}

async function buildAndStore(deps: Deps, part: Partition, issuerId: string): Promise<Buffer> {
  const ctx = await context(deps, part, issuerId);
  const { repo, config, signing: s } = ctx;
  const cutoff = deps.now();
  // Allocated before the index is read: a CRL of a higher number read it later.
  let number = await nextNumber(part, issuerId);
  const revoked = await revokedEntries(repo, config.disable, s.group);
  const thisUpdate = deps.now();
  const nextUpdate = thisUpdate + config.expiry * 1000;
  const sign = (n: number) =>
    buildCrl(
      { issuer: s.issuerDer, issuerKeyId: s.issuerKeyId, thisUpdate, nextUpdate, number: n, revoked, freshest: ctx.freshest },
      s.signer,
      s.alg,
    );
  let der = await sign(number);
  let base: CrlBase = { number, thisUpdate, nextUpdate, cutoff };
  await mutate<CrlRecord>(part, repo.crlKey(issuerId), async (current) => {
    base = { number, thisUpdate, nextUpdate, cutoff };
    if (current && current.number >= number) {
      if (current.cutoff !== undefined) {
        // A build that started later has stored its CRL: it stays (and its base is written below, if it has not been yet).
        der = Buffer.from(current.der, 'base64');
        base = { number: current.number, thisUpdate: current.thisUpdate ?? 0, nextUpdate: current.nextUpdate ?? 0, cutoff: current.cutoff };
        return undefined;
      }
      // A CRL of before the shared sequence: the sequence moves past its number.
      number = await nextNumber(part, issuerId, current.number);
      der = await sign(number);
      base = { number, thisUpdate, nextUpdate, cutoff };
    }
    return { der: der.toString('base64'), number, cutoff, thisUpdate, nextUpdate };
  });
  // After the CRL: a base never names a CRL that is not (yet) in place, so a delta on it never misses what that CRL lacks.
  const written = base;
  await mutate<CrlBase>(part, baseKey(issuerId), (current) => (current && current.number >= written.number ? undefined : written));
  return der;
}

/** Rebuilds an issuer's delta CRL (deltas on); builds the complete CRL first when none is in place. */
export async function rebuildDelta(deps: Deps, part: Partition, issuerId: string): Promise<Buffer | undefined> {
  return coalesced(deps, `${part.name}|delta|${issuerId}`, async () => {
    const ctx = await context(deps, part, issuerId);
    if (!ctx.config.enableDelta) return Buffer.alloc(0);
    let base = await crlBase(part, issuerId);
    if (!base) {
      await buildComplete(deps, part, issuerId);
      base = await crlBase(part, issuerId);
      if (!base) throw new Error(`no complete CRL of issuer ${issuerId} after building one`);
    }
    // Allocated before the revocation list is read: a delta of a higher number read it later.
    const number = await nextNumber(part, issuerId, base.number);
    return timedBuild(part, 'delta', () => buildAndStoreDelta(deps, ctx.repo, issuerId, ctx.signing, base, number));
  }).then((der) => (der.length ? der : undefined));
}

/** The current CRL of an issuer (default: the default issuer), built on first need. */
export async function currentCrl(deps: Deps, part: Partition, issuerRef = 'default'): Promise<Buffer> {
  const repo = pkiRepository(deps, part);
  const issuer = await repo.resolveIssuer(issuerRef);
  const item = await repo.crlRecord<CrlRecord>(issuer.id);
  if (item) return Buffer.from(item.der, 'base64');
  return rebuildCrl(deps, part, issuer.id);
}

/**
 * The current delta CRL of an issuer (default: the default issuer), built on first need; none
 * (undefined) while config/crl enable_delta is off.
 */
export async function currentDeltaCrl(deps: Deps, part: Partition, issuerRef = 'default'): Promise<Buffer | undefined> {
  const repo = pkiRepository(deps, part);
  const issuer = await repo.resolveIssuer(issuerRef);
  if (!(await repo.config('crl')).enableDelta) return undefined;
  const item = await deltaRecord(part, issuer.id);
  if (item) return Buffer.from(item.der, 'base64');
  return rebuildDelta(deps, part, issuer.id);
}

/** The issuers of `issuerId`'s CRL group able to sign a CRL. */
async function signersOfGroup(repo: PkiRepository, issuerId: string): Promise<IssuerRecord[]> {
  const issuer = issuerId ? await repo.issuer(issuerId) : undefined;
  if (!issuer) return [];
  return crlGroup(await repo.issuers(), issuer).filter((i) => i.keyId && i.usage.includes('crl-signing'));
}

/** After a revocation among `issuerId`'s certificates: the CRL of each issuer of its CRL group able to sign one. */
export async function rebuildGroupCrls(deps: Deps, part: Partition, issuerId: string): Promise<void> {
  for (const i of await signersOfGroup(pkiRepository(deps, part), issuerId)) await rebuildCrl(deps, part, i.id);
}

/**
 * After a revocation is written (`revoked/<serial>`), what config/crl asks: without auto_rebuild
 * the complete CRLs of its group are rebuilt; with enable_delta it goes on the delta list and the
 * group's deltas are rebuilt at once (every instance then serves them); with auto_rebuild alone,
 * the schedule's next complete rebuild lists it. `again`: a repeated revocation, which puts on
 * the delta list one the first call may have left off (a crash between the two writes).
 */
export async function afterRevocation(deps: Deps, part: Partition, record: RevokedRecord, again = false): Promise<void> {
  const repo = pkiRepository(deps, part);
  const config = await repo.config('crl');
  if (!config.autoRebuild) {
    if (!again) await rebuildGroupCrls(deps, part, record.issuerId ?? (await repo.issuerIdOf(record)));
    return;
  }
  if (!config.enableDelta) return;
  if (again && (await hasDeltaWal(part, record.serial))) return;
  await writeDeltaWal(part, record);
  for (const i of await signersOfGroup(repo, record.issuerId ?? (await repo.issuerIdOf(record)))) await rebuildDelta(deps, part, i.id);
}

/**
 * Rebuilds the CRL of every issuer of the mount able to sign one (after tidy removed revocations
 * or issuers, or the CRL config changed). One issuer's failure (its KMS key unreachable) does not
 * keep the others' from being rebuilt: the first failure is thrown once all were tried.
 */
export async function rebuildAllCrls(deps: Deps, part: Partition): Promise<void> {
  const failures: unknown[] = [];
  for (const i of await pkiRepository(deps, part).issuers()) {
    if (i.keyId && i.usage.includes('crl-signing')) await rebuildCrl(deps, part, i.id).catch((e: unknown) => failures.push(e));
  }
  if (failures.length) throw failures[0];
}

/** Rebuilds the delta CRL of every issuer of the mount able to sign one (crl/rotate-delta); false when deltas are off. */
export async function rebuildAllDeltas(deps: Deps, part: Partition): Promise<boolean> {
  const repo = pkiRepository(deps, part);
  if (!(await repo.config('crl')).enableDelta) return false;
  const failures: unknown[] = [];
  for (const i of await repo.issuers()) {
    if (i.keyId && i.usage.includes('crl-signing')) await rebuildDelta(deps, part, i.id).catch((e: unknown) => failures.push(e));
  }
  if (failures.length) throw failures[0];
  return true;
}
