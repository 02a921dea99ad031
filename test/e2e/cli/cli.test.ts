/**
 * The latchkey CLI as a user runs it (a subprocess in a fresh HOME) against the local service
 * over HTTP: logins with each method (token, approle, jwt through the OIDC issuer fake, aws
 * through the STS fake), the generic and KV commands, `-field` and `-format=json` checked
 * byte for byte against the HTTP API's answer, and the exit statuses of usage and server errors.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { githubActionsClaims, startIssuer, type FakeIssuer } from '../../fakes/oidc/issuer';
import { startStsFake, type StsCredentials, type StsFake } from '../../fakes/sts/server';
import { freshHome, runCli } from './run-cli';

let local: LocalService;
let root: string;
let sts: StsFake;
let alice: StsCredentials;
let gh: FakeIssuer;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

async function api(method: string, path: string, body?: unknown, token: string | undefined = root) {
  const res = await fetch(`${local.url}/v1/${path}`, {
    method,
    headers: { ...(token ? { 'x-vault-token': token } : {}), 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, json: (text ? JSON.parse(text) : undefined) as Json | undefined };
}

/** The CLI with the address and (unless `token` is null) the root token in its environment. */
const cli = (args: string[], o: { token?: string | null; env?: Record<string, string>; input?: string; home?: string } = {}) =>
  runCli(args, {
    env: {
      HOME: o.home ?? freshHome(),
      LATCHKEY_ADDR: local.url,
      ...(o.token === null ? {} : { LATCHKEY_TOKEN: o.token ?? root }),
      ...o.env,
    },
    ...(o.input !== undefined ? { input: o.input } : {}),
  });

beforeAll(async () => {
  local = await startLocal({ dataDir: mkdtempSync(join(tmpdir(), 'latchkey-cli-')), port: 0, quiet: true });
  root = local.rootToken!;
  const policy = 'path "secret/data/app/*" { capabilities = ["read"] }\npath "auth/token/lookup-self" { capabilities = ["read"] }';
  expect((await api('PUT', 'sys/policy/app-read', { policy })).status).toBe(204);
  sts = await startStsFake();
  alice = sts.addUser('alice').credentials;
  gh = await startIssuer({ jwksPath: '/.well-known/jwks' });
}, 60_000);

afterAll(async () => {
  await local?.close();
  await sts?.close();
  await gh?.close();
});

