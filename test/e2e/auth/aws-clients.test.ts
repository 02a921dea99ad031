/**
 * The aws auth method as workloads log in, against a local Latchkey (the local service, over
 * HTTP) whose config/client points at the STS fake: python3-hvac's `auth.aws.iam_login`
 * (signed for sts.amazonaws.com by hvac), and requests signed by the official AWS SDK for
 * JavaScript (its STS client's own SigV4 signing, captured before it is sent), each token used.
 */
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { startStsFake, type StsCredentials, type StsFake } from '../../fakes/sts/server';

const HEADER = 'latchkey.example.com';

let local: LocalService;
let sts: StsFake;
let root: string;

async function api(method: string, path: string, body?: unknown, token: string | undefined = root) {
  const res = await fetch(`${local.url}/v1/${path}`, {
    method,
    headers: { ...(token ? { 'x-svc-token': token } : {}), 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, json: (text ? JSON.parse(text) : undefined) as Record<string, any> | undefined }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

class Captured extends Error {
  constructor(readonly request: { hostname: string; path: string; method: string; headers: Record<string, string>; body?: unknown }) {
    super('captured');
  }
}

/**
 * A GetCallerIdentity request as the SDK's STS client signs it for https://sts.amazonaws.com
 * (with the server-id header added before signing, as the reference documents for the JS SDK),
 * taken right after the SDK's signing middleware, never sent.
 */
async function sdkSignedRequest(credentials: StsCredentials, serverId?: string) {
  const client = new STSClient({ region: 'us-east-1', endpoint: 'https://sts.amazonaws.com', credentials, maxAttempts: 1 });
  if (serverId) {
    client.middlewareStack.add(
      (next) => async (args) => {
        (args.request as { headers: Record<string, string> }).headers['x-vault-aws-iam-server-id'] = serverId;
        return next(args);
      },
      { step: 'build', name: 'latchkeyServerIdHeader' },
    );
  }
  client.middlewareStack.addRelativeTo(
    () => async (args: { request: unknown }) => {
      throw new Captured(args.request as Captured['request']);
    },
    { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'captureSignedRequest' },
  );
  try {
    await client.send(new GetCallerIdentityCommand({}));
  } catch (e) {
    if (e instanceof Captured) return e.request;
    throw e;
  } finally {
    client.destroy();
  }
  throw new Error('the SDK sent the request');
}

async function sdkLogin(credentials: StsCredentials, role: string, serverId?: string) {
  const req = await sdkSignedRequest(credentials, serverId);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return api(
    'POST',
    'auth/aws/login',
    {
      role,
      iam_http_request_method: req.method,
      iam_request_url: b64(`https://${req.hostname}${req.path}`),
      iam_request_body: b64(String(req.body)),
      iam_request_headers: b64(JSON.stringify(req.headers)),
    },
    undefined,
  );
}

beforeAll(async () => {
  sts = await startStsFake();
  local = await startLocal({ dataDir: mkdtempSync(join(tmpdir(), 'latchkey-aws-auth-')), port: 0, quiet: true });
  root = local.rootToken ?? '';
});

afterAll(async () => {
  await local.close();
  await sts.close();
});

describe('python3-hvac', () => {
  it('configures the mount, logs in with iam_login as an assumed role and a user, and uses the tokens', async () => {
    const role = sts.addAssumedRole('app-server', 'worker-1');
    const user = sts.addUser('ci');
    const other = sts.addUser('intruder');
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [join(import.meta.dirname, 'aws_hvac.py')], {
      env: {
        ...process.env,
        PYTHONDONTWRITEBYTECODE: '1',
        LATCHKEY_ADDR: local.url,
        LATCHKEY_TOKEN: root,
        STS_ENDPOINT: sts.endpoint,
        ROLE_KEY: role.credentials.accessKeyId,
        ROLE_SECRET: role.credentials.secretAccessKey,
        ROLE_SESSION: role.credentials.sessionToken ?? '',
        USER_KEY: user.credentials.accessKeyId,
        USER_SECRET: user.credentials.secretAccessKey,
        OTHER_KEY: other.credentials.accessKeyId,
        OTHER_SECRET: other.credentials.secretAccessKey,
      },
      timeout: 120_000,
    });
    const out = JSON.parse(stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(out.config).toEqual({ sts_endpoint: sts.endpoint, sts_region: 'us-east-1', iam_server_id_header_value: HEADER });
    expect(out.role).toMatchObject({ auth_type: 'iam', token_policies: ['reader'], token_ttl: 900 });
    expect(out.roles).toEqual(['app-server']);

    expect(out.assumed_role).toMatchObject({
      policies: ['default', 'reader'],
      lease_duration: 900,
      display_name: 'aws-app-server',
      authenticated: true,
      read_own_policy: true,
      read_other_policy: 'forbidden',
      metadata: {
        auth_type: 'iam',
        account_id: '123456789012',
        canonical_arn: 'arn:aws:iam::123456789012:role/app-server',
        client_arn: 'arn:aws:sts::123456789012:assumed-role/app-server/worker-1',
      },
    });
    expect(out.assumed_role.meta).toEqual(out.assumed_role.metadata);
    expect(out.user).toMatchObject({
      display_name: 'aws-ci',
      metadata: { canonical_arn: 'arn:aws:iam::123456789012:user/ci' },
      read_own_policy: true,
    });

    expect(out.no_header).toEqual({
      error: 'InvalidRequest',
      messages: ['error validating X-Vault-AWS-IAM-Server-ID header: missing header "X-Vault-AWS-IAM-Server-ID"'],
    });
    expect(out.wrong_secret).toEqual({
      error: 'InvalidRequest',
      messages: ['error making upstream request: STS answered 403 SignatureDoesNotMatch'],
    });
    expect(out.unbound).toEqual({
      error: 'InvalidRequest',
      messages: ['IAM Principal "arn:aws:iam::123456789012:user/intruder" does not belong to the role "app-server"'],
    });
    // hvac signed for sts.amazonaws.com; every login reached the fake with that Host header.
    expect(sts.calls.filter((c) => c.status === 200).every((c) => c.host === 'sts.amazonaws.com')).toBe(true);
  });
});

describe('the official AWS SDK for JavaScript', () => {
  beforeAll(async () => {
    expect((await api('POST', 'auth/aws/config/client', { sts_endpoint: sts.endpoint, iam_server_id_header_value: HEADER })).status).toBe(
      204,
    );
    expect(
      (
        await api('POST', 'auth/aws/role/lambda', {
          bound_iam_principal_arn: 'arn:aws:iam::123456789012:role/fn-*',
          token_policies: 'default',
        })
      ).status,
    ).toBe(204);
  });

  it('logs in with a request its STS client signed (a Lambda execution role), and the token works', async () => {
    const { credentials } = sts.addAssumedRole('fn-orders', 'orders-handler');
    const signed = await sdkSignedRequest(credentials, HEADER);
    expect(signed.headers.authorization).toContain('x-vault-aws-iam-server-id');
    expect(signed.headers.authorization).toContain('x-amz-security-token');

    sts.calls.length = 0;
    const r = await sdkLogin(credentials, 'lambda', HEADER);
    expect(r.status, r.text).toBe(200);
    expect(r.json!.auth.metadata).toMatchObject({
      canonical_arn: 'arn:aws:iam::123456789012:role/fn-orders',
      client_arn: 'arn:aws:sts::123456789012:assumed-role/fn-orders/orders-handler',
    });
    expect(sts.calls).toEqual([expect.objectContaining({ action: 'GetCallerIdentity', host: 'sts.amazonaws.com', status: 200 })]);
    const self = await api('GET', 'auth/token/lookup-self', undefined, r.json!.auth.client_token as string);
    expect(self.json!.data).toMatchObject({ display_name: 'aws-fn-orders', path: 'auth/aws/login', policies: ['default'] });
  });

  it('is refused when the SDK did not sign the server-id header, or signed another value', async () => {
    const { credentials } = sts.addAssumedRole('fn-billing', 'billing-handler');
    const without = await sdkLogin(credentials, 'lambda');
    expect(without.status).toBe(400);
    expect(without.json!.errors[0]).toContain('missing header "X-Vault-AWS-IAM-Server-ID"');
    const other = await sdkLogin(credentials, 'lambda', 'vault.prod.example.com');
    expect(other.status).toBe(400);
    expect((await sdkLogin(credentials, 'lambda', HEADER)).status).toBe(200);
  });
});
