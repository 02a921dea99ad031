/**
 * A local fake of AWS STS for tests, speaking the real Query protocol over plain HTTP on
 * 127.0.0.1: `GetCallerIdentity` (form body or query string), answered in STS's XML. Every
 * request's SigV4 signature is verified as AWS does — over the Host header the request carries,
 * so a request signed for `sts.amazonaws.com` verifies here — with the credential scope
 * `<date>/<region>/sts/aws4_request` and the request time within 15 minutes of now.
 * Identities are IAM users or assumed roles (those need their session token); the official SDK's
 * STS client talks to it unchanged with only `endpoint` set.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sigV4RequestOf, verifySigV4, type SigV4Failure } from '../sigv4';

export interface StsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface StsIdentity {
  arn: string;
  userId: string;
  account: string;
}

export interface StsCall {
  action: string;
  /** the Host header the request carried */
  host: string;
  accessKeyId?: string;
  status: number;
  /** the error code answered, on failure */
  error?: string;
}

/** An answer given instead of the real one, to the next matching call. */
export interface StsFault {
  status: number;
  /** the raw body to answer (an `ErrorResponse` with `code` when absent) */
  body?: string;
  code?: string;
}

export interface StsFakeOptions {
  region?: string;
  account?: string;
  /** allowed difference between the request time and now (15 minutes) */
  maxSkewMs?: number;
  now?: () => Date;
}

export interface StsFake {
  endpoint: string;
  region: string;
  account: string;
  /** every request, in order; clear with `calls.length = 0` */
  calls: StsCall[];
  /** an IAM user (`arn:aws:iam::<account>:user/<path><name>`) with a long-term access key */
  addUser(name: string, options?: { account?: string; path?: string }): { credentials: StsCredentials; identity: StsIdentity };
  /** temporary credentials of `arn:aws:sts::<account>:assumed-role/<role>/<session>`, with their session token */
  addAssumedRole(role: string, session: string, options?: { account?: string }): { credentials: StsCredentials; identity: StsIdentity };
  /** answers the next call with `fault` (status, and a body or an error code) */
  inject(fault: StsFault): void;
  close(): Promise<void>;
}

const NS = 'https://sts.amazonaws.com/doc/2011-06-15/';
const MAX_BODY = 64 * 1024;

/** What STS answers for each way a signature fails. */
const FAILURES: Record<SigV4Failure, [number, string]> = {
  missing: [403, 'MissingAuthenticationToken'],
  malformed: [400, 'IncompleteSignature'],
  'unknown-key': [403, 'InvalidClientTokenId'],
  scope: [403, 'SignatureDoesNotMatch'],
  expired: [403, 'SignatureDoesNotMatch'],
  payload: [400, 'XAmzContentSHA256Mismatch'],
  mismatch: [403, 'SignatureDoesNotMatch'],
};

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

function errorXml(type: 'Sender' | 'Receiver', code: string, message: string): string {
  return `<ErrorResponse xmlns="${NS}">\n  <Error>\n    <Type>${type}</Type>\n    <Code>${escapeXml(code)}</Code>\n    <Message>${escapeXml(message)}</Message>\n  </Error>\n  <RequestId>${randomUUID()}</RequestId>\n</ErrorResponse>\n`;
}

function identityXml(id: StsIdentity): string {
  return (
    `<GetCallerIdentityResponse xmlns="${NS}">\n  <GetCallerIdentityResult>\n` +
    `    <Arn>${escapeXml(id.arn)}</Arn>\n    <UserId>${escapeXml(id.userId)}</UserId>\n    <Account>${escapeXml(id.account)}</Account>\n` +
    `  </GetCallerIdentityResult>\n  <ResponseMetadata>\n    <RequestId>${randomUUID()}</RequestId>\n  </ResponseMetadata>\n</GetCallerIdentityResponse>\n`
  );
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, xml: string): void {
  res.writeHead(status, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(xml), 'x-amzn-requestid': randomUUID() });
  res.end(xml);
}

