/** lib/pki/crl.ts rebuildAllCrls: every issuer able to sign a CRL gets a new one, even when another's rebuild fails. */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDeps } from '../../lib/composition';
import { readEnvironment } from '../../lib/config';
import type { Deps } from '../../lib/deps';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { mountPartition } from '../../lib/mount-partition';
import { generateRoot, type KeyChoice } from '../../lib/pki/ca';
import { rebuildAllCrls } from '../../lib/pki/crl';
import { pkiRepository } from '../../lib/pki/issuer';
import type { Partition } from '../../lib/store/store';
import { createTestStore } from '../helpers/store';

let deps: Deps;

beforeAll(async () => {
  const { store, table } = await createTestStore();
  deps = createDeps({ env: { ...readEnvironment({}), tableName: table }, store, wrapper: new LocalKeyWrapper(randomBytes(32)) });
});

const INTERNAL: KeyChoice = { type: 'internal', keyType: 'ec', keyBits: 256, keyParamsGiven: true };

async function root(part: Partition, name: string): Promise<string> {
  const r = { commonName: `${name} root`, altNames: [], ipSans: [], uriSans: [], otherSans: [], excludeCnFromSans: true, subject: {} };
  const request = { ...r, ttl: 86_400, maxPathLength: -1, permittedDnsDomains: [], signatureBits: 0 };
  return (await generateRoot(deps, part, request, INTERNAL, 10 * 365 * 86_400, { issuerName: name })).issuerId;
}

const crlNumber = async (part: Partition, id: string) => (await pkiRepository(deps, part).crlRecord<{ number: number }>(id))?.number;

describe('rebuildAllCrls', () => {
  it("rebuilds every issuer's CRL, skipping those without crl-signing, and throws the first failure after trying all", async () => {
    const part = mountPartition(deps, 'pki', 'crl-all');
    const repo = pkiRepository(deps, part);
    const ids = await Promise.all(['a', 'b', 'c', 'd'].map((n) => root(part, n)));
    await rebuildAllCrls(deps, part);
    for (const id of ids) expect(await crlNumber(part, id)).toBe(1);
    // The mount lists issuers by id: the first one's rebuild fails (its key is gone), the last may no longer sign CRLs.
    const [first, second, third, last] = [...ids].sort() as [string, string, string, string];
    await repo.putIssuer({ ...(await repo.issuer(first))!, keyId: '00000000-0000-4000-8000-000000000000' });
    await repo.putIssuer({ ...(await repo.issuer(last))!, usage: ['issuing-certificates'] });
    await expect(rebuildAllCrls(deps, part)).rejects.toThrow(/^the key of issuer [a-d] is gone/);
    expect(await crlNumber(part, second)).toBe(2);
    expect(await crlNumber(part, third)).toBe(2);
    expect(await crlNumber(part, first)).toBe(1);
    expect(await crlNumber(part, last)).toBe(1);
  });
});
