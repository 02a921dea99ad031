/**
 * The NIST curves Latchkey generates and accepts, in one table: key size, OpenSSL's name (what
 * node:crypto reports as namedCurve and createECDH takes), the OID, the byte length of a
 * private scalar or a coordinate, and the JWK name where node:crypto imports one.
 */
export interface Curve {
  bits: number;
  name: string;
  oid: string;
  size: number;
  jwk?: string;
}

export const CURVES: readonly Curve[] = [
  { bits: 224, name: 'secp224r1', oid: '1.3.132.0.33', size: 28 },
  { bits: 256, name: 'prime256v1', oid: '1.2.840.10045.3.1.7', size: 32, jwk: 'P-256' },
  { bits: 384, name: 'secp384r1', oid: '1.3.132.0.34', size: 48, jwk: 'P-384' },
  { bits: 521, name: 'secp521r1', oid: '1.3.132.0.35', size: 66, jwk: 'P-521' },
];

export const curveOfBits = (bits: number): Curve | undefined => CURVES.find((c) => c.bits === bits);

/** By OpenSSL name or its NIST alias (P-256 …). */
export const curveNamed = (name: string): Curve | undefined => CURVES.find((c) => c.name === name || `P-${c.bits}` === name);
