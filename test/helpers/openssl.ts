/** openssl as the real checker: verify chains and CRLs, make CSRs. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function withFiles<T>(files: Record<string, string>, fn: (path: (name: string) => string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'pki-test-'));
  try {
    for (const [n, c] of Object.entries(files)) writeFileSync(join(dir, n), c);
    return fn((n) => join(dir, n));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function openssl(args: string[], input?: string): { ok: boolean; out: string } {
  try {
    const out = execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();
    return { ok: true, out };
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer };
    return { ok: false, out: `${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? ''}` };
  }
}

/** `openssl verify -x509_strict` of `leaf` against a root (and untrusted intermediates). */
export function verifyChain(leaf: string, root: string, intermediates: string[] = [], crls: string[] = []): { ok: boolean; out: string } {
  return withFiles({ 'leaf.pem': leaf, 'root.pem': root, 'int.pem': intermediates.join('\n') || root, 'crl.pem': crls.join('\n') }, (p) =>
    openssl([
      'verify',
      '-x509_strict',
      '-CAfile',
      p('root.pem'),
      ...(intermediates.length ? ['-untrusted', p('int.pem')] : []),
      ...(crls.length ? ['-crl_check', '-CRLfile', p('crl.pem')] : []),
      p('leaf.pem'),
    ]),
  );
}

export function verifyCrl(crlPem: string, caPem: string): { ok: boolean; out: string } {
  return withFiles({ 'crl.pem': crlPem, 'ca.pem': caPem }, (p) =>
    openssl(['crl', '-in', p('crl.pem'), '-CAfile', p('ca.pem'), '-verify', '-noout', '-text']),
  );
}

/** A key and CSR made by openssl: `keyArgs` e.g. ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']. */
export function makeCsr(subject: string, keyArgs: string[], extra: string[] = []): string {
  return withFiles({}, (p) => {
    const r = openssl(['req', '-new', '-nodes', ...keyArgs, '-keyout', p('k.pem'), '-subj', subject, ...extra, '-out', p('csr.pem')]);
    if (!r.ok) throw new Error(r.out);
    return openssl(['req', '-in', p('csr.pem')]).out;
  });
}

/** A self-signed P-256 certificate made by openssl, valid 30 days: a CA's (keyCertSign, cRLSign), or with `ca` false a leaf's; and its key (PKCS#8). */
export function selfSignedCert(cn: string, ca = true): { cert: string; key: string } {
  return withFiles({}, (p) => {
    const made = openssl([
      'req',
      '-x509',
      '-new',
      '-nodes',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-keyout',
      p('k.pem'),
      '-subj',
      `/CN=${cn}`,
      '-days',
      '30',
      '-addext',
      `basicConstraints=critical,CA:${ca ? 'TRUE' : 'FALSE'}`,
      '-addext',
      ca ? 'keyUsage=critical,keyCertSign,cRLSign' : 'keyUsage=critical,digitalSignature',
      '-out',
      p('c.pem'),
    ]);
    if (!made.ok) throw new Error(made.out);
    return { cert: openssl(['x509', '-in', p('c.pem')]).out, key: openssl(['pkey', '-in', p('k.pem')]).out };
  });
}

export function text(pem: string, kind: 'x509' | 'req' | 'crl' = 'x509'): string {
  return withFiles({ 'x.pem': pem }, (p) => openssl([kind, '-in', p('x.pem'), '-noout', '-text']).out);
}
