/** The scheduled SSH tidy: every ssh mount's long-expired certificate records and revocations go; nothing else does. */
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../lib/deps';
import { mountPartition } from '../../lib/mount-partition';
import { CertRecords, serialHex, type CertRecord } from '../../lib/ssh/cert-records';
import { DEFAULT_SAFETY_BUFFER_SECONDS } from '../../lib/ssh/revoke';
import { tidyAllSshMounts } from '../../lib/ssh/scheduled-tidy';
import { createTestStore } from '../helpers/store';

const NOW = 1_700_000_000_000;
const record = (serial: bigint, validBefore: number): CertRecord => ({
  serial: serialHex(serial),
  keyId: 'k',
  principals: ['alice'],
  certType: 'user',
  validAfter: 0,
  validBefore,
  caKey: 'AA==',
  issuerId: 'i',
});

describe('tidyAllSshMounts', () => {
  it('on each ssh mount, removes what expired more than the default buffer ago and keeps the rest', async () => {
    const { store } = await createTestStore();
    const deps = {
      store,
      now: () => NOW,
      mounts: [
        { path: 'ssh', type: 'ssh' },
        { path: 'ssh-hosts', type: 'ssh' },
        { path: 'pki', type: 'pki' },
      ],
    } as unknown as Deps;
    const long = NOW / 1000 - DEFAULT_SAFETY_BUFFER_SECONDS - 60;
    const recent = NOW / 1000 - 60;
    for (const mount of ['ssh', 'ssh-hosts']) {
      const r = new CertRecords(mountPartition(deps, 'ssh', mount));
      await r.add(record(1n, long));
      await r.add(record(2n, recent));
      await r.revoke({ serial: serialHex(1n), keyId: 'k', validBefore: long, caKey: 'AA==', issuerId: 'i', revokedAt: NOW - 1000 });
      await r.revoke({ serial: serialHex(2n), keyId: 'k', validBefore: recent, caKey: 'AA==', issuerId: 'i', revokedAt: NOW - 1000 });
    }
    const report = await tidyAllSshMounts(deps);
    expect(report.map((m) => m.mount)).toEqual(['ssh', 'ssh-hosts']);
    for (const { mount, removed } of report) {
      expect(removed).toBeGreaterThan(0);
      const r = new CertRecords(mountPartition(deps, 'ssh', mount));
      expect(await r.get(serialHex(1n))).toBeUndefined();
      expect(await r.get(serialHex(2n))).toBeDefined();
      expect((await r.revocations()).revoked.map((x) => x.serial)).toEqual([serialHex(2n)]);
    }
  });
});
