/**
 * `latchkey ssh` as a user runs it against the local service: the key pair made when missing, the
 * certificate signed for USER and written beside the key, and `ssh` run with it into a real
 * loopback sshd trusting the SSH CA; `-add-to-agent` puts key and certificate into a real
 * ssh-agent that `ssh-add -L` lists and plain `ssh` logs in with, the files gone from disk.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { ensureUser, startSshd, type Sshd } from '../../helpers/sshd';
import { freshHome, runCli } from './run-cli';

const USER = 'lkcli';
let local: LocalService;
let sshd: Sshd;
let agent: ChildProcess | undefined;

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${local.url}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': local.rootToken!, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, text: await res.text() };
}

/** ssh options for the test sshd: its port, no config or known hosts, never a prompt. */
const sshOpts = () => [
  '-p',
  String(sshd.port),
  '-F',
  '/dev/null',
  '-o',
  'BatchMode=yes',
  '-o',
  'StrictHostKeyChecking=no',
  '-o',
  'UserKnownHostsFile=/dev/null',
  '-o',
  'LogLevel=ERROR',
];

beforeAll(async () => {
  local = await startLocal({ dataDir: mkdtempSync(join(tmpdir(), 'latchkey-cli-ssh-')), port: 0, quiet: true });
  const ca = await api('POST', 'ssh/config/ca', { key_type: 'ed25519' });
  expect(ca.status, ca.text).toBe(200);
  const role = { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', ttl: '30m' };
  expect((await api('POST', 'ssh/roles/login', role)).status).toBe(204);
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-cli-ca-'));
  writeFileSync(join(dir, 'ca.pub'), (JSON.parse(ca.text) as { data: { public_key: string } }).data.public_key);
  ensureUser(USER);
  sshd = await startSshd({ trustedUserCa: join(dir, 'ca.pub') });
}, 60_000);

afterAll(async () => {
  if (agent && agent.exitCode === null) agent.kill('SIGTERM');
  await sshd?.stop();
  await local?.close();
});

describe('latchkey ssh', () => {
  it('makes a key, signs it for USER, writes <key>-cert.pub and logs in with ssh', async () => {
    const home = freshHome();
    const env = { HOME: home, LATCHKEY_ADDR: local.url, LATCHKEY_TOKEN: local.rootToken! };
    const pub = join(home, '.ssh/id_ed25519.pub');
    const r = await runCli(
      ['ssh', '-role=login', `-public-key-path=${pub}`, `${USER}@127.0.0.1`, '--', ...sshOpts(), 'echo logged-in-as-$(id -un)'],
      { env },
    );
    expect(r.stdout, `${r.stderr}\n${sshd.log()}`).toBe(`logged-in-as-${USER}\n`);
    expect(r.code).toBe(0);
    const cert = join(home, '.ssh/id_ed25519-cert.pub');
    const info = execFileSync('ssh-keygen', ['-L', '-f', cert], { encoding: 'utf8' });
    expect(info).toMatch(new RegExp(`Principals: \\n\\s+${USER}\\n`));
    // The second run signs the same key again (no new pair), and the remote command's status is ours.
    const again = await runCli(['ssh', '-role=login', `-public-key-path=${pub}`, `${USER}@127.0.0.1`, '--', ...sshOpts(), 'exit 3'], {
      env,
    });
    expect(again.code).toBe(3);
    expect(again.stderr).not.toMatch(/Generated a new key pair/);
  });

  it("-no-exec stops after writing; a role that does not exist is the server's error (exit 1)", async () => {
    const home = freshHome();
    const env = { HOME: home, LATCHKEY_ADDR: local.url, LATCHKEY_TOKEN: local.rootToken! };
    const r = await runCli(['ssh', '-role=login', '-no-exec', `${USER}@127.0.0.1`], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(home, '.ssh/id_ed25519-cert.pub'))).toBe(true);
    const bad = await runCli(['ssh', '-role=nope', '-no-exec', `${USER}@127.0.0.1`], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Error: .*nope/m);
    expect((await runCli(['ssh', '-role=login', '-mode=otp', `${USER}@127.0.0.1`], { env })).code).toBe(2);
  });

  it('-add-to-agent: ssh-add -L lists the certificate, and ssh logs in through the agent alone', async () => {
    const home = freshHome();
    const sock = join(home, 'agent.sock');
    agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    for (let i = 0; i < 100 && !existsSync(sock); i++) await new Promise((r) => setTimeout(r, 50));
    const env = { HOME: home, LATCHKEY_ADDR: local.url, LATCHKEY_TOKEN: local.rootToken!, SSH_AUTH_SOCK: sock };
    const key = join(home, 'k');
    const r = await runCli(
      ['ssh', '-role=login', `-private-key-path=${key}`, `-public-key-path=${key}.pub`, '-add-to-agent', '-no-exec', `${USER}@127.0.0.1`],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const cert = readFileSync(`${key}-cert.pub`, 'utf8').trim();
    const listed = execFileSync('ssh-add', ['-L'], { env: { ...process.env, SSH_AUTH_SOCK: sock }, encoding: 'utf8' });
    expect(listed.split('\n').map((l) => l.split(' ').slice(0, 2).join(' '))).toContain(cert.split(' ').slice(0, 2).join(' '));
    expect(listed).toMatch(/^ssh-ed25519-cert-v01@openssh.com /m);
    rmSync(key);
    rmSync(`${key}-cert.pub`);
    const login = execFileSync('ssh', [...sshOpts(), '-o', 'IdentityFile=/dev/null', `${USER}@127.0.0.1`, 'echo via-agent-$(id -un)'], {
      env: { ...process.env, SSH_AUTH_SOCK: sock },
      encoding: 'utf8',
    });
    expect(login).toBe(`via-agent-${USER}\n`);
    agent.kill('SIGTERM');
  });
});
