/**
 * `latchkey agent` as a workload runs it: the CLI as a subprocess (fresh HOME, no token in its
 * environment: it logs in with approle from a secret id file) against the local service in a
 * child process, a YAML configuration with a PKI certificate of 8 s and an SSH certificate of
 * 8 s, each with a command that appends a line to a file. Checked: at least two renewals after
 * the first issue, each certificate new (serial, contents) and verified by openssl against the
 * CA, its key matching it, the modes (key 0600); the command ran after each; a re-login when the
 * 10 s token nears its end; with the service killed, back-off lines and the files left exactly
 * as they were; the service started again on the same data and port, a renewal; the SSH
 * certificate read by ssh-keygen -L with its principal; SIGTERM: exit 0 and a "stopped" line;
 * no secret (secret id, token, private key) in any line of its output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LatchkeyClient } from '../../../lib/client/client';
import { freePort, killChild, killLocalChildren, startLocalChild } from '../../helpers/local-child';
import { openssl, withFiles } from '../../helpers/openssl';
import { certInfo, keygen, section } from '../../helpers/ssh-keys';

const ROOT_DIR = resolve(import.meta.dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Line = Record<string, any>;

interface Snapshot {
  line: Line;
  cert: string;
  key: string;
  chain: string;
  at: number;
}

let dataDir: string;
let port: number;
let service: ChildProcess;
let work: string;
let admin: LatchkeyClient;
let caPem: string;
let secretId: string;

async function setUp(): Promise<void> {
  const w = <T extends object>(path: string, body: T) => admin.write(path, body);
  caPem = (await w('pki/root/generate/internal', { common_name: 'Agent Test Root', ttl: '87600h', key_type: 'ec' }))!.data
    .certificate as string;
  await w('pki/roles/web', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '8s', max_ttl: '1h' });
  await w('ssh/config/ca', { key_type: 'ed25519' });
  await w('ssh/roles/deploy', {
    key_type: 'ca',
    allow_user_certificates: true,
    allowed_users: 'deploy',
    default_user: 'deploy',
    ttl: '8s',
    max_ttl: '1h',
  });
  await w('sys/policies/acl/agent', {
    policy: 'path "pki/issue/web" { capabilities = ["update"] }\npath "ssh/sign/deploy" { capabilities = ["update"] }',
  });
  await w('auth/approle/role/agent', { token_policies: 'agent', token_ttl: '10s', token_max_ttl: '10m' });
  secretId = (await w('auth/approle/role/agent/secret-id', {}))!.data.secret_id as string;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'latchkey-agent-data-'));
  port = await freePort();
  service = await startLocalChild({ dataDir, port });
  admin = new LatchkeyClient({ address: `http://127.0.0.1:${port}`, token: readFileSync(join(dataDir, 'root-token'), 'utf8').trim() });
  await setUp();
  work = mkdtempSync(join(tmpdir(), 'latchkey-agent-'));
}, 60_000);

afterAll(killLocalChildren);

/** The agent's output as lines, and a wait for a condition over them. */
class Watched {
  lines: Line[] = [];
  raw = '';
  stderr = '';
  private waiters: (() => void)[] = [];

  constructor(
    readonly child: ChildProcess,
    onLine: (l: Line) => void,
  ) {
    let partial = '';
    child.stdout!.on('data', (c: Buffer) => {
      this.raw += c.toString();
      partial += c.toString();
      const parts = partial.split('\n');
      partial = parts.pop()!;
      for (const p of parts) {
        const l = JSON.parse(p) as Line;
        this.lines.push(l);
        onLine(l);
      }
      for (const w of this.waiters) w();
    });
    child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString()));
  }

  count(f: (l: Line) => boolean): number {
    return this.lines.filter(f).length;
  }

  /** Resolves once `f` holds (checked on each new line); fails after `ms`. */
  until(what: string, f: () => boolean, ms = 45_000): Promise<void> {
    return new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error(`waited for ${what}; lines:\n${this.raw}\nstderr:\n${this.stderr}`)), ms);
      const check = () => {
        if (f()) {
          clearTimeout(t);
          this.waiters = this.waiters.filter((w) => w !== check);
          res();
        }
      };
      this.waiters.push(check);
      check();
    });
  }
}

const isPki = (l: Line) => l.kind === 'pki';
const isSsh = (l: Line) => l.kind === 'ssh';

/** openssl verify of `cert` against the CA at the moment it was read (it lives 8 s). */
function verifiedAt(cert: string, chain: string, at: number): boolean {
  return withFiles({ 'leaf.pem': cert, 'chain.pem': chain }, (p) =>
    openssl(['verify', '-x509_strict', '-attime', String(Math.floor(at / 1000)), '-CAfile', p('chain.pem'), p('leaf.pem')]),
  ).ok;
}

/** The public key of a certificate and of a private key, compared through openssl. */
function keyMatches(cert: string, key: string): boolean {
  const a = openssl(['x509', '-noout', '-pubkey'], cert).out;
  const b = openssl(['pkey', '-pubout'], key).out;
  return a.length > 0 && a === b;
}

