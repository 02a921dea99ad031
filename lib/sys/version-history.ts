/**
 * The versions of Latchkey that have served this deployment, each with the time it first did
 * (Vault's sys/version-history records a version when a server of it first unseals; here when
 * the deployment is initialised and when a version first answers a version-history read). One
 * item per version in the sys partition, written once.
 */
import type { Deps } from '../deps';
import { ExistsError } from '../domain-errors';

/** The running version: package.json's (test/sys/version-history.test.ts keeps the two equal). */
export const VERSION = '0.1.0';

const PREFIX = 'version/';

export interface VersionEntry {
  version: string;
  /** ISO time the version was first recorded. */
  installed: string;
}

/** Records `version` as installed now unless it is already recorded. */
export async function recordVersion(deps: Pick<Deps, 'store' | 'now'>, version: string): Promise<void> {
  const part = deps.store.partition('sys');
  if (await part.get(`${PREFIX}${version}`)) return;
  try {
    await part.put(`${PREFIX}${version}`, { version, installed: new Date(deps.now()).toISOString() }, { ifAbsent: true });
  } catch (e) {
    if (!(e instanceof ExistsError)) throw e; // another instance recorded it first: its time stands
  }
}

/** Every recorded version, oldest first. */
export async function versionHistory(deps: Pick<Deps, 'store'>): Promise<VersionEntry[]> {
  const part = deps.store.partition('sys');
  const out: VersionEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await part.list<VersionEntry>(PREFIX, { ...(cursor ? { cursor } : {}) });
    out.push(...page.items.map((i) => i.value));
    cursor = page.cursor;
  } while (cursor);
  return out.sort((a, b) => (a.installed < b.installed ? -1 : a.installed > b.installed ? 1 : 0));
}