describe('login', () => {
  it('with a token: kept in ~/.latchkey-token (0600) and used by the next command', async () => {
    const home = freshHome();
    const r = await cli(['login', root], { token: null, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Success! You are now authenticated/);
    expect(r.stdout).toMatch(new RegExp(`token\\s+${root}`));
    const file = join(home, '.latchkey-token');
    expect(readFileSync(file, 'utf8')).toBe(root);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const read = await cli(['read', '-field=name', 'sys/policy/app-read'], { token: null, home });
    expect(read).toEqual({ code: 0, stdout: 'app-read', stderr: '' });
  });

  it('token from stdin with -; -no-store keeps nothing; -token-only prints the token alone', async () => {
    const home = freshHome();
    expect((await cli(['login', '-no-store', '-'], { token: null, home, input: `${root}\n` })).code).toBe(0);
    expect(() => statSync(join(home, '.latchkey-token'))).toThrow();
    expect(await cli(['login', '-token-only', `token=${root}`], { token: null, home })).toEqual({ code: 0, stdout: root, stderr: '' });
    expect(() => statSync(join(home, '.latchkey-token'))).toThrow();
    const bad = await cli(['login', 'lk.not-a-token'], { token: null, home });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Error: .+\n$/);
  });

  it('approle: role_id and secret_id=@file', async () => {
    expect((await api('POST', 'auth/approle/role/cli', { token_policies: 'app-read', token_ttl: '10m' })).status).toBe(204);
    const roleId = (await api('GET', 'auth/approle/role/cli/role-id')).json!.data.role_id as string;
    const secretId = (await api('POST', 'auth/approle/role/cli/secret-id')).json!.data.secret_id as string;
    const home = freshHome();
    writeFileSync(join(home, 'secret-id'), secretId);
    const r = await cli(['login', '-method=approle', `role_id=${roleId}`, `secret_id=@${join(home, 'secret-id')}`], { token: null, home });
    expect(r.code, r.stderr).toBe(0);
    const token = readFileSync(join(home, '.latchkey-token'), 'utf8');
    const self = await api('GET', 'auth/token/lookup-self', undefined, token);
    expect(self.json!.data.policies).toContain('app-read');
    const wrong = await cli(['login', '-method=approle', `role_id=${roleId}`, 'secret_id=nope'], { token: null, home: freshHome() });
    expect(wrong).toEqual({ code: 1, stdout: '', stderr: 'Error: invalid role or secret ID\n' });
  });

  it('jwt: a GitHub Actions token from the OIDC issuer fake, from stdin', async () => {
    expect((await api('POST', 'auth/jwt/config', { oidc_discovery_url: gh.issuer, bound_issuer: gh.issuer })).status).toBe(204);
    const role = { role_type: 'jwt', user_claim: 'sub', bound_audiences: 'https://github.com/octo-org', token_policies: 'app-read' };
    expect((await api('POST', 'auth/jwt/role/deploy', role)).status).toBe(204);
    const jwt = await gh.sign(githubActionsClaims(gh.issuer));
    const r = await cli(['login', '-method=jwt', '-token-only', 'role=deploy', 'jwt=-'], { token: null, input: jwt });
    expect(r.code, r.stderr).toBe(0);
    expect((await api('GET', 'auth/token/lookup-self', undefined, r.stdout)).json!.data.policies).toContain('app-read');
  });

  it('aws: sts:GetCallerIdentity signed from the environment credentials, with the server-id header', async () => {
    expect(
      (await api('POST', 'auth/aws/config/client', { sts_endpoint: sts.endpoint, iam_server_id_header_value: 'latchkey.example.com' }))
        .status,
    ).toBe(204);
    const role = { auth_type: 'iam', bound_iam_principal_arn: 'arn:aws:iam::123456789012:user/alice', token_policies: 'app-read' };
    expect((await api('POST', 'auth/aws/role/dev', role)).status).toBe(204);
    const env = {
      AWS_ACCESS_KEY_ID: alice.accessKeyId,
      AWS_SECRET_ACCESS_KEY: alice.secretAccessKey,
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    };
    const home = freshHome();
    const r = await cli(['login', '-method=aws', 'role=dev', 'header_value=latchkey.example.com'], { token: null, env, home });
    expect(r.code, r.stderr).toBe(0);
    const token = readFileSync(join(home, '.latchkey-token'), 'utf8');
    expect((await api('GET', 'auth/token/lookup-self', undefined, token)).json!.data.policies).toContain('app-read');
    // Without the header the server requires: the server's refusal, exit 1.
    const refused = await cli(['login', '-method=aws', 'role=dev'], { token: null, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: .*X-Vault-AWS-IAM-Server-ID.*\n$/i);
  });
});

describe('read, write, list, delete', () => {
  it('-format=json is the HTTP API answer, indented; -field is the value exactly', async () => {
    // A bare - reads a JSON object from stdin; k=- would be text, which the KV engine refuses (exit 1).
    expect((await cli(['write', 'secret/data/app/db', '-'], { input: '{"data":{"user":"v"}}' })).code).toBe(0);
    expect((await cli(['write', 'secret/data/app/db', 'data=-'], { input: '{"user":"u"}' })).code).toBe(1);
    const w = await cli(['kv', 'put', 'secret/app/db', 'user=u', 'pass=p w\n', 'port=5432']);
    expect(w.code, w.stderr).toBe(0);
    const http = await api('GET', 'secret/data/app/db');
    const r = await cli(['read', '-format=json', 'secret/data/app/db']);
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout) as Json;
    expect(r.stdout).toBe(`${JSON.stringify({ ...http.json, request_id: printed.request_id }, null, 2)}\n`);
    const kvField = await cli(['kv', 'get', '-field=pass', 'secret/app/db']);
    expect(kvField).toEqual({ code: 0, stdout: 'p w\n', stderr: '' });
    const meta = await cli(['read', '-field=metadata', 'secret/data/app/db']);
    expect(meta.stdout).toBe(JSON.stringify(http.json!.data.metadata));
    const kvJson = await cli(['kv', 'get', '-format=json', 'secret/app/db']);
    expect(JSON.parse(kvJson.stdout)).toEqual({ ...http.json, request_id: (JSON.parse(kvJson.stdout) as Json).request_id });
  });

  it('write with k=@file and k=-, read as a table, list, delete', async () => {
    const home = freshHome();
    writeFileSync(join(home, 'p.hcl'), 'path "x/*" { capabilities = ["read"] }\n');
    const w = await cli(['write', 'sys/policy/from-file', `policy=@${join(home, 'p.hcl')}`], { home });
    expect(w).toEqual({ code: 0, stdout: 'Success! Data written to: sys/policy/from-file\n', stderr: '' });
    expect((await api('GET', 'sys/policy/from-file')).json!.data.rules).toBe('path "x/*" { capabilities = ["read"] }\n');
    expect((await cli(['write', 'sys/policy/from-stdin', 'policy=-'], { input: 'path "y" { capabilities = ["list"] }' })).code).toBe(0);
    const table = await cli(['read', 'sys/policy/from-stdin']);
    expect(table.stdout).toMatch(/^Key {7}Value\n--- {7}-----\nname {6}from-stdin\n/);
    const list = await cli(['list', 'sys/policy']);
    expect(list.stdout).toMatch(/^Keys\n----\n/);
    expect(list.stdout.split('\n')).toEqual(expect.arrayContaining(['from-file', 'from-stdin', 'app-read']));
    const httpList = await api('GET', 'sys/policy?list=true');
    expect((await cli(['list', '-format=json', 'sys/policy'])).stdout).toBe(`${JSON.stringify(httpList.json!.data.keys, null, 2)}\n`);
    expect((await cli(['delete', 'sys/policy/from-file'])).stdout).toBe('Success! Data deleted (if it existed) at: sys/policy/from-file\n');
    expect((await api('GET', 'sys/policy/from-file')).status).toBe(404);
    expect(await cli(['read', 'sys/policy/from-file'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'No value found at sys/policy/from-file\n',
    });
  });

  it('kv: list, patch, delete, undelete, destroy, metadata', async () => {
    expect((await cli(['kv', 'put', '-mount=secret', 'team/a', 'k=1'])).code).toBe(0);
    expect((await cli(['kv', 'patch', 'secret/team/a', 'k=2'])).code).toBe(0);
    expect((await api('GET', 'secret/data/team/a')).json!.data.data).toEqual({ k: '2' });
    expect((await cli(['kv', 'list', '-format=json', 'secret/team'])).stdout).toBe('[\n  "a"\n]\n');
    expect((await cli(['kv', 'delete', 'secret/team/a'])).code).toBe(0);
    expect((await cli(['kv', 'get', 'secret/team/a'])).code).toBe(1);
    expect((await cli(['kv', 'undelete', '-versions=2', 'secret/team/a'])).code).toBe(0);
    expect((await cli(['kv', 'get', '-field=k', 'secret/team/a'])).stdout).toBe('2');
    expect((await cli(['kv', 'destroy', '-versions=1', 'secret/team/a'])).code).toBe(0);
    expect((await cli(['kv', 'metadata', 'put', '-max-versions=4', '-custom-metadata=owner=me', 'secret/team/a'])).code).toBe(0);
    const meta = (await api('GET', 'secret/metadata/team/a')).json!.data;
    expect(meta).toMatchObject({ max_versions: 4, custom_metadata: { owner: 'me' } });
    expect(meta.versions['1'].destroyed).toBe(true);
    expect((await cli(['kv', 'metadata', 'get', '-field=max_versions', 'secret/team/a'])).stdout).toBe('4');
    expect((await cli(['kv', 'metadata', 'delete', 'secret/team/a'])).code).toBe(0);
    expect((await api('GET', 'secret/metadata/team/a')).status).toBe(404);
  });

  it('token create, lookup, renew, revoke', async () => {
    const t = await cli(['token', 'create', '-policy=app-read', '-ttl=1h', '-field=token']);
    expect(t.code, t.stderr).toBe(0);
    expect((await cli(['token', 'lookup', '-field=policies', t.stdout])).stdout).toBe('["app-read","default"]');
    expect((await cli(['token', 'renew', '-increment=30m', '-field=token_duration'], { token: t.stdout })).stdout).toBe('30m');
    expect((await cli(['token', 'revoke', t.stdout])).code).toBe(0);
    expect((await api('GET', 'auth/token/lookup-self', undefined, t.stdout)).status).toBe(403);
  });

  it('status: seal and leader as vault prints them', async () => {
    const r = await cli(['status'], { token: null });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Key {13}Value\n--- {13}-----\nSeal Type {7}shamir\nInitialized {5}true\nSealed {10}false\n/);
  });
});

