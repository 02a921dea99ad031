/** The versions that served a deployment: recorded once each, first time kept, oldest first; VERSION is package.json's. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recordVersion, VERSION, versionHistory } from '../../lib/sys/version-history';
import { createTestStore } from '../helpers/store';

describe('version history', () => {
  it('records a version once (its first time stands, concurrent recorders included) and lists oldest first', async () => {
    const { store } = await createTestStore();
    let now = Date.parse('2026-01-01T00:00:00Z');
    const deps = { store, now: () => now };
    await Promise.all([recordVersion(deps, '0.1.0'), recordVersion(deps, '0.1.0'), recordVersion(deps, '0.1.0')]);
    now += 86_400_000;
    await recordVersion(deps, '0.1.0');
    await recordVersion(deps, '0.2.0');
    expect(await versionHistory(deps)).toEqual([
      { version: '0.1.0', installed: '2026-01-01T00:00:00.000Z' },
      { version: '0.2.0', installed: '2026-01-02T00:00:00.000Z' },
    ]);
  });

  it("VERSION is package.json's", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
