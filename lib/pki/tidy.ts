/**
 * Tidy: removes expired certificates (after a safety buffer) and expired revocations, page by
 * page through the expiry indexes, never listing everything; then expired issuers (after their
 * own buffer; tidy-issuers.ts) and ACME records. The status record is the write-ahead log: a run
 * cut short (a Lambda timeout) is resumed by the next scheduled run.
 */
import type { Deps } from '../deps';
import { logError } from '../log';
import { mutate, type Json, type Partition } from '../store/store';
import { tidyAcme } from './acme/tidy';
import { rebuildAllCrls } from './crl';
import { pkiRepository } from './issuer';
import { afterIssuersRemoved, removeExpiredIssuers } from './tidy-issuers';
import { CERT_INDEX, REVOKED_INDEX, type CertRecord, type RevokedRecord } from './storage';

export interface TidyOptions {
  tidyCertStore: boolean;
  tidyRevokedCerts: boolean;
  safetyBuffer: number;
  /** ACME nonces, finished or expired orders, and accounts without orders (acme/tidy.ts). */
  tidyAcme: boolean;
  /** Seconds an ACME account without orders is kept. */
  acmeAccountSafetyBuffer: number;
  /** Issuers whose certificate expired more than `issuerSafetyBuffer` ago, but the default (tidy-issuers.ts); absent: false. */
  tidyExpiredIssuers?: boolean;
  /** Seconds past an issuer's NotAfter before it is removed; absent: ISSUER_SAFETY_BUFFER. */
  issuerSafetyBuffer?: number;
}

export interface TidyStatus extends TidyOptions {
  [k: string]: Json;
  tidyExpiredIssuers: boolean;
  issuerSafetyBuffer: number;
  state: 'Inactive' | 'Running' | 'Finished' | 'Error';
  error: string | null;
  timeStarted: string | null;
  timeFinished: string | null;
  message: string;
  certStoreDeletedCount: number;
  revokedCertDeletedCount: number;
  acmeOrdersDeletedCount: number;
  acmeAccountDeletedCount: number;
  /** Issuers removed by tidy_expired_issuers. */
  issuersDeletedCount: number;
  /** ms; a Running tidy whose heartbeat is older than STALE_MS is taken over. */
  heartbeat: number;
  /** Certificates in the store when the tidy started (the TOTAL of the message). */
  total: number;
}

const STATUS = 'tidy/status';
/** The reference's default acme_account_safety_buffer: 30 days. */
export const ACME_ACCOUNT_SAFETY_BUFFER = 30 * 24 * 3600;
/** The reference's default issuer_safety_buffer: 365 days. */
export const ISSUER_SAFETY_BUFFER = 365 * 24 * 3600;
const STALE_MS = 120_000;
const PAGE = 500;

export const INACTIVE: TidyStatus = {
  state: 'Inactive',
  error: null,
  timeStarted: null,
  timeFinished: null,
  message: '',
  certStoreDeletedCount: 0,
  revokedCertDeletedCount: 0,
  acmeOrdersDeletedCount: 0,
  acmeAccountDeletedCount: 0,
  issuersDeletedCount: 0,
  tidyCertStore: false,
  tidyRevokedCerts: false,
  safetyBuffer: 0,
  tidyAcme: false,
  acmeAccountSafetyBuffer: ACME_ACCOUNT_SAFETY_BUFFER,
  tidyExpiredIssuers: false,
  issuerSafetyBuffer: ISSUER_SAFETY_BUFFER,
  heartbeat: 0,
  total: 0,
};

/** The status, with the fields a status of an earlier version lacks at their defaults. */
export async function tidyStatus(part: Partition): Promise<TidyStatus> {
  return { ...INACTIVE, ...(await part.get<TidyStatus>(STATUS))?.value };
}

export const isLive = (s: TidyStatus, now: number) => s.state === 'Running' && now - s.heartbeat < STALE_MS;

/** Marks a tidy as started; false when one is already running. */
export async function claimTidy(deps: Deps, part: Partition, o: TidyOptions): Promise<boolean> {
  let claimed = false;
  const total = await pkiRepository(deps, part).certificateCount();
  await mutate<TidyStatus>(part, STATUS, (cur) => {
    claimed = false;
    const now = deps.now();
    if (cur && isLive(cur, now)) return undefined;
    claimed = true;
    return { ...INACTIVE, ...o, total, state: 'Running', timeStarted: new Date(now).toISOString(), heartbeat: now };
  });
  return claimed;
}

async function update(part: Partition, change: Partial<TidyStatus>, heartbeat: number): Promise<void> {
  await mutate<TidyStatus>(part, STATUS, (cur) => ({ ...(cur ?? INACTIVE), ...change, heartbeat }));
}

