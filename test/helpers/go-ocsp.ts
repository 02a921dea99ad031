/**
 * golang.org/x/crypto/ocsp as a real OCSP client (Debian golang-golang-x-crypto-dev under
 * /usr/share/gocode, built offline, GOPATH mode). The checker (go-ocsp.go) is built once per
 * source version into the temp dir; `goOcsp()` starts one process answering many checks over
 * stdin/stdout, one JSON line each.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

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
  const source = readFileSync(SOURCE);
  const dir = join(tmpdir(), `latchkey-go-ocsp-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`);
  const bin = join(dir, 'go-ocsp');
  if (existsSync(bin)) return bin;
  if (!existsSync(join(GOPATH, 'src/golang.org/x/crypto/ocsp')))
    throw new Error(`golang.org/x/crypto/ocsp is not under ${GOPATH}: install golang-golang-x-crypto-dev`);
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, 'build-'));
  try {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: work,
      GOCACHE: join(work, 'cache'),
      GOPATH,
      GOTOOLCHAIN: 'local',
      GOPROXY: 'off',
      GOFLAGS: '',
      GO111MODULE: 'off',
      CGO_ENABLED: '0',
    };
    execFileSync('go', ['build', '-o', join(work, 'go-ocsp'), SOURCE], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
    renameSync(join(work, 'go-ocsp'), bin);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

export interface GoOcsp {
  /** ocsp.CreateRequest for `cert` issued by `issuer` (base64 DER in `request`). */
  request(cert: string, issuer: string, hash?: 'sha1' | 'sha256'): Promise<GoOcspAnswer>;
  /** ocsp.ParseResponse(response, issuer): parsed and its signature checked against the issuer. */
  response(response: Buffer, issuer: string): Promise<GoOcspAnswer>;
  close(): Promise<void>;
}

export function goOcsp(): GoOcsp {
  const proc: ChildProcessWithoutNullStreams = spawn(binary(), [], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: ((line: string) => void)[] = [];
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: proc.stdout }).on('line', (line) => waiting.shift()?.(line));
  const ask = (req: object): Promise<GoOcspAnswer> =>
    new Promise<GoOcspAnswer>((resolve, reject) => {
      if (proc.exitCode !== null) return reject(new Error(`go-ocsp exited: ${stderr}`));
      waiting.push((line) => resolve(JSON.parse(line) as GoOcspAnswer));
      proc.stdin.write(`${JSON.stringify(req)}\n`);
    });
  return {
    request: (cert, issuer, hash = 'sha1') => ask({ op: 'request', cert, issuer, hash }),
    response: (response, issuer) => ask({ op: 'response', response: response.toString('base64'), issuer }),
    close: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.stdin.end();
      }),
  };
}
