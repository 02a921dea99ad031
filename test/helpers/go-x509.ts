/**
 * Go's crypto/x509 as a real checker (Debian golang-go, standard library only, no module
 * downloads). The checker (go-x509.go) is built once per source version into the temp dir;
 * `goX509()` starts one process that answers many checks over stdin/stdout, one per line.
 */
import { join } from 'node:path';
import { goBinary, startGoChecker } from './go-checker';

export interface GoCertAnswer {
  ok: boolean;
  error?: string;
  dns_names: string[] | null;
  emails: string[] | null;
  key_usage: number;
  ext_key_usage: number[] | null;
  extensions: string[] | null;
  is_ca: boolean;
  permitted_dns_domains: string[] | null;
  chain_length: number;
}

export interface GoCrlAnswer {
  ok: boolean;
  error?: string;
  revoked: string[] | null;
  number: string;
}

/** Go's x509.KeyUsage bits. */
export const GO_KEY_USAGE = {
  digitalSignature: 1,
  contentCommitment: 2,
  keyEncipherment: 4,
  dataEncipherment: 8,
  keyAgreement: 16,
  certSign: 32,
  crlSign: 64,
};

const SOURCE = join(import.meta.dirname, 'go-x509.go');

/** The built checker's path. */
export const goCheckerBinary = () => goBinary(SOURCE);

export interface GoX509 {
  /** Parses `cert` and Verifies it to `roots` through `intermediates` (any extended key usage). */
  verify(cert: string, roots: string[], intermediates?: string[], dns?: string): Promise<GoCertAnswer>;
  /** ParseRevocationList + CheckSignatureFrom(issuer). */
  crl(crl: string, issuer: string): Promise<GoCrlAnswer>;
  close(): Promise<void>;
}

/** One checker process for a test file. */
export function goX509(): GoX509 {
  const go = startGoChecker(goCheckerBinary());
  return {
    verify: (cert, roots, intermediates = [], dns = '') => go.ask<GoCertAnswer>({ op: 'cert', cert, roots, intermediates, dns }),
    crl: (crl, issuer) => go.ask<GoCrlAnswer>({ op: 'crl', crl, issuer }),
    close: () => go.close(),
  };
}
