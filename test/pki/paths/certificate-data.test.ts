/** certificateData (lib/pki/paths/certificate-data.ts): a made certificate as the response `data` in each format. */
import { describe, expect, it } from 'vitest';
import type { CertOutput } from '../../../lib/pki/cert-output';
import { toPem } from '../../../lib/pki/pem';
import { newEcKey } from '../../../lib/pki/public-key';
import { certificateData } from '../../../lib/pki/paths/certificate-data';

const cert = Buffer.from('leaf certificate DER');
const ca = toPem('CERTIFICATE', Buffer.from('issuing CA DER'));
const root = toPem('CERTIFICATE', Buffer.from('root DER'));
const out: CertOutput = {
  certificate: cert,
  serial: Buffer.from([0x4a, 0x01, 0xff]),
  notAfter: 1_800_000_000_999,
  issuingCa: ca,
  caChain: [ca, root],
};

describe('certificateData', () => {
  it('answers PEM with the colon serial and the expiry in seconds', () => {
    expect(certificateData(out, 'pem')).toEqual({
      certificate: toPem('CERTIFICATE', cert),
      issuing_ca: ca,
      ca_chain: [ca, root],
      serial_number: '4a:01:ff',
      expiration: 1_800_000_000,
    });
  });

  it('answers base64 DER for every certificate with format der', () => {
    const data = certificateData(out, 'der');
    expect(data.certificate).toBe(cert.toString('base64'));
    expect(data.issuing_ca).toBe(Buffer.from('issuing CA DER').toString('base64'));
    expect(data.ca_chain).toEqual([Buffer.from('issuing CA DER').toString('base64'), Buffer.from('root DER').toString('base64')]);
  });

  it('adds the private key in the format asked for, PEM or base64 DER', () => {
    const key = newEcKey(256);
    const sec1 = key.privateDer(false);
    expect(certificateData({ ...out, privateKey: key }, 'pem')).toMatchObject({
      private_key: toPem(sec1.label, sec1.der),
      private_key_type: 'ec',
    });
    expect(certificateData({ ...out, privateKey: key }, 'der').private_key).toBe(sec1.der.toString('base64'));
    const pkcs8 = key.privateDer(true);
    expect(certificateData({ ...out, privateKey: key, privateKeyFormat: 'pkcs8' }, 'pem').private_key).toBe(toPem(pkcs8.label, pkcs8.der));
  });

  it('bundles certificate, key and chain with pem_bundle, without repeating a self-signed certificate', () => {
    const key = newEcKey(256);
    const sec1 = key.privateDer(false);
    const leafPem = toPem('CERTIFICATE', cert);
    expect(certificateData({ ...out, privateKey: key }, 'pem_bundle').certificate).toBe(
      [leafPem, toPem(sec1.label, sec1.der), ca, root].join('\n'),
    );
    expect(certificateData({ ...out, caChain: undefined }, 'pem_bundle').certificate).toBe([leafPem, ca].join('\n'));
    expect(certificateData({ ...out, caChain: undefined, issuingCa: leafPem, selfSigned: true }, 'pem_bundle').certificate).toBe(leafPem);
  });
});
