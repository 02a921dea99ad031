/** Revocation rules (lib/ssh/revoke.ts) on a real store: serial syntax, lease revocation, the KRL's contents. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidInput, NotFoundError } from '../../lib/domain-errors';
import { CertRecords, serialHex, type CertRecord } from '../../lib/ssh/cert-records';
import { buildKrl, parseSerialNumber, revokeKeyId, revokeLeased, revokeSerial, tidyCertificates } from '../../lib/ssh/revoke';
import { createTestStore } from '../helpers/store';

const NOW = 1_700_000_000_000;
const record = (serial: bigint, validBefore: number, keyId = 'k'): CertRecord => ({
  serial: serialHex(serial),
  keyId,
  principals: ['alice'],
  certType: 'user',
  validAfter: 0,
  validBefore,
  caKey: randomBytes(8).toString('base64'),
  issuerId: 'i',
});

async function records(): Promise<CertRecords> {
  return new CertRecords((await createTestStore()).store.partition('ssh/ssh'));
}

describe('parseSerialNumber', () => {
  it.each([
    ['0', 0n],
    ['18446744073709551615', 2n ** 64n - 1n],
    [' 42 ', 42n],
    ['0xff', 255n],
  ])('%j is %s', (text, n) => expect(parseSerialNumber(text)).toBe(n));
  it.each(['', '-1', '1.5', '18446744073709551616', '0x', '0x1ffffffffffffffff', 'ab', '1e3'])('refuses %j', (text) => {
    expect(() => parseSerialNumber(text)).toThrow(InvalidInput);
  });
});

describe('revocation', () => {
  it('revoking a lease revokes its certificate unless it has expired or was never recorded', async () => {
    const r = await records();
    await r.add(record(1n, NOW / 1000 + 60));
    await r.add(record(2n, NOW / 1000 - 1));
    await revokeLeased(r, { kind: 'cert', serial: serialHex(1n) }, NOW);
    await revokeLeased(r, { kind: 'cert', serial: serialHex(2n) }, NOW);
    await revokeLeased(r, { kind: 'cert' }, NOW);
    await revokeLeased(r, { kind: 'cert', serial: serialHex(3n) }, NOW);
    expect((await r.revocations()).revoked.map((x) => x.serial)).toEqual([serialHex(1n)]);
  });

  it('unknown serials and key ids are NotFoundError; the KRL version rises with each new revocation only', async () => {
    const r = await records();
    await expect(revokeSerial(r, 9n, NOW)).rejects.toThrow(NotFoundError);
    await expect(revokeKeyId(r, 'none', NOW)).rejects.toThrow(NotFoundError);
    await r.add(record(5n, NOW / 1000 + 60, 'shared'));
    await r.add(record(6n, NOW / 1000 + 60, 'shared'));
    expect((await revokeKeyId(r, 'shared', NOW)).map((x) => x.serial).sort()).toEqual([5n, 6n]);
    await revokeSerial(r, 5n, NOW + 1000);
    expect((await r.revocations()).version).toBe(2);
    const krl = await buildKrl(r, 'c', NOW);
    expect(krl.subarray(0, 8).toString('latin1')).toBe('SSHKRL\n\0');
    expect(krl.readBigUInt64BE(12)).toBe(2n);
  });

  it('tidy removes the records of certificates expired past the buffer, and only those', async () => {
    const r = await records();
    await r.add(record(1n, NOW / 1000 - 7200));
    await r.add(record(2n, NOW / 1000 + 60));
    await r.revoke({ serial: serialHex(1n), keyId: 'k', validBefore: NOW / 1000 - 7200, caKey: 'AA==', issuerId: 'i', revokedAt: NOW });
    expect(await tidyCertificates(r, NOW, 3600)).toBe(3);
    expect(await r.get(serialHex(1n))).toBeUndefined();
    expect(await r.get(serialHex(2n))).toBeDefined();
    expect((await r.revocations()).revoked).toEqual([]);
  });
});
