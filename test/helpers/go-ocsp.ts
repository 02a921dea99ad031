/**
 * golang.org/x/crypto/ocsp as a real OCSP client (Debian golang-golang-x-crypto-dev under
 * /usr/share/gocode, built offline, GOPATH mode). The checker (go-ocsp.go) is built once per
 * source version into the temp dir; `goOcsp()` starts one process answering many checks over
 * stdin/stdout, one JSON line each.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { goBinary, startGoChecker } from './go-checker';

export interface GoOcspAnswer {
  ok: boolean;
  error?: string;
  request?: string;
  status?: 'good' | 'revoked' | 'unknown';
  serial?: string;
  this_update?: string;
  next_update?: string;
  revoked_at?: string;
  reason: number;
}

const SOURCE = join(import.meta.dirname, 'go-ocsp.go');
const GOPATH = '/usr/share/gocode';

function binary(): string {
  if (!existsSync(join(GOPATH, 'src/golang.org/x/crypto/ocsp')))
    throw new Error(`golang.org/x/crypto/ocsp is not under ${GOPATH}: install golang-golang-x-crypto-dev`);
  return goBinary(SOURCE, GOPATH);
}

export interface GoOcsp {
  /** ocsp.CreateRequest for `cert` issued by `issuer` (base64 DER in `request`). */
  request(cert: string, issuer: string, hash?: 'sha1' | 'sha256'): Promise<GoOcspAnswer>;
  /** ocsp.ParseResponse(response, issuer): parsed and its signature checked against the issuer. */
  response(response: Buffer, issuer: string): Promise<GoOcspAnswer>;
  close(): Promise<void>;
}

export function goOcsp(): GoOcsp {
  const go = startGoChecker(binary());
  return {
    request: (cert, issuer, hash = 'sha1') => go.ask<GoOcspAnswer>({ op: 'request', cert, issuer, hash }),
    response: (response, issuer) => go.ask<GoOcspAnswer>({ op: 'response', response: response.toString('base64'), issuer }),
    close: () => go.close(),
  };
}
