/**
 * A local fake of AWS KMS for tests, speaking the real wire protocol (AWS JSON 1.1 over HTTP,
 * SigV4-signed), so the official SDK client talks to it unchanged with only `endpoint` set.
 * Keys are real: AES-256-GCM for symmetric keys, node:crypto RSA / EC key pairs for signing.
 * Tests can inspect keys, see the calls made, and inject faults per operation.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sigV4RequestOf, verifySigV4 } from './sigv4';
import { defaultStatus, KmsError } from './kms/errors';
import { KeyStore, type CreateKeySpec, type KeySpec, type KeyState, type KeyUsage } from './kms/keystore';
import { OPERATIONS, type Input } from './kms/operations';

export type { CreateKeySpec, KeySpec, KeyState, KeyUsage };

/** A fault answered instead of running an operation, for the next `count` matching calls. */
export interface Fault {
  /** operation name as in X-Amz-Target, e.g. "Decrypt"; "*" matches every operation */
  operation: string;
  /** the `__type` to answer, e.g. "ThrottlingException"; omit to only delay the call */
  error?: string;
  message?: string;
  /** HTTP status; 400 unless the error is a server-side one (KMSInternalException: 500, ...) */
  status?: number;
  /** how many matching calls it affects (default 1) */
  count?: number;
  /** wait this long before answering (with the error, or with the real result) */
  delayMs?: number;
}

export interface KmsFakeOptions {
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
  accountId?: string;
  /** faults armed before the first request */
  failNext?: Fault[];
}

export interface KmsCall {
  operation: string;
  /** the KeyId (or SourceKeyId / TargetKeyId) the request named, if any */
  keyId?: string;
  status: number;
  /** the `__type` answered, on failure */
  error?: string;
}

export interface KeyInfo {
  keyId: string;
  arn: string;
  keySpec: KeySpec;
  keyUsage: KeyUsage;
  state: KeyState;
  description: string;
  aliases: string[];
  created: Date;
  deletionDate?: Date;
  publicKey?: KeyObject;
}

export interface KmsFake {
  endpoint: string;
  region: string;
  accountId: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  keys: {
    list(): KeyInfo[];
    /** by key id, key ARN, alias name or alias ARN */
    get(keyId: string): KeyInfo | undefined;
  };
  /** every authenticated request, in order; clear it with `calls.length = 0` */
  calls: KmsCall[];
  createKey(spec?: CreateKeySpec & { alias?: string }): Promise<{ keyId: string; arn: string }>;
  /** makes the next `count` (default 1) calls of `operation` ("*": any) fail with `error` */
  failNext(operation: string, error: string, options?: Omit<Fault, 'operation' | 'error'>): void;
  /** arms a fault; faults are matched in the order they were armed */
  inject(fault: Fault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

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

function send(res: ServerResponse, status: number, body: Input): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(json),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(json);
}

const sendError = (res: ServerResponse, status: number, type: string, message: string) => send(res, status, { __type: type, message });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startKmsFake(options: KmsFakeOptions = {}): Promise<KmsFake> {
  const credentials = { accessKeyId: options.accessKeyId ?? 'test', secretAccessKey: options.secretAccessKey ?? 'test' };
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '111122223333';
  const store = new KeyStore(region, accountId);
  const faults: (Fault & { left: number })[] = [];
  const calls: KmsCall[] = [];

  const inject = (fault: Fault) => {
    const left = fault.count ?? 1;
    if (!Number.isInteger(left) || left < 1) throw new Error('fault count must be a positive integer');
    faults.push({ ...fault, left });
  };
  for (const f of options.failNext ?? []) inject(f);

  const takeFault = (operation: string): Fault | undefined => {
    const i = faults.findIndex((f) => f.operation === operation || f.operation === '*');
    const f = faults[i];
    if (!f) return undefined;
    if (--f.left === 0) faults.splice(i, 1);
    return f;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (!body) return sendError(res, 413, 'RequestEntityTooLargeException', 'the request body is too large');
    const auth = verifySigV4(sigV4RequestOf(req, body), {
      service: 'kms',
      region,
      secretFor: (id) => (id === credentials.accessKeyId ? credentials.secretAccessKey : undefined),
    });
    if (!auth.ok) return sendError(res, auth.status, auth.code, auth.message);

    const target = req.headers['x-amz-target'];
    const name = typeof target === 'string' && target.startsWith('TrentService.') ? target.slice('TrentService.'.length) : '';
    const op = Object.hasOwn(OPERATIONS, name) ? OPERATIONS[name] : undefined;
    if (req.method !== 'POST' || !op) return sendError(res, 400, 'UnknownOperationException', `unknown operation ${String(target)}`);

    let input: Input;
    try {
      const parsed: unknown = body.length ? JSON.parse(body.toString('utf8')) : {};
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      input = parsed as Input;
    } catch {
      return sendError(res, 400, 'SerializationException', 'the request body is not a JSON object');
    }
    const named = [input.KeyId, input.SourceKeyId, input.TargetKeyId].find((v) => typeof v === 'string');
    const call: KmsCall = { operation: name, ...(typeof named === 'string' ? { keyId: named } : {}), status: 200 };
    calls.push(call);

    const fault = takeFault(name);
    if (fault?.delayMs) await sleep(fault.delayMs);
    try {
      if (fault?.error)
        throw new KmsError(fault.error, fault.message ?? `injected ${fault.error}`, fault.status ?? defaultStatus(fault.error));
      send(res, 200, await op(store, input));
    } catch (e) {
      const err = e instanceof KmsError ? e : new KmsError('KMSInternalException', 'internal error in the KMS fake');
      if (!(e instanceof KmsError)) console.error('kms fake:', e);
      call.status = err.status;
      call.error = err.type;
      sendError(res, err.status, err.type, err.message);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      console.error('kms fake:', e);
      if (!res.headersSent) sendError(res, 500, 'KMSInternalException', 'internal error in the KMS fake');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const info = (keyId: string): KeyInfo | undefined => {
    let k;
    try {
      k = store.resolve(keyId);
    } catch {
      return undefined;
    }
    const aliases = [...store.aliases.values()].filter((a) => a.targetKeyId === k.keyId).map((a) => a.name);
    const { keyId: id, arn, keySpec, keyUsage, state, description, created, deletionDate, publicKey } = k;
    return {
      keyId: id,
      arn,
      keySpec,
      keyUsage,
      state,
      description,
      aliases,
      created,
      ...(deletionDate ? { deletionDate } : {}),
      ...(publicKey ? { publicKey } : {}),
    };
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    region,
    accountId,
    credentials,
    keys: {
      list: () => [...store.keys.keys()].map((id) => info(id)).filter((k): k is KeyInfo => k !== undefined),
      get: info,
    },
    calls,
    async createKey(spec = {}) {
      const key = await store.create(spec);
      if (spec.alias) store.createAlias(spec.alias, key.keyId);
      return { keyId: key.keyId, arn: key.arn };
    },
    failNext: (operation, error, opts = {}) => inject({ ...opts, operation, error }),
    inject,
    clearFaults: () => void faults.splice(0),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
