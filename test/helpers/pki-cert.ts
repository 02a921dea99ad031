/**
 * HTTPS material for local fakes, made by Latchkey's own PKI code: a fresh CA and a leaf for
 * localhost / 127.0.0.1 / ::1. Pass `certPem`/`keyPem` to https.createServer and `caPem` to
 * the client (e.g. NODE_EXTRA_CA_CERTS or an https.Agent's `ca`).
 */
import { quickTlsChain, type TlsMaterial } from './quick-chain';

export type { TlsMaterial };

export function localhostTls(extraNames: string[] = []): Promise<TlsMaterial> {
  return quickTlsChain(['localhost', ...extraNames], ['127.0.0.1', '::1']);
}
