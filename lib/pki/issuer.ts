/**
 * The mount's issuer: its CA record, parsed certificate and signer, cached per process by
 * certificate serial so issuing does not unseal the key on every request.
 */
import { createPrivateKey } from 'node:crypto';
import type { Deps } from '../deps';
import { ConflictError, ExistsError, InvalidInput } from '../domain-errors';
import type { Signer } from '../keys/signer';
import { LocalSigner } from '../keys/signer-local';
import type { Partition } from '../store/store';
import { cached, invalidate } from './cache';
import { openManagedSigner } from './managed-keys';
import { parseCertificate, type ParsedCert } from './parse';
import { onePem } from './pem';
import type { CaRecord, KeyRef } from './storage';

export interface Issuer {
  record: CaRecord;
  cert: ParsedCert;
  signer: Signer;
}

const CA_KEY = 'ca/current';
const cache = new Map<string, Promise<Issuer>>();

export async function readCa(part: Partition): Promise<CaRecord | undefined> {
  return (await part.get<CaRecord>(CA_KEY))?.value;
}

export async function openSigner(deps: Deps, part: Partition, ref: KeyRef, aad: string): Promise<Signer> {
  if (ref.kind === 'kms') return openManagedSigner(ref.keyId, deps.env.region, deps.env.kmsEndpoint);
  const der = await deps.sealer.open(ref.sealed, `${part.name}/${aad}`);
  return new LocalSigner(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
}

export async function sealKey(deps: Deps, part: Partition, pkcs8: Buffer, aad: string): Promise<KeyRef> {
  return { kind: 'local', sealed: await deps.sealer.seal(pkcs8, part.name, `${part.name}/${aad}`) };
}

/** The issuer able to sign, or a 400 when the mount has no CA (or its key was deleted). */
/** The CA record through the per-process cache (writes here drop it; other instances within 2 s). */
export function cachedCa(deps: Deps, part: Partition): Promise<CaRecord | undefined> {
  return cached(deps.store, `${part.name}|ca`, () => readCa(part));
}

export async function loadIssuer(deps: Deps, part: Partition): Promise<Issuer> {
  const record = await cachedCa(deps, part);
  if (!record?.certificate || !record.key) throw new InvalidInput('no default issuer currently configured: generate or import a CA first');
  const cacheKey = `${part.name}|${record.serial}|${record.key.kind}`;
  let hit = cache.get(cacheKey);
  if (!hit) {
    const key = record.key;
    hit = (async () => {
      const cert = parseCertificate(onePem(record.certificate, ['CERTIFICATE'], 'the CA certificate'));
      return { record, cert, signer: await openSigner(deps, part, key, 'ca-key') };
    })();
    cache.set(cacheKey, hit);
    hit.catch(() => cache.delete(cacheKey));
  }
  const issuer = await hit;
  return { ...issuer, record };
}

/** Writes the issuer record, unconditionally (config/ca, set-signed) or only where no key is (generate). */
export async function writeCa(deps: Deps, part: Partition, record: CaRecord, onlyWithoutKey: boolean): Promise<void> {
  invalidate(deps.store, `${part.name}|ca`);
  try {
    await putCa(part, record, onlyWithoutKey);
  } finally {
    invalidate(deps.store, `${part.name}|ca`);
  }
}

async function putCa(part: Partition, record: CaRecord, onlyWithoutKey: boolean): Promise<void> {
  if (!onlyWithoutKey) {
    await part.put(CA_KEY, record);
    return;
  }
  const current = await part.get<CaRecord>(CA_KEY);
  if (current?.value.key)
    throw new InvalidInput('refusing to generate a root certificate over an existing root; delete it first (DELETE root)');
  try {
    await part.put(CA_KEY, record, current ? { ifVersion: current.version } : { ifAbsent: true });
  } catch (e) {
    if (e instanceof ConflictError || e instanceof ExistsError) {
      throw new InvalidInput('refusing to generate a root certificate over an existing root; delete it first (DELETE root)');
    }
    throw e;
  }
}

export async function deleteCaKey(deps: Deps, part: Partition): Promise<void> {
  invalidate(deps.store, `${part.name}|ca`);
  const current = await part.get<CaRecord>(CA_KEY);
  if (current) await part.put(CA_KEY, { ...current.value, key: null });
  await part.delete('ca/pending');
  invalidate(deps.store, `${part.name}|ca`);
}
