/**
 * Tidy of expired issuers (`tidy_expired_issuers`), as the reference server does it: an issuer
 * whose certificate expired more than `issuer_safety_buffer` ago is removed with its CRL; the
 * default issuer is kept (a log line says it would have gone); keys stay, so a removed issuer
 * can be imported again and an operator removes a key with DELETE key/<ref>. Each removal is
 * logged with the issuer's certificate. Once any went, the chains and every issuer's CRL are
 * rebuilt (afterIssuersRemoved; tidy.ts decides when, so a run resumed after a crash still does).
 * Certificates and revocations of a removed issuer stay on record until they expire.
 */
import type { Deps } from '../deps';
import { logError, logInfo } from '../log';
import type { Partition } from '../store/store';
import { rebuildAllCrls } from './crl';
import { pkiRepository } from './issuer';
import { rebuildChains } from './issuers';
import { parseCertificate } from './parse';
import { onePem } from './pem';
import type { IssuerRecord } from './storage';

export interface ExpiredIssuers {
  /** Issuers to remove, in the order the mount lists them. */
  remove: IssuerRecord[];
  /** The default issuer, when it is past the buffer too: never removed. */
  keptDefault?: IssuerRecord;
}

const notAfterOf = (i: IssuerRecord) => parseCertificate(onePem(i.certificate, ['CERTIFICATE'], 'an issuer certificate')).notAfter;

/** The issuers whose certificate expired more than `bufferSeconds` before `now` (ms), the default set apart. */
export function expiredIssuers(issuers: IssuerRecord[], defaultId: string, now: number, bufferSeconds: number): ExpiredIssuers {
  const out: ExpiredIssuers = { remove: [] };
  for (const i of issuers) {
    if (now - notAfterOf(i) <= bufferSeconds * 1000) continue;
    if (i.id === defaultId) out.keptDefault = i;
    else out.remove.push(i);
  }
  return out;
}

const described = (i: IssuerRecord) => ({ issuer_id: i.id, issuer_name: i.name });

/** Removes the expired issuers, calling `removed` after each; answers how many went. */
export async function removeExpiredIssuers(
  deps: Deps,
  part: Partition,
  bufferSeconds: number,
  removed: (count: number) => Promise<void>,
): Promise<number> {
  const repo = pkiRepository(deps, part);
  const { default: defaultId } = await repo.issuersConfig();
  const { remove, keptDefault } = expiredIssuers(await repo.issuers(), defaultId, deps.now(), bufferSeconds);
  if (keptDefault) logInfo('pki-tidy-default-issuer-kept', { partition: part.name, ...described(keptDefault) });
  let count = 0;
  for (const i of remove) {
    logInfo('pki-tidy-issuer-removed', {
      partition: part.name,
      ...described(i),
      serial_number: i.serial,
      key_id: i.keyId,
      issuer_safety_buffer: bufferSeconds,
      certificate: i.certificate,
    });
    await repo.deleteIssuer(i.id);
    await removed(++count);
  }
  return count;
}

/**
 * After issuers were removed: the chains of the others, and every issuer's CRL. A failed CRL
 * rebuild is logged, not thrown: the removals stand, and the next revocation or crl/rotate
 * rebuilds it.
 */
export async function afterIssuersRemoved(deps: Deps, part: Partition): Promise<void> {
  await rebuildChains(pkiRepository(deps, part));
  await rebuildAllCrls(deps, part).catch((e: unknown) => logError('pki-tidy-crl-fault', { partition: part.name }, e));
}