async function tidyIndex(
  deps: Deps,
  part: Partition,
  index: string,
  cutoff: number,
  deadline: number,
  label: (n: number, total: number) => string,
  counter: 'certStoreDeletedCount' | 'revokedCertDeletedCount',
): Promise<boolean> {
  const to = `${String(Math.floor(cutoff / 1000)).padStart(12, '0')}#\uffff`;
  const status = await tidyStatus(part);
  let deleted = status[counter];
  // Every entry in the index range is due, so the entries checked so far are the ones deleted.
  const total = index === CERT_INDEX ? status.total : 0;
  for (;;) {
    const page = await part.queryIndex<CertRecord | RevokedRecord>(index, { to, limit: PAGE });
    if (!page.items.length) return true;
    const keys = page.items.map((i) => i.key);
    if (index === REVOKED_INDEX) keys.push(...page.items.map((i) => `cert/${i.key.slice('revoked/'.length)}`));
    await part.batchDelete(keys);
    if (index === CERT_INDEX) await pkiRepository(deps, part).countCertificates(-page.items.length);
    deleted += page.items.length;
    await update(part, { message: label(deleted, Math.max(total, deleted)), [counter]: deleted }, deps.now());
    // At least one page per invocation, so a run always makes progress.
    if (Date.now() > deadline) return false;
  }
}

/** Runs (or resumes) the claimed tidy until done or `deadline` (ms); returns whether it finished. */
export async function runTidy(deps: Deps, part: Partition, deadline = Date.now() + 25_000): Promise<boolean> {
  const s = await tidyStatus(part);
  const cutoff = deps.now() - s.safetyBuffer * 1000;
  try {
    if (s.tidyCertStore && !(await tidyCertStore(deps, part, cutoff, deadline))) return false;
    if (s.tidyRevokedCerts && !(await tidyRevokedCerts(deps, part, cutoff, deadline))) return false;
    if (s.tidyExpiredIssuers) await tidyExpiredIssuers(deps, part, s.issuerSafetyBuffer);
    if (s.tidyAcme && !(await tidyAcmeRecords(deps, part, s.acmeAccountSafetyBuffer, deadline))) return false;
    await update(part, { state: 'Finished', timeFinished: new Date(deps.now()).toISOString() }, deps.now());
    return true;
  } catch (e) {
    await recordFault(deps, part, e);
    return true;
  }
}

/** Expired certificates; whether the step finished before `deadline`. */
function tidyCertStore(deps: Deps, part: Partition, cutoff: number, deadline: number): Promise<boolean> {
  return tidyIndex(
    deps,
    part,
    CERT_INDEX,
    cutoff,
    deadline,
    (n, t) => `Tidying certificate store: checking entry ${n} of ${t}`,
    'certStoreDeletedCount',
  );
}

/**
 * Expired revocations, then every issuer's CRL anew if any went in this tidy (also those an
 * invocation cut short removed); whether the step finished before `deadline`.
 */
async function tidyRevokedCerts(deps: Deps, part: Partition, cutoff: number, deadline: number): Promise<boolean> {
  const done = await tidyIndex(
    deps,
    part,
    REVOKED_INDEX,
    cutoff,
    deadline,
    (n, t) => `Tidying revoked certificates: checking certificate ${n} of ${t}`,
    'revokedCertDeletedCount',
  );
  if (!done) return false;
  if ((await tidyStatus(part)).revokedCertDeletedCount > 0)
    await rebuildAllCrls(deps, part).catch((e: unknown) => logError('pki-tidy-crl-fault', { partition: part.name }, e));
  return true;
}

/**
 * Expired issuers but the default, each counted in the status as it goes (a resumed run finds
 * the rest); then, if any went in this tidy, the chains and every issuer's CRL.
 */
async function tidyExpiredIssuers(deps: Deps, part: Partition, bufferSeconds: number): Promise<void> {
  const before = (await tidyStatus(part)).issuersDeletedCount;
  await removeExpiredIssuers(deps, part, bufferSeconds, (n) => update(part, { issuersDeletedCount: before + n }, deps.now()));
  if ((await tidyStatus(part)).issuersDeletedCount > 0) await afterIssuersRemoved(deps, part);
}

/** ACME nonces, orders and idle accounts, counted in the status; whether the step finished before `deadline`. */
async function tidyAcmeRecords(deps: Deps, part: Partition, accountSafetyBuffer: number, deadline: number): Promise<boolean> {
  const acme = await tidyAcme(deps, part, accountSafetyBuffer, deadline);
  const before = await tidyStatus(part);
  await update(
    part,
    {
      acmeOrdersDeletedCount: before.acmeOrdersDeletedCount + acme.orders,
      acmeAccountDeletedCount: before.acmeAccountDeletedCount + acme.accounts,
      message: 'Tidying ACME nonces, orders and accounts',
    },
    deps.now(),
  );
  return acme.finished;
}

/** Logs a failed run and ends it in the Error state (the cause stays in the log). */
async function recordFault(deps: Deps, part: Partition, e: unknown): Promise<void> {
  logError('pki-tidy-fault', { partition: part.name }, e);
  await update(
    part,
    { state: 'Error', error: 'tidy failed; see the service log', timeFinished: new Date(deps.now()).toISOString() },
    deps.now(),
  );
}
