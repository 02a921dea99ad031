/** lib/pki/der/ocsp.ts: the OCSP request reader (openssl's requests, hostile input) and the response writer (checked by openssl). */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nul, octets, oid, seq, uint, explicit, tlv } from '../../../lib/pki/der/asn1';
import { buildOcspResponse, errorResponse, MAX_SINGLE_REQUESTS, readOcspRequest, responseStatusOf } from '../../../lib/pki/der/ocsp';
import { keyIdentifier, signatureAlgorithm } from '../../../lib/keys/signer';
import { LocalSigner } from '../../../lib/keys/signer-local';
import { openssl, selfSignedCert, withFiles } from '../../helpers/openssl';
import { readFileSync, writeFileSync } from 'node:fs';

const certId = (serial = Buffer.from([1, 2, 3]), alg = '1.3.14.3.2.26') =>
  seq(seq(oid(alg), nul()), octets(Buffer.alloc(20, 1)), octets(Buffer.alloc(20, 2)), uint(serial));
const request = (...ids: Buffer[]) => seq(seq(seq(...ids.map((i) => seq(i)))));

describe('readOcspRequest', () => {
  it("reads openssl's request: the CertID as sent, hash, serial and the nonce extension whole", () => {
    const ca = selfSignedCert('Reader CA');
    const der = withFiles({ 'ca.pem': ca.cert }, (p) => {
      const r = openssl(['ocsp', '-issuer', p('ca.pem'), '-serial', '0x0abcdef', '-nonce', '-reqout', p('req.der')]);
      expect(r.ok, r.out).toBe(true);
      return readFileSync(p('req.der'));
    });
    const req = readOcspRequest(der);
    expect(req.certs).toHaveLength(1);
    expect(req.certs[0]!.hash).toBe('sha1');
    expect(req.certs[0]!.serial.toString('hex')).toBe('00abcdef');
    expect(der.includes(req.certs[0]!.raw)).toBe(true);
    expect(req.nonce!.includes(oid('1.3.6.1.5.5.7.48.1.2'))).toBe(true);
  });

  it('takes SHA-256 CertIDs, and marks an unsupported hash algorithm (answered unknown) without refusing it', () => {
    expect(readOcspRequest(request(certId(undefined, '2.16.840.1.101.3.4.2.1'))).certs[0]!.hash).toBe('sha256');
    expect(readOcspRequest(request(certId(undefined, '1.2.840.113549.2.5'))).certs[0]!.hash).toBeUndefined();
  });

  const deep = (() => {
    let d = nul();
    for (let i = 0; i < 500; i++) d = seq(d);
    return d;
  })();

  it.each([
    ['empty', Buffer.alloc(0)],
    ['garbage', Buffer.from('hello world')],
    ['no certificate asked', seq(seq(seq()))],
    ['too many certificates', request(...Array.from({ length: MAX_SINGLE_REQUESTS + 1 }, () => certId()))],
    ['trailing data', Buffer.concat([request(certId()), Buffer.from([0])])],
    ['truncated', request(certId()).subarray(0, 20)],
    ['deep nesting', deep],
    ['a lying length', Buffer.from('3084ffffffff', 'hex')],
    ['a CertID with a missing hash', seq(seq(seq(seq(seq(seq(oid('1.3.14.3.2.26')), octets(Buffer.alloc(20)), uint(Buffer.from([1])))))))],
    [
      'an empty serial',
      request(seq(seq(oid('1.3.14.3.2.26')), octets(Buffer.alloc(20)), octets(Buffer.alloc(20)), tlv(0x02, Buffer.alloc(0)))),
    ],
    ['version 2', seq(seq(explicit(0, uint(Buffer.from([1]))), seq(seq(certId()))))],
    ['too large', Buffer.alloc(5000, 0x30)],
  ])('refuses %s as InvalidInput', (_, der) => {
    expect(() => readOcspRequest(der)).toThrow(/malformed/);
  });
});

describe('the response writer', () => {
  it('error responses are the status alone', () => {
    expect(errorResponse('malformedRequest').toString('hex')).toBe('30030a0101');
    expect(errorResponse('unauthorized').toString('hex')).toBe('30030a0106');
    expect(responseStatusOf(errorResponse('internalError'))).toBe(2);
  });

  it('a signed response openssl verifies against the issuer: good, revoked with reason, unknown, the nonce echoed', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const ca = withFiles({ 'k.pem': pem }, (p) => {
      const r = openssl(['req', '-x509', '-key', p('k.pem'), '-subj', '/CN=Writer CA', '-days', '1', '-out', p('ca.pem')]);
      expect(r.ok, r.out).toBe(true);
      return readFileSync(p('ca.pem'), 'utf8');
    });
    const signer = new LocalSigner(privateKey);
    const reqs = withFiles({ 'ca.pem': ca }, (p) => {
      const out: Buffer[] = [];
      for (const serial of ['0x01', '0x02', '0x03']) {
        openssl(['ocsp', '-issuer', p('ca.pem'), '-serial', serial, '-nonce', '-reqout', p('r.der')]);
        out.push(readFileSync(p('r.der')));
      }
      return out;
    });
    const statuses = [
      { kind: 'good' as const },
      { kind: 'revoked' as const, at: Date.UTC(2024, 0, 2, 3, 4, 5), reason: 1 },
      { kind: 'unknown' as const },
    ];
    for (const [i, reqDer] of reqs.entries()) {
      const req = readOcspRequest(reqDer);
      const der = await buildOcspResponse(
        {
          responderKeyHash: keyIdentifier(signer.spki),
          producedAt: Date.now(),
          validSeconds: 3600,
          responses: [{ certId: req.certs[0]!.raw, status: statuses[i]! }],
          nonce: req.nonce,
        },
        signer,
        signatureAlgorithm(signer),
      );
      const out = withFiles({ 'ca.pem': ca }, (p) => {
        writeFileSync(p('req.der'), reqDer);
        writeFileSync(p('resp.der'), der);
        return openssl([
          'ocsp',
          '-reqin',
          p('req.der'),
          '-respin',
          p('resp.der'),
          '-CAfile',
          p('ca.pem'),
          '-VAfile',
          p('ca.pem'),
          '-resp_text',
        ]);
      });
      expect(out.ok, out.out).toBe(true);
      // openssl exits non-zero on a signature or nonce that fails verification (its 'verify OK' goes to stderr).
      expect(out.out).toContain(`Cert Status: ${statuses[i]!.kind}`);
      expect(out.out).toContain('OCSP Nonce');
      if (i === 1) {
        expect(out.out).toMatch(/Revocation Time: Jan {2}2 03:04:05 2024 GMT/);
        expect(out.out).toMatch(/Revocation Reason: keyCompromise/);
      }
    }
  });
});
