/**
 * The mount's CRL: rebuilt from the `revoked` index on every revocation and whenever the CA
 * changes (a new root, config/ca, set-signed), signed by the CA that serves it and listing only
 * the certificates that CA issued.
 */
import type { Deps } from '../deps';
import { keyIdentifier, signatureAlgorithm } from '../keys/signer';
import { mutate, type Json, type Partition } from '../store/store';
import { buildCrl, type RevokedEntry } from './der/crl';
import { readCertificate } from './certs';
import { cachedCa, loadIssuer } from './issuer';
import { PkiStore } from './pki-store';
import { caIdOf, issuedBy, issuerIdOf } from './issuer-id';
import { parseCertificate } from './parse';
import { REVOKED_INDEX, type RevokedRecord } from './storage';

interface CrlRecord {
  [k: string]: Json;
  der: string;
  number: number;
  /** The serial of the CA certificate it was built for (missing on CRLs of earlier versions). */
  ca: string;
}

/** Whether the revoked certificate was issued by the CA `caId` (records of old: from the certificate). */
async function issuedByCa(part: Partition, r: RevokedRecord, caId: string): Promise<boolean> {
  if (r.issuer) return issuedBy(r.issuer, caId);
  const cert = await readCertificate(part, Buffer.from(r.serial, 'hex'));
  if (!cert) return true;
  return issuedBy(issuerIdOf(parseCertificate(Buffer.from(cert.der, 'base64'))), caId);
}

async function revokedEntries(part: Partition, disabled: boolean, caId: string): Promise<RevokedEntry[]> {
  if (disabled) return [];
  const out: RevokedEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await part.queryIndex<RevokedRecord>(REVOKED_INDEX, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const i of page.items) {
      if (await issuedByCa(part, i.value, caId))
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

/** Builds and stores a fresh CRL (the number only ever grows); returns its DER. */
/**
 * Rebuilds a mount's CRL. Callers that arrive while a rebuild runs share the next one, which
 * starts after it: each still gets a CRL built after its call, and a burst of revocations (a
 * token's leases revoked together) costs a few rebuilds instead of one each.
 */
export function rebuildCrl(deps: Deps, part: Partition): Promise<Buffer> {
  let byPart = flights.get(deps.store);
  if (!byPart) flights.set(deps.store, (byPart = new Map()));
  const parts = byPart;
  const launch = (): Promise<Buffer> => {
    const run = buildAndStore(deps, part).finally(() => {
      if (parts.get(part.name)?.run === run) parts.delete(part.name);
    });
    parts.set(part.name, { run });
    return run;
  };
  const flight = parts.get(part.name);
  if (!flight) return launch();
  flight.queued ??= flight.run.catch(() => undefined).then(launch);
  return flight.queued;
}

interface Flight {
  run: Promise<Buffer>;
  queued?: Promise<Buffer>;
}
const flights = new WeakMap<object, Map<string, Flight>>();

async function buildAndStore(deps: Deps, part: Partition): Promise<Buffer> {
  const issuer = await loadIssuer(deps, part);
  const config = await new PkiStore(deps, part).config('crl');
  let der: Buffer = Buffer.alloc(0);
  await mutate<CrlRecord>(part, 'crl/current', async (current) => {
    const now = deps.now();
    der = await buildCrl(
      {
        issuer: issuer.cert.subjectDer,
        issuerKeyId: issuer.cert.subjectKeyId ?? keyIdentifier(issuer.signer.spki),
        thisUpdate: now,
        nextUpdate: now + config.expiry * 1000,
        number: (current?.number ?? 0) + 1,
        revoked: await revokedEntries(part, config.disable, caIdOf({ ...issuer.cert, spki: issuer.signer.spki })),
      },
      issuer.signer,
      signatureAlgorithm(issuer.signer),
    );
    return { der: der.toString('base64'), number: (current?.number ?? 0) + 1, ca: issuer.record.serial };
  });
  return der;
}

/** The current CRL, built on first need and again when the CA that serves it has changed. */
export async function currentCrl(deps: Deps, part: Partition): Promise<Buffer> {
  const [item, ca] = await Promise.all([part.get<CrlRecord>('crl/current'), cachedCa(deps, part)]);
  if (item && (!ca?.key || item.value.ca === ca.serial)) return Buffer.from(item.value.der, 'base64');
  return rebuildCrl(deps, part);
}
