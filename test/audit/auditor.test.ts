/**
 * The auditor: request and response records in the reference's shape, every string of data
 * and the token and accessor as HMACs (the mount's clear keys excepted, at the top level only),
 * clear values on a log_raw device beside hashed ones on another, and fail closed: a record
 * no device took is a 500 naming no secret, while one device of two failing is enough to go on.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditUnavailable, Auditor, RepeatedHashes, type AuditRequest } from '../../lib/audit/auditor';
import { fileDevice, type AuditDevice } from '../../lib/audit/devices';
import { AuditHasher } from '../../lib/audit/hasher';
import { ServiceFault } from '../../lib/domain-errors';
import { httpErrorOf } from '../../lib/errors';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { metrics } from '../../lib/metrics/catalog';
import { Sealer } from '../../lib/keys/sealed';
import { createTestStore } from '../helpers/store';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-auditor-'));
let hasher: AuditHasher;
let n = 0;

beforeAll(async () => {
  const { store } = await createTestStore();
  hasher = new AuditHasher(store.partition('sys'), new Sealer(new LocalKeyWrapper(randomBytes(32))));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'lk.client-token-value-1234567890';
const ACCESSOR = 'accessor-value-abcdef';
const NOW = Date.parse('2026-11-23T10:00:00.000Z');

function request(extra: Partial<AuditRequest> = {}): AuditRequest {
  return {
    id: 'req-1',
    operation: 'update',
    mountType: 'pki',
    mountPoint: 'pki/',
    path: 'pki/issue/web',
    data: { common_name: 'a.example.com', ttl: 3600, alt_names: ['b.example.com'], nested: { common_name: 'deep' } },
    remoteAddress: '127.0.0.1',
    userAgent: 'agent/1',
    clientToken: TOKEN,
    principal: { accessor: ACCESSOR, policies: ['default', 'web'], displayName: 'token-web', snapshot: { meta: { team: 'ops' } } },
    ...extra,
  };
}

const newFile = () => join(dir, `audit-${n++}.log`);
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any

const blockedFile = () => {
  const path = newFile();
  mkdirSync(path);
  return path;
};

describe('Auditor records', () => {
  it('records a request with hashed token, accessor and data strings, numbers and identity in clear', async () => {
    const path = newFile();
    const auditor = new Auditor([fileDevice(path)], hasher, () => NOW);
    await auditor.request(request());
    const [rec] = lines(path);
    const h = await hasher.hashFn();
    expect(rec).toEqual({
      type: 'request',
      time: '2026-11-23T10:00:00.000Z',
      auth: {
        client_token: h(TOKEN),
        accessor: h(ACCESSOR),
        display_name: 'token-web',
        policies: ['default', 'web'],
        token_policies: ['default', 'web'],
        metadata: { team: 'ops' },
        token_type: 'service',
      },
      request: {
        id: 'req-1',
        operation: 'update',
        mount_type: 'pki',
        mount_point: 'pki/',
        client_token: h(TOKEN),
        client_token_accessor: h(ACCESSOR),
        path: 'pki/issue/web',
        data: { common_name: h('a.example.com'), ttl: 3600, alt_names: [h('b.example.com')], nested: { common_name: h('deep') } },
        remote_address: '127.0.0.1',
        user_agent: 'agent/1',
      },
    });
    expect(readFileSync(path, 'utf8')).not.toContain(TOKEN);
  });

  it('records an unauthenticated request with an empty auth', async () => {
    const path = newFile();
    await new Auditor([fileDevice(path)], hasher).request({
      id: 'r',
      operation: 'read',
      mountType: 'system',
      mountPoint: 'sys/',
      path: 'sys/health',
    });
    expect(lines(path)[0]).toMatchObject({ type: 'request', auth: {}, request: { id: 'r', path: 'sys/health' } });
    expect(lines(path)[0]!.request.data).toBeUndefined();
  });

  it('records a response: data, auth secrets and wrap info hashed, lease and policies readable, the error as given', async () => {
    const path = newFile();
    const auditor = new Auditor([fileDevice(path)], hasher);
    const issued = {
      client_token: 'lk.new-token-xyz',
      accessor: 'new-accessor',
      policies: ['web'],
      metadata: { a: 'b' },
      lease_duration: 60,
      renewable: true,
    };
    await auditor.response(
      request(),
      {
        status: 200,
        data: { private_key: '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----', serial_number: '01:02' },
        leaseId: 'pki/issue/web/abc',
        auth: issued,
        wrapInfo: { token: 'wrapping-token-1', ttl: 60 },
        warnings: ['a warning'],
      },
      'an error',
    );
    const h = await hasher.hashFn();
    const [rec] = lines(path);
    expect(rec!.type).toBe('response');
    expect(rec!.error).toBe('an error');
    expect(rec!.response).toEqual({
      mount_type: 'pki',
      mount_point: 'pki/',
      status_code: 200,
      data: { private_key: h('-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----'), serial_number: h('01:02') },
      secret: { lease_id: 'pki/issue/web/abc' },
      auth: {
        client_token: h('lk.new-token-xyz'),
        accessor: h('new-accessor'),
        policies: ['web'],
        metadata: { a: 'b' },
        lease_duration: 60,
        renewable: true,
      },
      wrap_info: { token: h('wrapping-token-1'), ttl: 60 },
      warnings: ['a warning'],
    });
    const text = readFileSync(path, 'utf8');
    for (const secret of ['MHcCAQEE', 'lk.new-token-xyz', 'new-accessor', 'wrapping-token-1', TOKEN, ACCESSOR])
      expect(text).not.toContain(secret);
  });

  it("repeats the request record's auth and request parts in the response record, byte for byte", async () => {
    const path = newFile();
    const auditor = new Auditor([fileDevice(path)], hasher);
    const req = request();
    await auditor.request(req);
    await auditor.response(req, { status: 204 }, undefined);
    const [q, r] = lines(path);
    expect(JSON.stringify(r!.auth)).toBe(JSON.stringify(q!.auth));
    expect(JSON.stringify(r!.request)).toBe(JSON.stringify(q!.request));
    expect(Object.keys(r!)).toEqual(['type', 'time', 'auth', 'request', 'response']);
  });

  it('records a raw body (PEM, bytes) as the HMAC of its text with its content type', async () => {
    const path = newFile();
    const auditor = new Auditor([fileDevice(path)], hasher);
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    await auditor.response(request(), { status: 200, raw: { body: pem, contentType: 'application/pem-certificate-chain' } }, undefined);
    const bytes = new Uint8Array([1, 2, 3, 255]);
    await auditor.response(request(), { status: 200, raw: { body: bytes, contentType: 'application/octet-stream' } }, undefined);
    const h = await hasher.hashFn();
    const [a, b] = lines(path);
    expect(a!.response.data).toEqual({
      http_content_type: 'application/pem-certificate-chain',
      http_raw_body: h(pem),
      http_status_code: 200,
    });
    expect(b!.response.data.http_raw_body).toBe(h(Buffer.from(bytes).toString('base64')));
    expect(a!.error).toBeUndefined();
  });

  it("keeps the mount's clear keys clear at the top level only, in requests and responses", async () => {
    const path = newFile();
    const auditor = new Auditor([fileDevice(path)], hasher);
    const req = request({ clearKeys: ['common_name'] });
    await auditor.request(req);
    await auditor.response(
      req,
      { status: 200, data: { serial_number: '0a:0b', certificate: 'PEM', inner: { serial_number: 'x' } }, clearKeys: ['serial_number'] },
      undefined,
    );
    const h = await hasher.hashFn();
    const [q, r] = lines(path);
    expect(q!.request.data).toEqual({
      common_name: 'a.example.com',
      ttl: 3600,
      alt_names: [h('b.example.com')],
      nested: { common_name: h('deep') },
    });
    expect(r!.response.data).toEqual({ serial_number: '0a:0b', certificate: h('PEM'), inner: { serial_number: h('x') } });
  });
});

describe('Auditor devices', () => {
  it('gives a log_raw device clear values and a hashed device hashed ones, for the same record', async () => {
    const raw = newFile();
    const hashed = newFile();
    const auditor = new Auditor([fileDevice(raw, { logRaw: true }), fileDevice(hashed)], hasher);
    await auditor.request(request());
    const [r] = lines(raw);
    const [h] = lines(hashed);
    expect(r!.request.client_token).toBe(TOKEN);
    expect(r!.request.data.common_name).toBe('a.example.com');
    expect(r!.auth.accessor).toBe(ACCESSOR);
    expect(h!.request.client_token).toMatch(/^hmac-sha256:/);
    expect(h!.request.data.common_name).toBe(await hasher.hash('a.example.com'));
    expect({ ...h!.request, client_token: 0, client_token_accessor: 0, data: 0 }).toEqual({
      ...r!.request,
      client_token: 0,
      client_token_accessor: 0,
      data: 0,
    });
  });

  it('fails closed with a 500 naming no secret when every device throws', async () => {
    const auditor = new Auditor([fileDevice(blockedFile()), fileDevice(blockedFile())], hasher);
    const err = await auditor.request(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuditUnavailable);
    expect(err).toBeInstanceOf(ServiceFault);
    expect(httpErrorOf(err).status).toBe(500);
    expect(httpErrorOf(err).messages).toEqual(['the audit log could not record the request']);
    expect(String((err as Error).message)).not.toContain(TOKEN);
    await expect(auditor.response(request(), { status: 200 }, undefined)).rejects.toBeInstanceOf(AuditUnavailable);
  });

  it('counts records written and records no device took, by kind (the AuditWriteFailures alarm)', async () => {
    const written = (kind: string) => metrics.audit.written.value({ kind });
    const failed = (kind: string) => metrics.audit.failed.value({ kind });
    const before = { w: written('request'), f: failed('request'), r: written('response') };
    const good = new Auditor([fileDevice(newFile())], hasher);
    await good.request(request());
    await good.response(request(), { status: 200 }, undefined);
    await new Auditor([fileDevice(blockedFile())], hasher).request(request()).catch(() => undefined);
    expect(written('request')).toBe(before.w + 1);
    expect(written('response')).toBe(before.r + 1);
    expect(failed('request')).toBe(before.f + 1);
  });

  it('succeeds when one device of two fails, and the other has the record', async () => {
    const good = newFile();
    const auditor = new Auditor([fileDevice(blockedFile()), fileDevice(good)], hasher);
    await auditor.request(request());
    expect(lines(good)).toHaveLength(1);
  });

  it('fails closed when the HMAC key cannot be had', async () => {
    const broken = { ensureKey: () => Promise.reject(new Error('kms down')) } as unknown as AuditHasher;
    await expect(new Auditor([fileDevice(newFile())], broken).request(request())).rejects.toBeInstanceOf(AuditUnavailable);
  });

  it('with no device, is disabled and records nothing', async () => {
    const auditor = new Auditor([], hasher);
    expect(auditor.enabled).toBe(false);
    await expect(auditor.request(request())).resolves.toBeUndefined();
  });

  it('finds a device by its path, with or without the trailing slash', () => {
    const devices: AuditDevice[] = [fileDevice(newFile())];
    const auditor = new Auditor(devices, hasher);
    expect(auditor.device('file')).toBe(devices[0]);
    expect(auditor.device('file/')).toBe(devices[0]);
    expect(auditor.device('stdout')).toBeUndefined();
  });
});

describe('RepeatedHashes', () => {
  const counting = () => {
    const asked: string[] = [];
    return { asked, hashes: new RepeatedHashes((s) => (asked.push(s), `H(${s})`)) };
  };

  it('hashes a value once per record, and keeps a value repeated within a record for the records after', () => {
    const { asked, hashes } = counting();
    const first = hashes.forRecord();
    expect([first('token'), first('token'), first('key-1')]).toEqual(['H(token)', 'H(token)', 'H(key-1)']);
    const second = hashes.forRecord();
    expect([second('token'), second('key-2')]).toEqual(['H(token)', 'H(key-2)']);
    // The token was hashed once for both records; a value seen once per record is hashed each time.
    expect(asked).toEqual(['token', 'key-1', 'key-2']);
    hashes.forRecord()('key-1');
    expect(asked).toEqual(['token', 'key-1', 'key-2', 'key-1']);
    expect(hashes.size).toBe(1);
  });

  it('keeps at most MAX_ENTRIES values, the oldest leaving first, and none longer than MAX_LENGTH', () => {
    const { asked, hashes } = counting();
    for (let i = 0; i <= RepeatedHashes.MAX_ENTRIES; i++) {
      const h = hashes.forRecord();
      h(`v${i}`);
      h(`v${i}`);
    }
    expect(hashes.size).toBe(RepeatedHashes.MAX_ENTRIES);
    asked.length = 0;
    const h = hashes.forRecord();
    h('v1');
    h('v0');
    expect(asked).toEqual(['v0']);
    const long = 'x'.repeat(RepeatedHashes.MAX_LENGTH + 1);
    h(long);
    h(long);
    hashes.forRecord()(long);
    expect(asked.filter((s) => s === long)).toHaveLength(2);
  });

  it('gives the same records as hashing every value: the response repeats the request, a second request hashes as the first', async () => {
    const path = newFile();
    const auditor = new Auditor([fileDevice(path)], hasher);
    const h = await hasher.hashFn();
    for (const id of ['a', 'b']) {
      await auditor.request(request({ id }));
      await auditor.response(request({ id }), { status: 200, data: { issuing_ca: 'CA', ca_chain: ['CA'], key: `k-${id}` } }, undefined);
    }
    const recs = lines(path);
    expect(recs.map((r) => [r.auth.client_token, r.auth.accessor, r.request.client_token])).toEqual(
      Array(4).fill([h(TOKEN), h(ACCESSOR), h(TOKEN)]),
    );
    expect(recs[3]!.response.data).toEqual({ issuing_ca: h('CA'), ca_chain: [h('CA')], key: h('k-b') });
  });
});
