/** PEM text (lib/pki/pem.ts): one block out in 64-column lines, the blocks of a bundle in, a 400 for anything else. */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { onePem, pemBlocks, toPem } from '../../lib/pki/pem';
import { localhostTls } from '../helpers/pki-cert';

describe('toPem', () => {
  it('wraps base64 at 64 columns between BEGIN and END lines', () => {
    const der = Buffer.from(Array.from({ length: 100 }, (_, i) => i));
    const pem = toPem('CERTIFICATE', der);
    const lines = pem.split('\n');
    expect(lines[0]).toBe('-----BEGIN CERTIFICATE-----');
    expect(lines.at(-1)).toBe('-----END CERTIFICATE-----');
    expect(lines.slice(1, -1).map((l) => l.length)).toEqual([64, 64, 8]);
    expect(pemBlocks(pem)).toEqual([{ label: 'CERTIFICATE', der }]);
  });
  it('writes what node:crypto reads', async () => {
    const { certPem } = await localhostTls();
    const der = onePem(certPem, ['CERTIFICATE'], 'certificate');
    expect(new X509Certificate(toPem('CERTIFICATE', der)).raw.equals(der)).toBe(true);
  });
});

describe('pemBlocks and onePem', () => {
  const a = toPem('CERTIFICATE', Buffer.from('first'));
  const k = toPem('EC PRIVATE KEY', Buffer.from('key'));
  it('finds every block of a bundle, with text and CRLF line ends around them', () => {
    const bundle = `subject=CN x\r\n${a.replace(/\n/g, '\r\n')}\r\n\r\n${k}\ntrailing`;
    expect(pemBlocks(bundle).map((b) => [b.label, b.der.toString()])).toEqual([
      ['CERTIFICATE', 'first'],
      ['EC PRIVATE KEY', 'key'],
    ]);
    expect(onePem(bundle, ['EC PRIVATE KEY', 'PRIVATE KEY'], 'private key').toString()).toBe('key');
  });
  it.each([
    ['no block', 'not pem', /^pem_bundle contains no PEM block$/],
    ['mismatched BEGIN and END', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END X-----', /contains no PEM block/],
    ['an empty block', '-----BEGIN CERTIFICATE-----\n\n-----END CERTIFICATE-----', /^pem_bundle: an empty PEM block$/],
  ])('refuses %s with a 400', (_w, text, message) => {
    expect(() => pemBlocks(text, 'pem_bundle')).toThrow(InvalidInput);
    expect(() => pemBlocks(text, 'pem_bundle')).toThrow(message);
  });
  it('refuses a bundle without a block of the wanted type, naming the types', () => {
    expect(() => onePem(k, ['CERTIFICATE'], 'certificate')).toThrow('certificate must be PEM of type CERTIFICATE');
  });
});
