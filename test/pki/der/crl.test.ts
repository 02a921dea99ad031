/**
 * The CRL writer (lib/pki/der/crl.ts): a complete CRL with the Freshest CRL extension and a delta
 * CRL with the critical Delta CRL Indicator, read back by openssl and @peculiar/x509; entries
 * given already encoded (pages of the index) equal entries given one by one; and a CRL of more
 * entries than a function call takes arguments (it spread one argument per entry, which broke
 * between 100,000 and 200,000).
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdentifier, signatureAlgorithm } from '../../../lib/keys/signer';
import { LocalSigner } from '../../../lib/keys/signer-local';
import { buildCrl, encodeRevoked, type CrlParts } from '../../../lib/pki/der/crl';
import { encodeName } from '../../../lib/pki/der/name';
import { signedParts } from '../../../lib/pki/der/reader';
import { toPem } from '../../../lib/pki/pem';
import { openssl, withFiles } from '../../helpers/openssl';

const signer = new LocalSigner(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
const alg = signatureAlgorithm(signer);
const now = Date.UTC(2026, 0, 2, 3, 4, 5);
const parts = (over: Partial<CrlParts>): CrlParts => ({
  issuer: encodeName({ commonName: 'CRL Writer CA' }),
  issuerKeyId: keyIdentifier(signer.spki),
  thisUpdate: now,
  nextUpdate: now + 3600_000,
  number: 7,
  revoked: [
    { serial: Buffer.from('0a0b0c', 'hex'), revokedAt: now - 1000 },
    { serial: Buffer.from('01', 'hex'), revokedAt: now - 2000, reason: 1 },
  ],
  ...over,
});
const crlText = (der: Buffer) =>
  withFiles({ 'c.pem': toPem('X509 CRL', der) }, (p) => openssl(['crl', '-in', p('c.pem'), '-noout', '-text']));

describe('buildCrl', () => {
  it('a complete CRL carries the Freshest CRL extension naming the delta distribution points', async () => {
    const der = await buildCrl(parts({ freshest: ['http://ca.test/crl/delta'] }), signer, alg);
    const t = crlText(der);
    expect(t.ok, t.out).toBe(true);
    expect(t.out).toMatch(/X509v3 Freshest CRL:\s*\n\s*Full Name:\s*\n\s*URI:http:\/\/ca.test\/crl\/delta/);
    expect(t.out).not.toMatch(/Delta CRL Indicator/);
    const crl = new x509.X509Crl(der);
    expect(crl.extensions.find((e) => e.type === '2.5.29.46')?.critical).toBe(false);
  });

  it('a delta CRL carries the critical Delta CRL Indicator with its base number, and no Freshest CRL', async () => {
    const der = await buildCrl(parts({ number: 9, deltaBase: 7, freshest: ['http://ca.test/crl/delta'] }), signer, alg);
    const t = crlText(der);
    expect(t.ok, t.out).toBe(true);
    expect(t.out).toMatch(/X509v3 Delta CRL Indicator: critical\s*\n\s*7\b/);
    expect(t.out).toMatch(/X509v3 CRL Number:\s*\n\s*9\b/);
    expect(t.out).not.toMatch(/Freshest CRL/);
    expect(t.out).toMatch(/Key Compromise/);
    expect(new x509.X509Crl(der).extensions.find((e) => e.type === '2.5.29.27')?.critical).toBe(true);
  });

  it('entries given encoded, in pages, make the same CRL as entries given one by one', async () => {
    const entries = Array.from({ length: 25 }, (_, i) => ({
      serial: randomBytes(16),
      revokedAt: now - i * 1000,
      ...(i % 3 ? {} : { reason: 4 }),
    }));
    const one = await buildCrl(parts({ revoked: entries }), signer, alg);
    const pages = [entries.slice(0, 10), entries.slice(10, 11), [], entries.slice(11)].map((p) => Buffer.concat(p.map(encodeRevoked)));
    const paged = await buildCrl(parts({ revoked: { revokedDer: pages } }), signer, alg);
    // Signatures differ (ECDSA is randomised): compare the signed parts.
    expect(signedParts(paged).tbs).toEqual(signedParts(one).tbs);
  });

  it('takes 250,000 entries (one argument per entry overflowed the stack past about 120,000)', async () => {
    const serial = randomBytes(16);
    const entry = encodeRevoked({ serial, revokedAt: now });
    const der = await buildCrl(parts({ revoked: Array.from({ length: 250_000 }, () => ({ serial, revokedAt: now })) }), signer, alg);
    expect(der.length).toBeGreaterThan(250_000 * entry.length);
  });
});
