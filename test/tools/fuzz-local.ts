/**
 * Fuzz a fresh local instance with the project's fuzzer (test/tools/fuzz.ts), in a child
 * process of its own.
 *   npm run fuzz -- [--seconds 180] [--seed 1] [--concurrency 8]
 * The root token and the local key (the store's sealing key) are the secrets no answer may hold.
 * The root token would be revoked by the fuzzer within seconds (auth/token/revoke-self), which
 * leaves it testing only the 403 path; so it fuzzes with a token whose policy allows everything
 * except revoking or re-scoping that token. The pki mount gets a CA and ACME enabled first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLocal } from '../../lib/local/service';
import { setLogLevel } from '../../lib/log';

const FUZZER = resolve(import.meta.dirname, 'fuzz.ts');
const ALL = ['create', 'read', 'update', 'delete', 'list', 'sudo'];

setLogLevel('silent');
const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-fuzz-'));
const svc = await startLocal({ dataDir, port: 0 });
const root = svc.rootToken!;
const policy = {
  path: {
    '*': { capabilities: ALL },
    'auth/token/revoke*': { capabilities: ['deny'] },
    'auth/token/revoke-self': { capabilities: ['deny'] },
    'sys/policy/fuzzer': { capabilities: ['deny'] },
    'sys/policies/acl/fuzzer': { capabilities: ['deny'] },
    // Prefix revocation under auth/ revokes the tokens created there, this one included.
    'sys/leases/revoke-prefix/auth*': { capabilities: ['deny'] },
    'sys/leases/revoke-force/auth*': { capabilities: ['deny'] },
    'sys/revoke-prefix/auth*': { capabilities: ['deny'] },
    'sys/revoke-force/auth*': { capabilities: ['deny'] },
  },
};
const put = await fetch(`${svc.url}/v1/sys/policy/fuzzer`, {
  method: 'PUT',
  headers: { 'x-svc-token': root },
  body: JSON.stringify({ policy: JSON.stringify(policy) }),
});
if (put.status !== 204) throw new Error(`policy write failed: ${put.status}`);
const created = await fetch(`${svc.url}/v1/auth/token/create`, {
  method: 'POST',
  headers: { 'x-svc-token': root },
  // Without the default policy: its exact revoke-self rule would outrank the deny glob below.
  body: JSON.stringify({ policies: ['fuzzer'], ttl: '24h', no_default_policy: true }),
});
const token = ((await created.json()) as { auth: { client_token: string } }).auth.client_token;

// A CA and the ACME server on, so the ACME paths are fuzzed past their "disabled" answer.
for (const [path, body] of [
  ['pki/root/generate/internal', { common_name: 'fuzz root', key_type: 'ec' }],
  ['pki/config/cluster', { path: `${svc.url}/v1/pki` }],
  ['pki/config/acme', { enabled: true }],
] as const) {
  const r = await fetch(`${svc.url}/v1/${path}`, { method: 'POST', headers: { 'x-svc-token': root }, body: JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`${path} failed: ${r.status}`);
}

const args = process.argv.slice(2);
// Asynchronously: the service under test runs in this very process.
const secrets = [root, readFileSync(join(dataDir, 'local.key'), 'utf8').trim()].join('\n');
const child = spawn(process.execPath, ['--import', 'tsx', FUZZER, '--base', svc.url, ...args], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_TOKEN: token, FUZZ_SECRETS: secrets },
});
const code = await new Promise<number>((done) => child.on('exit', (c) => done(c ?? 1)));
await svc.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(code);
