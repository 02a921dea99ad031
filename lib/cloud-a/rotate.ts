/**
 * rotate-root: a new client secret for the engine's own application; the old passwords are
 * removed once the new secret is in use. Secret propagation is eventually consistent, so the
 * new secret is tried a bounded number of times; if it does not work yet, the rotation stays
 * pending and the scheduled finalisation (or the next rotate-root) completes it.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import { CloudError, toDomainError } from '../cloud-common/cloud-error';
import type { EnvReader } from '../cloud-common/env-settings';
import { withRetries } from '../cloud-common/retry';
import type { CloudAStore } from './cloud-a-store';
import { effectiveSettings, openPending, sealPending, sealSecret, type PendingRotation, type Settings } from './config';
import { addPassword, findApplications, getApplication, ignoreNotFound, removePassword } from './graph';
import { accessToken } from './token';

export interface RotateResult {
  keyId: string;
  endDate: string;
  displayName: string;
  finalised: boolean;
}

async function settingsOf(deps: Deps, store: CloudAStore, readEnv: EnvReader): Promise<Settings> {
  const stored = await store.config();
  if (!stored) throw new InvalidInput('the engine is not configured: write config first');
  return effectiveSettings(deps, stored, readEnv);
}

export async function rotateRoot(deps: Deps, store: CloudAStore, readEnv: EnvReader, attempts = 4): Promise<RotateResult> {
  if (readEnv().CLOUDA_CLIENT_SECRET)
    throw new InvalidInput('the client secret comes from CLOUDA_CLIENT_SECRET and cannot be rotated here');
  try {
    await finalise(deps, store, readEnv, 1);
    const s = await settingsOf(deps, store, readEnv);
    const apps = await findApplications(s, 'appId', s.clientId);
    if (apps.length === 0) throw new InvalidInput('no application found for the configured client_id');
    if (apps.length > 1) throw new InvalidInput('multiple applications found: check client_id');
    const app = apps[0]!;
    const pending: PendingRotation = {
      state: 'adding',
      displayName: `latchkey-root-${randomUUID()}`,
      appObjectId: app.id,
      removeKeyIds: (app.passwordCredentials ?? []).map((p) => p.keyId),
      keyId: '',
      secret: null,
      endDate: new Date(deps.now() + s.rootPasswordTtl * 1000).toISOString(),
      created: deps.now(),
    };
    await store.changeConfig((c) => (c ? { ...c, pending } : undefined));
    const pw = await addPassword(s, app.id, pending.displayName, pending.endDate);
    const secret = await sealPending(deps, store.part, pw.secretText!);
    await store.changeConfig((c) => (c ? { ...c, pending: { ...pending, state: 'added', keyId: pw.keyId, secret } } : undefined));
    const finalised = (await finalise(deps, store, readEnv, attempts)) === 'finalised';
    return { keyId: pw.keyId, endDate: pw.endDateTime ?? pending.endDate, displayName: pending.displayName, finalised };
  } catch (e) {
    throw toDomainError(e, 'rotating the root credentials');
  }
}

export type FinaliseOutcome = 'none' | 'pending' | 'finalised' | 'abandoned';

/** Completes a pending rotation if its new secret works; safe to run at any time, repeatedly. */
export async function finalise(deps: Deps, store: CloudAStore, readEnv: EnvReader, attempts: number): Promise<FinaliseOutcome> {
  const stored = await store.config();
  const p = stored?.pending;
  if (!stored || !p) return 'none';
  const s = await effectiveSettings(deps, stored, readEnv);
  if (p.state === 'adding') {
    // The new password may or may not exist, and its secret was never stored: remove it.
    const app = await getApplication(s, p.appObjectId).catch((e: unknown) => (ignoreNotFound(e), undefined));
    for (const pw of app?.passwordCredentials ?? []) if (pw.displayName === p.displayName) await removePassword(s, p.appObjectId, pw.keyId);
    await store.changeConfig((c) => (c?.pending?.displayName === p.displayName ? { ...c, pending: null } : undefined));
    return 'abandoned';
  }
  const secret = await openPending(deps, p);
  if (p.state === 'added') {
    const works = await withRetries(() => accessToken(s, s.scopes.graph, secret), {
      attempts,
      delayMs: s.retryDelayMs,
      retryable: (e) => e instanceof CloudError && (e.kind === 'unauthorized' || e.kind === 'throttled' || e.kind === 'server'),
    }).then(
      () => true,
      (e: unknown) => {
        if (e instanceof CloudError && e.kind !== 'unreachable') return false;
        throw e;
      },
    );
    if (!works) return 'pending';
    const sealed = await sealSecret(deps, store.part, secret);
    await store.changeConfig((c) =>
      c?.pending?.displayName === p.displayName ? { ...c, clientSecret: sealed, pending: { ...p, state: 'switched' } } : undefined,
    );
  }
  await removeOldPasswords({ ...s, clientSecret: secret }, p);
  await store.changeConfig((c) => (c?.pending?.displayName === p.displayName ? { ...c, pending: null } : undefined));
  return 'finalised';
}

/** The passwords from before the rotation, and any twin of the new one (a retried addPassword whose answer was lost). */
async function removeOldPasswords(s: Settings, p: PendingRotation): Promise<void> {
  const app = await getApplication(s, p.appObjectId).catch((e: unknown) => (ignoreNotFound(e), undefined));
  const twins = (app?.passwordCredentials ?? []).filter((pw) => pw.displayName === p.displayName).map((pw) => pw.keyId);
  for (const keyId of new Set([...p.removeKeyIds, ...twins])) if (keyId !== p.keyId) await removePassword(s, p.appObjectId, keyId);
}
