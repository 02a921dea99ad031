/**
 * The aws auth method (iam) through the app, against the STS fake standing for
 * sts.amazonaws.com: config and roles as the reference serves them, logins of IAM users and
 * assumed roles, every refusal the issue names, and no secret key or signed request in a log
 * line or in clear in the table.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { setLogLevel } from '../../../lib/log';
import { captureLogs } from '../../helpers/capture-logs';
import { call, createTestService, type TestService } from '../../helpers/service';
import { startStsFake, type StsCredentials, type StsFake } from '../../fakes/sts/server';
import { b64, GET_CALLER_IDENTITY, signedLogin, type SignedLoginOptions } from '../../fakes/sts/signed-login';

let svc: TestService;
let sts: StsFake;
let alice: { credentials: StsCredentials };
let app: { credentials: StsCredentials };

const root = (method: string, path: string, body?: unknown) =>
  call(svc.app, method, `/v1/auth/aws/${path}`, { token: svc.root, ...(body !== undefined ? { body } : {}) });
const login = (body: unknown) => call(svc.app, 'POST', '/v1/auth/aws/login', { body });
const loginAs = (creds: StsCredentials, o: SignedLoginOptions = {}) => login(signedLogin(creds, { role: 'dev', ...o }));
const configure = (body: Record<string, unknown>) => root('POST', 'config/client', { sts_endpoint: sts.endpoint, ...body });

/** The login is refused with 400 and a message containing `text`, and STS was never called. */
async function refusedBeforeSts(body: unknown, text: string | RegExp) {
  sts.calls.length = 0;
  const r = await login(body);
  expect(r.status, r.text).toBe(400);
  expect(r.json!.errors.join(' ')).toMatch(text);
  expect(sts.calls).toEqual([]);
}

beforeAll(async () => {
  svc = await createTestService();
  sts = await startStsFake();
  alice = sts.addUser('alice');
  app = sts.addAssumedRole('app-server', 'i-0123456789abcdef0');
  await call(svc.app, 'PUT', '/v1/sys/policy/dev', {
    token: svc.root,
    body: { policy: JSON.stringify({ path: { 'sys/policy/dev': { capabilities: ['read'] } } }) },
  });
  expect((await configure({})).status).toBe(204);
  expect(
    (
      await root('POST', 'role/dev', {
        auth_type: 'iam',
        bound_iam_principal_arn: ['arn:aws:iam::123456789012:user/alice', 'arn:aws:iam::123456789012:role/app-*'],
        token_policies: 'dev',
        token_ttl: '10m',
      })
    ).status,
  ).toBe(204);
});

afterAll(async () => {
  await sts.close();
});

beforeEach(async () => {
  await configure({ iam_server_id_header_value: '' });
});

afterEach(() => {
  setLogLevel('silent');
  vi.restoreAllMocks();
});

describe('config/client', () => {
  it('reads back what was written, defaults filled in; delete forgets it', async () => {
    expect((await configure({ iam_server_id_header_value: 'latchkey.example.com' })).status).toBe(204);
    expect((await root('GET', 'config/client')).json!.data).toEqual({
      sts_endpoint: sts.endpoint,
      sts_region: 'us-east-1',
      iam_server_id_header_value: 'latchkey.example.com',
    });
    expect((await root('DELETE', 'config/client')).status).toBe(204);
    expect((await root('GET', 'config/client')).status).toBe(404);
    expect((await root('POST', 'config/client', { sts_region: 'us-east-1' })).status).toBe(204);
    expect((await root('GET', 'config/client')).json!.data).toMatchObject({ sts_endpoint: 'https://sts.amazonaws.com' });
  });

  it('refuses IAM credentials and the other settings it would store and ignore, naming them', async () => {
    const r = await root('POST', 'config/client', { access_key: 'AKIAEXAMPLE', secret_key: 'never-stored', max_retries: 3 });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toContain('access_key, secret_key, max_retries');
    expect(r.text).not.toContain('never-stored');
  });

  it('refuses an endpoint with a path, query or credentials, and a region that is not one', async () => {
    for (const sts_endpoint of [
      'https://sts.amazonaws.com/relay',
      'https://sts.amazonaws.com/?x=1',
      'https://u:p@sts.amazonaws.com',
      'ftp://sts.amazonaws.com',
      'not a url',
    ]) {
      expect((await root('POST', 'config/client', { sts_endpoint })).status, sts_endpoint).toBe(400);
    }
    expect((await root('POST', 'config/client', { sts_region: 'Mars' })).status).toBe(400);
  });
});