/** The Query parameters of a request: the query string's, then the form body's. */
function queryParams(req: IncomingMessage, body: Buffer): URLSearchParams {
  const params = new URLSearchParams(new URL(req.url ?? '/', 'http://sts').search);
  const type = String(req.headers['content-type'] ?? '');
  if (body.length && type.startsWith('application/x-www-form-urlencoded')) {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params.append(k, v);
  }
  return params;
}

const keyId = (prefix: string) => prefix + randomBytes(8).toString('hex').toUpperCase();

export async function startStsFake(options: StsFakeOptions = {}): Promise<StsFake> {
  const region = options.region ?? 'us-east-1';
  const account = options.account ?? '123456789012';
  const principals = new Map<string, { credentials: StsCredentials; identity: StsIdentity }>();
  const faults: StsFault[] = [];
  const calls: StsCall[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const call: StsCall = { action: '', host: String(req.headers.host ?? ''), status: 200 };
    calls.push(call);
    const answer = (status: number, xml: string, code?: string) => {
      call.status = status;
      if (code) call.error = code;
      send(res, status, xml);
    };
    const refuse = (status: number, code: string, message: string) =>
      answer(status, errorXml(status >= 500 ? 'Receiver' : 'Sender', code, message), code);
    if (!body) return refuse(413, 'RequestEntityTooLarge', 'the request body is too large');

    const params = queryParams(req, body);
    call.action = params.get('Action') ?? '';
    const auth = verifySigV4(sigV4RequestOf(req, body), {
      service: 'sts',
      region,
      secretFor: (id) => principals.get(id)?.credentials.secretAccessKey,
      maxSkewMs: options.maxSkewMs ?? 15 * 60_000,
      ...(options.now ? { now: options.now } : {}),
    });
    if (!auth.ok) {
      const [status, code] = FAILURES[auth.reason];
      return refuse(status, code, auth.message);
    }
    call.accessKeyId = auth.accessKeyId;
    const principal = principals.get(auth.accessKeyId);
    const token = req.headers['x-amz-security-token'];
    if (!principal || (principal.credentials.sessionToken ?? undefined) !== (token ?? undefined)) {
      return refuse(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    }
    if (principal.credentials.sessionToken && !auth.signedHeaders.includes('x-amz-security-token')) {
      return refuse(403, 'SignatureDoesNotMatch', 'x-amz-security-token must be signed');
    }

    const fault = faults.shift();
    if (fault)
      return answer(
        fault.status,
        fault.body ?? errorXml('Sender', fault.code ?? 'InternalFailure', 'injected fault'),
        fault.code ?? 'injected',
      );
    if (call.action !== 'GetCallerIdentity')
      return refuse(
        400,
        'InvalidAction',
        `Could not find operation ${call.action} for version ${params.get('Version') ?? 'NO_VERSION_SPECIFIED'}`,
      );
    if (params.get('Version') !== '2011-06-15')
      return refuse(
        400,
        'InvalidAction',
        `Could not find operation ${call.action} for version ${params.get('Version') ?? 'NO_VERSION_SPECIFIED'}`,
      );
    answer(200, identityXml(principal.identity));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      console.error('sts fake:', e instanceof Error ? e.message : 'failure');
      if (!res.headersSent) send(res, 500, errorXml('Receiver', 'InternalFailure', 'internal error in the STS fake'));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const add = (identity: StsIdentity, temporary: boolean) => {
    const credentials: StsCredentials = {
      accessKeyId: keyId(temporary ? 'ASIA' : 'AKIA'),
      secretAccessKey: randomBytes(30).toString('base64'),
      ...(temporary ? { sessionToken: randomBytes(96).toString('base64') } : {}),
    };
    principals.set(credentials.accessKeyId, { credentials, identity });
    return { credentials, identity };
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    region,
    account,
    calls,
    addUser: (name, o = {}) => {
      const acct = o.account ?? account;
      return add({ arn: `arn:aws:iam::${acct}:user/${o.path ?? ''}${name}`, userId: keyId('AIDA'), account: acct }, false);
    },
    addAssumedRole: (role, session, o = {}) => {
      const acct = o.account ?? account;
      return add(
        { arn: `arn:aws:sts::${acct}:assumed-role/${role}/${session}`, userId: `${keyId('AROA')}:${session}`, account: acct },
        true,
      );
    },
    inject: (fault) => void faults.push(fault),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
