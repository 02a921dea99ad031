/**
 * Go's crypto/x509 as a real checker (Debian golang-go, standard library only, no module
 * downloads). The checker (go-x509.go) is built once per source version into the temp dir;
 * `goX509()` starts one process that answers many checks over stdin/stdout, one per line.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

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

/** The built checker's path: built once per source version, shared by every test file. */
export function goCheckerBinary(): string {
  const source = readFileSync(SOURCE);
  const dir = join(tmpdir(), `latchkey-go-x509-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`);
  const bin = join(dir, 'go-x509');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, 'build-'));
  try {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: work,
      GOCACHE: join(work, 'cache'),
      GOPATH: join(work, 'gopath'),
      GOTOOLCHAIN: 'local',
      GOPROXY: 'off',
      GOFLAGS: '',
      GO111MODULE: 'off',
      CGO_ENABLED: '0',
    };
    execFileSync('go', ['build', '-o', join(work, 'go-x509'), SOURCE], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
    renameSync(join(work, 'go-x509'), bin);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

export interface GoX509 {
  /** Parses `cert` and Verifies it to `roots` through `intermediates` (any extended key usage). */
  verify(cert: string, roots: string[], intermediates?: string[], dns?: string): Promise<GoCertAnswer>;
  /** ParseRevocationList + CheckSignatureFrom(issuer). */
  crl(crl: string, issuer: string): Promise<GoCrlAnswer>;
  close(): Promise<void>;
}

/** One checker process for a test file. */
export function goX509(): GoX509 {
  const proc: ChildProcessWithoutNullStreams = spawn(goCheckerBinary(), [], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: ((line: string) => void)[] = [];
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: proc.stdout }).on('line', (line) => waiting.shift()?.(line));
  const ask = <T>(req: object): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (proc.exitCode !== null) return reject(new Error(`go-x509 exited: ${stderr}`));
      waiting.push((line) => resolve(JSON.parse(line) as T));
      proc.stdin.write(`${JSON.stringify(req)}\n`);
    });
  return {
    verify: (cert, roots, intermediates = [], dns = '') => ask<GoCertAnswer>({ op: 'cert', cert, roots, intermediates, dns }),
    crl: (crl, issuer) => ask<GoCrlAnswer>({ op: 'crl', crl, issuer }),
    close: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.stdin.end();
      }),
  };
}