describe('latchkey agent', () => {
  it('renews, runs the command, rides out a stopped service, renews when it is back, stops on SIGTERM', async () => {
    const out = join(work, 'out');
    mkdirSync(out);
    writeFileSync(join(work, 'secret-id'), `${secretId}\n`, { mode: 0o600 });
    const roleId = (await admin.read('auth/approle/role/agent/role-id'))!.data.role_id as string;
    const sshKey = keygen(work, 'ed25519');
    const config = join(work, 'agent.yaml');
    writeFileSync(
      config,
      [
        'auth:',
        '  method: approle',
        `  role_id: ${roleId}`,
        '  secret_id_file: secret-id',
        'pki:',
        '  - role: web',
        '    common_name: a.example.com',
        '    alt_names: [b.example.com]',
        '    ttl: 8s',
        '    cert_file: out/cert.pem',
        '    key_file: out/key.pem',
        '    chain_file: out/chain.pem',
        `    command: echo reload >> ${join(work, 'pki-reloads')}`,
        'ssh:',
        '  - role: deploy',
        `    public_key_file: ${sshKey.pub}`,
        `    cert_file: ${sshKey.priv}-cert.pub`,
        '    valid_principals: deploy',
        `    command: echo reload >> ${join(work, 'ssh-reloads')}`,
        '',
      ].join('\n'),
    );
    const home = mkdtempSync(join(tmpdir(), 'latchkey-agent-home-'));
    const child = spawn(process.execPath, [join(ROOT_DIR, 'bin/latchkey.mjs'), 'agent', `-config=${config}`], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: home, LATCHKEY_ADDR: `http://127.0.0.1:${port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    const issued: Snapshot[] = [];
    const agent = new Watched(child, (l) => {
      if (l.event !== 'renewed' || !isPki(l)) return;
      const read = (f: string) => readFileSync(join(out, f), 'utf8');
      issued.push({ line: l, cert: read('cert.pem'), key: read('key.pem'), chain: read('chain.pem'), at: Date.now() });
    });
    const reloads = (kind: string) => {
      try {
        return readFileSync(join(work, `${kind}-reloads`), 'utf8')
          .split('\n')
          .filter(Boolean).length;
      } catch {
        return 0;
      }
    };

    try {
      // The first issue and two renewals, each followed by its command.
      await agent.until('three PKI certificates', () => issued.length >= 3 && agent.count((l) => l.event === 'command' && isPki(l)) >= 3);
      const serials = issued.map((s) => s.line.serial as string);
      expect(new Set(serials).size).toBe(serials.length);
      expect(new Set(issued.map((s) => s.cert)).size).toBe(issued.length);
      for (const s of issued) {
        expect(verifiedAt(s.cert, s.chain, s.at)).toBe(true);
        expect(keyMatches(s.cert, s.key)).toBe(true);
        expect(s.chain).toContain(caPem.trim());
      }
      for (const l of agent.lines.filter((x) => x.event === 'command' && isPki(x))) expect(l.exit_code).toBe(0);
      expect(reloads('pki')).toBeGreaterThanOrEqual(3);
      expect(statSync(join(out, 'key.pem')).mode & 0o777).toBe(0o600);
      expect(statSync(join(out, 'cert.pem')).mode & 0o777).toBe(0o644);
      expect(statSync(join(out, 'chain.pem')).mode & 0o777).toBe(0o644);

      // The SSH certificate: ssh-keygen reads it, with its principal; its command ran too.
      await agent.until('two SSH certificates', () => agent.count((l) => l.event === 'renewed' && isSsh(l)) >= 2);
      const info = certInfo(readFileSync(`${sshKey.priv}-cert.pub`, 'utf8'));
      expect(section(info, 'Principals')).toEqual(['deploy']);
      expect(reloads('ssh')).toBeGreaterThanOrEqual(1);

      // The 10 s token is replaced before it ends.
      await agent.until('a second login', () => agent.count((l) => l.event === 'login') >= 2);

      // The service stops: back-off, the files stay exactly as they were.
      await killChild(service);
      const files = ['cert.pem', 'key.pem', 'chain.pem'].map((f) => readFileSync(join(out, f), 'utf8'));
      const before = agent.lines.length;
      await agent.until('three back-offs', () => agent.lines.slice(before).filter((l) => l.event === 'backoff' && isPki(l)).length >= 3);
      const backoffs = agent.lines.slice(before).filter((l) => l.event === 'backoff' && isPki(l));
      expect(backoffs[0]!.error).toMatch(/ECONNREFUSED|connect/);
      expect(backoffs.map((l) => l.failures)).toEqual(backoffs.map((_, i) => i + 1));
      expect(['cert.pem', 'key.pem', 'chain.pem'].map((f) => readFileSync(join(out, f), 'utf8'))).toEqual(files);
      expect(agent.lines.slice(before).filter((l) => l.event === 'renewed' && isPki(l))).toEqual([]);

      // Back on the same data and port: the agent renews.
      const renewedBefore = issued.length;
      const reloadsBefore = reloads('pki');
      service = await startLocalChild({ dataDir, port });
      await agent.until('a renewal after the restart', () => issued.length > renewedBefore, 60_000);
      const after = issued[issued.length - 1]!;
      expect(serials).not.toContain(after.line.serial);
      expect(verifiedAt(after.cert, after.chain, after.at)).toBe(true);
      await agent.until('its command', () => reloads('pki') > reloadsBefore);

      // SIGTERM: a clean stop.
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(agent.lines.at(-1)!.event).toBe('stopped');
      expect(readFileSync(join(out, 'key.pem'), 'utf8')).toContain('PRIVATE KEY');

      // No secret in the output.
      const all = agent.raw + agent.stderr;
      expect(all).not.toContain(secretId);
      expect(all).not.toContain('PRIVATE KEY');
      for (const s of issued) expect(all).not.toContain(s.key.split('\n')[1]);
      expect(all).not.toMatch(/"(client_token|token|secret_id)":/);
    } finally {
      if (child.exitCode === null) await killChild(child);
    }
  }, 180_000);
});
