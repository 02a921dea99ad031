/**
 * Each issuer's CRL: rebuilt from the `revoked` index on every revocation of a certificate it
 * issued, signed by that issuer and listing the certificates of its CRL group: itself and the
 * issuers sharing its key and subject (a cross-signed copy and its original), whose leaves a
 * relying party cannot tell apart, as OpenBao shares one CRL among them. A certificate's record
 * names its issuer; records of version 1 belong to the migrated CA. Built on first need.
 */
import type { Deps } from '../deps';
import { keyIdentifier, signatureAlgorithm } from '../keys/signer';
import { mutate, type Json, type Partition } from '../store/store';
import { buildCrl, type RevokedEntry } from './der/crl';
import { loadIssuer, pkiRepository } from './issuer';
import type { PkiRepository } from './repository';
import { parseCertificate } from './parse';
import { onePem } from './pem';
import { REVOKED_INDEX, type IssuerRecord, type RevokedRecord } from './storage';

interface CrlRecord {
  [k: string]: Json;
  der: string;
  number: number;
}

const subjectOf = (i: IssuerRecord) =>
  parseCertificate(onePem(i.certificate, ['CERTIFICATE'], 'an issuer certificate')).subjectDer.toString('base64');

/** The issuers whose certificates `issuer`'s CRL lists: it and those with its key and subject. */
export function crlGroup(all: IssuerRecord[], issuer: IssuerRecord): IssuerRecord[] {
  if (!issuer.keyId) return [issuer];
  const subject = subjectOf(issuer);
  return all.filter((i) => i.id === issuer.id || (i.keyId === issuer.keyId && subjectOf(i) === subject));
}

async function revokedEntries(repo: PkiRepository, disabled: boolean, issuerIds: Set<string>): Promise<RevokedEntry[]> {
  if (disabled) return [];
  const out: RevokedEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await repo.part.queryIndex<RevokedRecord>(REVOKED_INDEX, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const i of page.items) {
      if (!issuerIds.has(await repo.issuerIdOf(i.value))) continue;
      out.push({
        serial: Buffer.from(i.value.serial, 'hex'),
        revokedAt: i.value.revokedAt,
        ...(i.value.reason ? { reason: i.value.reason } : {}),
      });
    }
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/** The RSA hash size an issuer's revocation_signature_algorithm asks for (0: the default; issuer-admin.ts checks it fits the key). */
const revocationHashBits = (alg: string): number => Number(/^SHA(256|384|512)WithRSA$/.exec(alg)?.[1] ?? 0);

interface Flight {
  run: Promise<Buffer>;
  queued?: Promise<Buffer>;
}
const flights = new WeakMap<object, Map<string, Flight>>();

/**
 * Rebuilds an issuer's CRL (by id; default: the default issuer). Callers that arrive while a
 * rebuild runs share the next one, which starts after it: each still gets a CRL built after its
 * call, and a burst of revocations (a token's leases revoked together) costs a few rebuilds
 * instead of one each.
 */
export async function rebuildCrl(deps: Deps, part: Partition, issuerId?: string): Promise<Buffer> {
  const id = issuerId ?? (await pkiRepository(deps, part).resolveIssuer('default')).id;
  let byPart = flights.get(deps.store);
  if (!byPart) flights.set(deps.store, (byPart = new Map()));
  const runs = byPart;
  const key = `${part.name}|${id}`;
  const launch = (): Promise<Buffer> => {
    const run = buildAndStore(deps, part, id).finally(() => {
      if (runs.get(key)?.run === run) runs.delete(key);
    });
    runs.set(key, { run });
    return run;
  };
  const flight = runs.get(key);
  if (!flight) return launch();
  flight.queued ??= flight.run.catch(() => undefined).then(launch);
  return flight.queued;
}

async function buildAndStore(deps: Deps, part: Partition, issuerId: string): Promise<Buffer> {
  const issuer = await loadIssuer(deps, part, issuerId, 'crl-signing');
  const repo = pkiRepository(deps, part);
  const config = await repo.config('crl');
  const group = new Set(crlGroup(await repo.issuers(), issuer.record).map((i) => i.id));
  let der: Buffer = Buffer.alloc(0);
  await mutate<CrlRecord>(part, repo.crlKey(issuerId), async (current) => {
    const now = deps.now();
    der = await buildCrl(
      {
        issuer: issuer.cert.subjectDer,
        issuerKeyId: issuer.cert.subjectKeyId ?? keyIdentifier(issuer.signer.spki),
        thisUpdate: now,
        nextUpdate: now + config.expiry * 1000,
        number: (current?.number ?? 0) + 1,
        revoked: await revokedEntries(repo, config.disable, group),
      },
      issuer.signer,
      signatureAlgorithm(issuer.signer, revocationHashBits(issuer.record.revocationSignatureAlgorithm)),
    );
    return { der: der.toString('base64'), number: (current?.number ?? 0) + 1 };
  });
  return der;
}

/** The current CRL of an issuer (default: the default issuer), built on first need. */
export async function currentCrl(deps: Deps, part: Partition, issuerRef = 'default'): Promise<Buffer> {
  const repo = pkiRepository(deps, part);
  const issuer = await repo.resolveIssuer(issuerRef);
  const item = await repo.crlRecord<CrlRecord>(issuer.id);
  if (item) return Buffer.from(item.der, 'base64');
  return rebuildCrl(deps, part, issuer.id);
}

/** After a revocation among `issuerId`'s certificates: the CRL of each issuer of its CRL group able to sign one. */
export async function rebuildGroupCrls(deps: Deps, part: Partition, issuerId: string): Promise<void> {
  const repo = pkiRepository(deps, part);
  const issuer = issuerId ? await repo.issuer(issuerId) : undefined;
  if (!issuer) return;
  for (const i of crlGroup(await repo.issuers(), issuer))
    if (i.keyId && i.usage.includes('crl-signing')) await rebuildCrl(deps, part, i.id);
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
