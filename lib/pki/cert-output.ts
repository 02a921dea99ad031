/** A certificate the CA has just made (a root, an intermediate or a leaf), as the paths render it. */
import type { IssuedKey } from './public-key';

export interface CertOutput {
  certificate: Buffer;
  serial: Buffer;
  notAfter: number;
  /** The issuing CA certificate, PEM (the certificate itself for a root). */
  issuingCa: string;
  /** The issuer's chain, nearest first, PEM, the issuing CA included. */
  caChain?: string[];
  privateKey?: IssuedKey;
  privateKeyFormat?: string;
  /** Whether the issuing CA is the certificate itself (pem_bundle then does not repeat it). */
  selfSigned?: boolean;
}