describe('roles', () => {
  it('reads a role back with its role id, bindings and token fields; an update keeps the role id', async () => {
    expect(
      (await root('POST', 'role/reader', { bound_iam_principal_arn: 'arn:aws:iam::123456789012:user/bob', policies: 'dev', ttl: '5m' }))
        .status,
    ).toBe(204);
    const first = (await root('GET', 'role/reader')).json!.data;
    expect(first).toMatchObject({
      auth_type: 'iam',
      bound_iam_principal_arn: ['arn:aws:iam::123456789012:user/bob'],
      resolve_aws_unique_ids: false,
      token_policies: ['dev'],
      token_ttl: 300,
    });
    expect(first.role_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await root('POST', 'role/reader', { token_max_ttl: '1h' })).status).toBe(204);
    const second = (await root('GET', 'role/reader')).json!.data;
    expect(second).toMatchObject({
      role_id: first.role_id,
      token_ttl: 300,
      token_max_ttl: 3600,
      bound_iam_principal_arn: ['arn:aws:iam::123456789012:user/bob'],
    });
    for (const path of ['roles', 'role']) {
      expect((await root('LIST', path)).json!.data.keys).toEqual(expect.arrayContaining(['dev', 'reader']));
    }
    expect((await root('DELETE', 'role/reader')).status).toBe(204);
    expect((await root('GET', 'role/reader')).status).toBe(404);
  });

  it('refuses auth_type ec2, resolve_aws_unique_ids, EC2 bindings, no binding and a binding that is not an ARN', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ auth_type: 'ec2', bound_iam_principal_arn: 'arn:aws:iam::123456789012:user/x' }, 'auth_type "ec2" is not supported'],
      [
        { resolve_aws_unique_ids: true, bound_iam_principal_arn: 'arn:aws:iam::123456789012:user/x' },
        'resolve_aws_unique_ids must be false',
      ],
      [
        { bound_ami_id: 'ami-1', bound_account_id: '123456789012', bound_iam_principal_arn: 'arn:aws:iam::123456789012:user/x' },
        'bound_ami_id, bound_account_id',
      ],
      [{ token_policies: 'dev' }, 'at least one bound_iam_principal_arn'],
      [{ bound_iam_principal_arn: 'alice' }, 'is not an ARN'],
    ];
    for (const [body, text] of cases) {
      const r = await root('POST', 'role/refused', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json!.errors[0]).toContain(text);
    }
    expect((await root('GET', 'role/refused')).status).toBe(404);
  });
});