describe('errors and exit statuses', () => {
  it.each([
    [['read', '-bogus', 'sys/health'], /^flag provided but not defined: -bogus\n$/],
    [['write', 'sys/policy/x', 'novalue'], /^invalid key\/value pair "novalue": format must be key=value\n$/],
    [['write', 'sys/policy/x', '=v'], /^invalid key\/value pair "=v"/],
    [['write', 'sys/policy/x', 'policy=@/nonexistent/file'], /^cannot read \/nonexistent\/file: ENOENT\n$/],
    [['read'], /^not enough arguments/],
    [['read', '-format=xml', 'sys/health'], /^invalid output format: xml/],
    [['nonsense'], /^unknown command "nonsense"/],
    [['kv', 'frob', 'x'], /^unknown subcommand "frob"/],
    [['ssh', '-role=r'], /^not enough arguments/],
    [['login', '-method=token'], /^login -method=token needs a token/],
  ])('%j: exit 2, one line', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it("the server's errors: exit 1, one line each", async () => {
    const denied = await cli(['read', 'sys/policy/app-read'], { token: 'lk.bogus' });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^Error: .+\n$/);
    const bad = await cli(['write', 'sys/policy/bad', 'policy=path "x" { capabilities = ["fly"] }']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      `${(await api('PUT', 'sys/policy/bad', { policy: 'path "x" { capabilities = ["fly"] }' })).json!.errors.map((e: string) => `Error: ${e}\n`).join('')}`,
    );
    const down = await runCli(['read', 'sys/health'], { env: { HOME: freshHome(), LATCHKEY_ADDR: 'http://127.0.0.1:1' } });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^Error: .*ECONNREFUSED.*\n$/);
  });

  it('-h on every command and subcommand: usage on stdout, exit 0', async () => {
    for (const args of [
      ['-h'],
      ['read', '-h'],
      ['write', '-help'],
      ['login', '-h'],
      ['ssh', '-h'],
      ['kv', 'get', '-h'],
      ['token', 'create', '-h'],
      ['status', '-h'],
      ['kv', 'metadata', '-h'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/Usage: latchkey/);
    }
  });
});
