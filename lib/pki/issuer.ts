/**
 * An issuer ready to sign: its record, its parsed certificate and its key's signer, cached per
 * process by issuer id and certificate serial, so issuing does not unseal the key on every
 * request. Keys are opened here too (sealed in the table, or held by KMS).
 */
import { createPrivateKey } from 'node:crypto';
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import type { Signer } from '../keys/signer';
import { LocalSigner } from '../keys/signer-local';
import type { Partition } from '../store/store';
import { openManagedSigner } from './managed-keys';
import type { KeyInfo } from './migrations';
import { parseCertificate, type ParsedCert } from './parse';
import { onePem } from './pem';
import { PkiRepository } from './repository';
import type { IssuerRecord, IssuerUsage, KeyRecord, KeyRef } from './storage';

export interface Issuer {
  record: IssuerRecord;
  cert: ParsedCert;
  signer: Signer;
}

const cache = new Map<string, Promise<Issuer>>();

/** The additional data a local key was sealed with. */
const aadOf = (key: KeyRecord) => (key.ref.kind === 'local' ? (key.ref.aad ?? `key/${key.id}`) : '');

export async function openSigner(deps: Deps, part: Partition, ref: KeyRef, aad: string): Promise<Signer> {
  if (ref.kind === 'kms') return openManagedSigner(ref.keyId, deps.env.region, deps.env.kmsEndpoint);
  const der = await deps.sealer.open(ref.sealed, `${part.name}/${aad}`);
  return new LocalSigner(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
}

/** The signer of a key record. */
export function keySigner(deps: Deps, part: Partition, key: KeyRecord): Promise<Signer> {
  return openSigner(deps, part, key.ref, aadOf(key));
}

export async function sealKey(deps: Deps, part: Partition, pkcs8: Buffer, aad: string): Promise<KeyRef> {
  return { kind: 'local', sealed: await deps.sealer.seal(pkcs8, part.name, `${part.name}/${aad}`), aad };
}

/** The mount's repository, able to open sealed keys for its migration. */
export function pkiRepository(deps: Deps, part: Partition): PkiRepository {
  const keyInfo: KeyInfo = async (ref, aad) => {
    const signer = await openSigner(deps, part, ref, aad);
    return { spki: signer.spki, keyType: signer.keyType, keyBits: signer.keyBits };
  };
  return new PkiRepository(deps, part, keyInfo);
}

/**
 * The issuer `ref` names (`default`, an id or a name), able to sign for `usage`; a 4xx naming
 * the problem when there is none, it has no key here, or its usage forbids it.
 */
export async function loadIssuer(
  deps: Deps,
  part: Partition,
  ref = 'default',
  usage: IssuerUsage = 'issuing-certificates',
): Promise<Issuer> {
  const repo = pkiRepository(deps, part);
  const record = await repo.resolveIssuer(ref).catch((e: unknown) => {
    if (ref === 'default') throw new InvalidInput('no default issuer currently configured: generate or import a CA first');
    throw e;
  });
  if (!record.usage.includes(usage)) {
    const why = `its usage: ${record.usage.join(',')}${record.revokedAt ? '; the issuer was revoked' : ''}`;
    throw new InvalidInput(`issuer ${record.name || record.id} may not be used for ${usage} (${why})`);
  }
  if (!record.keyId) throw new InvalidInput(`issuer ${record.name || record.id} has no key in this mount: it cannot sign`);
  const cacheKey = `${part.name}|${record.id}|${record.serial}|${record.keyId}`;
  let hit = cache.get(cacheKey);
  if (!hit) {
    hit = (async () => {
      const key = await repo.key(record.keyId);
      if (!key) throw new InvalidInput(`the key of issuer ${record.name || record.id} is gone: it cannot sign`);
      const cert = parseCertificate(onePem(record.certificate, ['CERTIFICATE'], 'the CA certificate'));
      return { record, cert, signer: await keySigner(deps, part, key) };
    })();
    cache.set(cacheKey, hit);
    hit.catch(() => cache.delete(cacheKey));
  }
  const issuer = await hit;
  return { ...issuer, record };
}

/** The default issuer's record through the per-process cache, or undefined (the unauthenticated CA reads). */
export async function defaultIssuerRecord(deps: Deps, part: Partition): Promise<IssuerRecord | undefined> {
  return pkiRepository(deps, part).findIssuer('default');
}