describe('login', () => {
  it('logs an IAM user in; the token works and records the identity', async () => {
    sts.calls.length = 0;
    const r = await loginAs(alice.credentials);
    expect(r.status, r.text).toBe(200);
    const auth = r.json!.auth;
    expect(auth).toMatchObject({
      policies: ['default', 'dev'],
      token_policies: ['default', 'dev'],
      lease_duration: 600,
      renewable: true,
      orphan: true,
    });
    expect(auth.metadata).toMatchObject({
      account_id: '123456789012',
      auth_type: 'iam',
      canonical_arn: 'arn:aws:iam::123456789012:user/alice',
      client_arn: 'arn:aws:iam::123456789012:user/alice',
      inferred_entity_type: '',
    });
    expect(auth.metadata.client_user_id).toMatch(/^AIDA/);
    expect(sts.calls).toEqual([
      { action: 'GetCallerIdentity', host: 'sts.amazonaws.com', accessKeyId: alice.credentials.accessKeyId, status: 200 },
    ]);

    const self = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: auth.client_token });
    expect(self.json!.data).toMatchObject({
      display_name: 'aws-alice',
      path: 'auth/aws/login',
      meta: { canonical_arn: 'arn:aws:iam::123456789012:user/alice' },
    });
    expect((await call(svc.app, 'GET', '/v1/sys/policy/dev', { token: auth.client_token })).status).toBe(200);
    expect((await call(svc.app, 'GET', '/v1/sys/policy/default', { token: auth.client_token })).status).toBe(403);
  });

  it('maps an assumed role to its role ARN and matches a wildcard binding', async () => {
    const r = await loginAs(app.credentials);
    expect(r.status, r.text).toBe(200);
    expect(r.json!.auth.metadata).toMatchObject({
      canonical_arn: 'arn:aws:iam::123456789012:role/app-server',
      client_arn: 'arn:aws:sts::123456789012:assumed-role/app-server/i-0123456789abcdef0',
    });
    expect(r.json!.auth.metadata.client_user_id).toMatch(/^AROA[0-9A-F]+$/);
    const self = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: r.json!.auth.client_token });
    expect(self.json!.data.display_name).toBe('aws-app-server');
  });

  it("takes the role from the caller's name when none is given", async () => {
    expect((await root('POST', 'role/app-server', { bound_iam_principal_arn: 'arn:aws:iam::123456789012:role/app-server' })).status).toBe(
      204,
    );
    const r = await login(signedLogin(app.credentials));
    expect(r.status, r.text).toBe(200);
    expect(r.json!.auth.metadata.role_id).toBe((await root('GET', 'role/app-server')).json!.data.role_id);
  });

  it('refuses an unknown role only once STS has vouched for the caller, as the reference', async () => {
    const forged = await loginAs({ ...alice.credentials, secretAccessKey: 'guessed' }, { role: 'nobody' });
    expect(forged.json!.errors[0]).toContain('SignatureDoesNotMatch');
    const r = await loginAs(alice.credentials, { role: 'nobody' });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toBe('entry for role nobody not found');
  });

  it('refuses a principal the role does not bind', async () => {
    const { credentials } = sts.addUser('mallory');
    const r = await loginAs(credentials);
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toBe('IAM Principal "arn:aws:iam::123456789012:user/mallory" does not belong to the role "dev"');
    const other = sts.addUser('alice', { account: '999999999999' });
    expect((await loginAs(other.credentials)).status).toBe(400);
  });

  it('refuses another action, extra body parameters and another method before calling STS', async () => {
    await refusedBeforeSts(
      signedLogin(alice.credentials, { role: 'dev', body: 'Action=GetSessionToken&Version=2011-06-15' }),
      'exactly the sts:GetCallerIdentity call',
    );
    await refusedBeforeSts(
      signedLogin(alice.credentials, { role: 'dev', body: `${GET_CALLER_IDENTITY}&DurationSeconds=900` }),
      'exactly the sts:GetCallerIdentity call',
    );
    await refusedBeforeSts(
      signedLogin(alice.credentials, { role: 'dev', body: 'Action=GetCallerIdentity&Version=2011-06-15&Action=AssumeRole' }),
      'exactly',
    );
    await refusedBeforeSts(signedLogin(alice.credentials, { role: 'dev', method: 'GET' }), "only 'POST' is supported");
    await refusedBeforeSts(
      signedLogin(alice.credentials, { role: 'dev', url: 'https://sts.amazonaws.com/?Action=AssumeRole' }),
      'root path',
    );
    await refusedBeforeSts(signedLogin(alice.credentials, { role: 'dev', url: 'https://sts.amazonaws.com/other' }), 'root path');
  });

  it("never sends to a host the request names: the URL's host is ignored and the call goes to the configured endpoint", async () => {
    sts.calls.length = 0;
    const r = await loginAs(alice.credentials, { url: 'https://attacker.example.net/' });
    expect(r.status, r.text).toBe(200);
    expect(sts.calls).toHaveLength(1);
    expect(sts.calls[0]).toMatchObject({ host: 'sts.amazonaws.com', status: 200 });
    // A Go client lists no Host header: the URL's host stands in for it (it is signed), still sent to the fake.
    sts.calls.length = 0;
    expect((await loginAs(alice.credentials, { host: null })).status).toBe(200);
    expect(sts.calls[0]).toMatchObject({ host: 'sts.amazonaws.com', status: 200 });
  });

  it('requires the server-id header, signed and equal, when one is configured', async () => {
    await configure({ iam_server_id_header_value: 'latchkey.example.com' });
    await refusedBeforeSts(signedLogin(alice.credentials, { role: 'dev' }), 'missing header "X-Vault-AWS-IAM-Server-ID"');
    await refusedBeforeSts(
      signedLogin(alice.credentials, { role: 'dev', unsigned: { 'X-Vault-AWS-IAM-Server-ID': 'latchkey.example.com' } }),
      'the header is not signed',
    );
    await refusedBeforeSts(
      signedLogin(alice.credentials, { role: 'dev', serverId: 'vault.other.example.com' }),
      'not the one this server requires',
    );
    expect((await loginAs(alice.credentials, { serverId: 'latchkey.example.com' })).status).toBe(200);
  });

  it('refuses what is not base64, not JSON, or not a SigV4 signature for sts in the configured region', async () => {
    const good = signedLogin(alice.credentials, { role: 'dev' });
    await refusedBeforeSts({ ...good, iam_request_url: 'not base64!' }, 'failed to base64 decode iam_request_url');
    await refusedBeforeSts({ ...good, iam_request_body: '%%%%' }, 'failed to base64 decode iam_request_body');
    await refusedBeforeSts({ ...good, iam_request_headers: 'e30@' }, 'failed to base64 decode iam_request_headers');
    await refusedBeforeSts({ ...good, iam_request_headers: b64('[1,2]') }, 'not a JSON object');
    await refusedBeforeSts({ ...good, iam_request_headers: b64('{"Host":{"a":1}}') }, 'must be a string or a list of strings');
    await refusedBeforeSts(
      { ...good, iam_request_headers: b64('{"Host":"sts.amazonaws.com\\r\\nX-Injected: 1"}') },
      'without control characters',
    );
    await refusedBeforeSts(
      { ...good, iam_request_headers: b64('{"Host":["sts.amazonaws.com"],"Authorization":["Basic eDp5"]}') },
      'not an AWS SigV4',
    );
    await refusedBeforeSts(
      { ...good, iam_request_headers: b64('{"Host":["sts.amazonaws.com"],"Transfer-Encoding":["chunked"]}') },
      'connection headers: transfer-encoding',
    );
    await refusedBeforeSts(signedLogin(alice.credentials, { role: 'dev', region: 'eu-west-1' }), 'signed for region eu-west-1');
    await refusedBeforeSts({ ...good, iam_http_request_method: '' }, 'missing iam_http_request_method');
    await refusedBeforeSts({ ...good, pkcs7: 'MIAGCSqGSIb3DQEHAqCAMIACAQEx' }, 'ec2 logins');
  });

  it("accepts the headers as Go's http.Header, as plain JSON and as a JSON object", async () => {
    const good = signedLogin(alice.credentials, { role: 'dev' });
    const headers = JSON.parse(Buffer.from(good.iam_request_headers ?? '', 'base64').toString()) as Record<string, string[]>;
    expect((await login({ ...good, iam_request_headers: JSON.stringify(headers) })).status).toBe(200);
    const single = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v[0]]));
    expect((await login({ ...good, iam_request_headers: single })).status).toBe(200);
  });

  it("refuses a replay of a request signed outside STS's 15-minute window, and a wrong secret, without echoing them", async () => {
    const old = signedLogin(alice.credentials, { role: 'dev', date: new Date(Date.now() - 20 * 60_000) });
    const r = await login(old);
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toBe('error making upstream request: STS answered 403 SignatureDoesNotMatch');
    const forged = await loginAs({ ...alice.credentials, secretAccessKey: 'guessed' });
    expect(forged.status).toBe(400);
    expect(forged.json!.errors[0]).toBe('error making upstream request: STS answered 403 SignatureDoesNotMatch');
    expect(forged.text).not.toContain(alice.credentials.accessKeyId);
  });

  it('answers 502 when STS fails or cannot be reached', async () => {
    sts.inject({ status: 500, code: 'InternalFailure' });
    const failed = await loginAs(alice.credentials);
    expect(failed.status).toBe(502);
    expect(failed.json!.errors[0]).toBe('error making upstream request: STS answered 500 InternalFailure');
    sts.inject({ status: 200, body: '<html>not STS</html>' });
    expect((await loginAs(alice.credentials)).status).toBe(502);

    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    await root('POST', 'config/client', { sts_endpoint: `http://127.0.0.1:${port}` });
    const down = await loginAs(alice.credentials);
    expect(down.status).toBe(502);
    expect(down.json!.errors[0]).toBe('error making upstream request: STS could not be reached or did not answer in time');
  });
});

describe('secrets', () => {
  it('keeps no secret key, session token or signed request in a log line or in the table', async () => {
    const logs = captureLogs();
    const bodies = [
      signedLogin(alice.credentials, { role: 'dev' }),
      signedLogin(app.credentials, { role: 'dev' }),
      signedLogin({ ...alice.credentials, secretAccessKey: 'x' }, { role: 'dev' }),
    ];
    for (const body of bodies) await login(body);
    setLogLevel('silent');
    vi.restoreAllMocks();
    const signatures = bodies.map(
      (b) => /Signature=([0-9a-f]{64})/.exec(Buffer.from(b.iam_request_headers ?? '', 'base64').toString())?.[1] ?? 'none',
    );
    const secrets = [
      alice.credentials.secretAccessKey,
      app.credentials.sessionToken ?? 'none',
      ...signatures,
      ...bodies.map((b) => b.iam_request_headers ?? 'none'),
    ];
    const table = JSON.stringify((await svc.client.send(new ScanCommand({ TableName: svc.table }))).Items);
    expect(logs.length).toBeGreaterThan(0);
    for (const s of secrets) {
      expect(logs.join('\n')).not.toContain(s);
      expect(table).not.toContain(s);
    }
  });
});
