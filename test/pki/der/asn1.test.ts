/** DER primitives (lib/pki/der/asn1.ts): lengths, integers, OIDs and times as OpenSSL reads them. */
import { describe, expect, it } from 'vitest';
import { int, oid, seq, time, uint, utf8 } from '../../../lib/pki/der/asn1';

describe('DER primitives', () => {
  it('encodes lengths in short and long form', () => {
    expect(utf8('a'.repeat(5)).subarray(0, 2)).toEqual(Buffer.from([0x0c, 5]));
    expect(utf8('a'.repeat(200)).subarray(0, 3)).toEqual(Buffer.from([0x0c, 0x81, 200]));
    expect(utf8('a'.repeat(300)).subarray(0, 4)).toEqual(Buffer.from([0x0c, 0x82, 0x01, 0x2c]));
    expect(utf8('a'.repeat(70_000)).subarray(0, 5)).toEqual(Buffer.from([0x0c, 0x83, 0x01, 0x11, 0x70]));
    expect(seq(undefined, int(0), undefined)).toEqual(Buffer.from([0x30, 3, 2, 1, 0]));
  });
  it('encodes integers, OIDs and times as OpenSSL reads them', () => {
    expect(uint(Buffer.from([0x80]))).toEqual(Buffer.from([2, 2, 0, 0x80]));
    expect(uint(Buffer.from([0, 0, 5]))).toEqual(Buffer.from([2, 1, 5]));
    expect(oid('1.2.840.113549.1.1.11').toString('hex')).toBe('06092a864886f70d01010b');
    expect(oid('2.999.3').toString('hex')).toBe('0603883703');
    expect(() => oid('3.1')).toThrow();
    expect(time(Date.UTC(2049, 11, 31, 23, 59, 59)).toString('latin1')).toContain('491231235959Z');
    expect(time(Date.UTC(2050, 0, 1)).toString('latin1')).toContain('20500101000000Z');
    expect(time(Date.UTC(9999, 11, 31, 23, 59, 59))[0]).toBe(0x18);
  });
});
