/**
 * The HTTPS certificate of the cloud fakes, issued by Latchkey's own PKI code (a fresh CA and a
 * leaf for localhost / 127.0.0.1, test/helpers/pki-cert.ts). The engines trust `ca` through
 * their CLOUDA_CA_CERT / CLOUDB_CA_CERT settings; SDK child processes through NODE_EXTRA_CA_CERTS.
 */
import { localhostTls } from '../../helpers/pki-cert';

export interface FakeTls {
  ca: string;
  key: string;
  cert: string;
}

let made: Promise<FakeTls> | undefined;

export function fakeTls(): Promise<FakeTls> {
  made ??= localhostTls().then((m) => ({ ca: m.caPem, key: m.keyPem, cert: m.certPem }));
  return made;
}
