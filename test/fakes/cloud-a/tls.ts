/**
 * A CA and a server certificate for 127.0.0.1/localhost, for the HTTPS fakes, made with
 * openssl (the real tool) in a temporary directory. The engines trust `ca` through their
 * CLOUDA_CA_CERT / CLOUDB_CA_CERT settings; SDK child processes through NODE_EXTRA_CA_CERTS.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeTls {
  ca: string;
  key: string;
  cert: string;
}

let made: FakeTls | undefined;

export function fakeTls(): FakeTls {
  if (made) return made;
  const dir = mkdtempSync(join(tmpdir(), 'cloud-fake-tls-'));
  const f = (n: string) => join(dir, n);
  const run = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    run('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=Latchkey test fakes CA');
    run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('srv.key'), '-out', f('srv.csr'), '-subj', '/CN=127.0.0.1');
    writeFileSync(f('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
    run('x509', '-req', '-in', f('srv.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('srv.pem'), '-days', '2', '-extfile', f('ext.cnf'));
    made = { ca: readFileSync(f('ca.pem'), 'utf8'), key: readFileSync(f('srv.key'), 'utf8'), cert: readFileSync(f('srv.pem'), 'utf8') };
    return made;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
