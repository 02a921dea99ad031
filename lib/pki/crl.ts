/** The mount's CRL: rebuilt from the `revoked` index on every revocation, signed by the issuer. */
import type { Deps } from '../deps';
import { keyIdentifier, signatureAlgorithm } from '../keys/signer';
import { mutate, type Json, type Partition } from '../store/store';
import { DEFAULT_CRL, readConfig } from './config';
import { buildCrl, type RevokedEntry } from './der/crl';
import { loadIssuer } from './issuer';
import { REVOKED_INDEX, type RevokedRecord } from './storage';

interface CrlRecord {
  [k: string]: Json;
  der: string;
  number: number;
}

async function revokedEntries(part: Partition, disabled: boolean): Promise<RevokedEntry[]> {
  if (disabled) return [];
  const out: RevokedEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await part.queryIndex<RevokedRecord>(REVOKED_INDEX, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const i of page.items) out.push({ serial: Buffer.from(i.value.serial, 'hex'), revokedAt: i.value.revokedAt });
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
  const config = await readConfig(part, 'crl', DEFAULT_CRL);
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
        revoked: await revokedEntries(part, config.disable),
      },
      issuer.signer,
      signatureAlgorithm(issuer.signer),
    );
    return { der: der.toString('base64'), number: (current?.number ?? 0) + 1 };
  });
  return der;
}

/** The current CRL, built on first need. */
export async function currentCrl(deps: Deps, part: Partition): Promise<Buffer> {
  const item = await part.get<CrlRecord>('crl/current');
  if (item) return Buffer.from(item.value.der, 'base64');
  return rebuildCrl(deps, part);
}
