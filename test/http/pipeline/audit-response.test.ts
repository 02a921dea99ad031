/**
 * audit-response (lib/http/pipeline/audit-response.ts): what the audit log's response record
 * holds of each kind of answer, taken from the answer before it is rendered. An envelope: its
 * data, lease id, auth and warnings; a wrapped answer: its wrap_info alone; an empty answer: its
 * status; a raw JSON answer: its parsed data (a raw envelope, such as an unwrap's, by its parts);
 * any other raw body: its HMAC with its content type. Driven through a minimal Vault-style app
 * with test-only paths on a real test service's deps, with two real file audit devices, one
 * log_raw (values in clear) and one hashed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Auditor } from '../../../lib/audit/auditor';
import { fileDevice } from '../../../lib/audit/devices';
import { f } from '../../../lib/http/fields';
import { definePath, type Result } from '../../../lib/http/path';
import { createVaultApi } from '../../../lib/http/vault-api';
import { call, createTestService, type TestService } from '../../helpers/service';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-audit-response-'));
const rawFile = join(dir, 'raw.log');
const hashedFile = join(dir, 'hashed.log');
const mount = { path: 'edge', type: 'edge-test', defaultLeaseTtl: 0, maxLeaseTtl: 0, auditClearResponseKeys: ['name'] };
let svc: TestService;
let app: Hono;
let hash: (s: string) => string;

const unwrapped = JSON.stringify({
  request_id: 'original-id',
  lease_id: 'edge/creds/x/1',
  renewable: false,
  lease_duration: 60,
  data: { password: 'p4ss' },
  wrap_info: null,
  warnings: ['from the original'],
  auth: null,
});

const results: Record<string, Result> = {
  envelope: {
    data: { name: 'web', secret: 's3cret' },
    lease: { id: 'edge/creds/web/abc', duration: 60, renewable: true },
    warnings: ['careful'],
  },
  auth: { auth: { client_token: 'issued-token', accessor: 'issued-accessor', policies: ['p'], lease_duration: 60 } },
  top: { data: { name: 'top', secret: 'top-secret' }, topLevelData: true },
  empty: {},
  accepted: { status: 202 },
  warnings: { warnings: ['careful'] },
  lease: { lease: { id: 'edge/x/1', duration: 30, renewable: false } },
  json: { raw: { body: '{"keys":["a","b"]}', contentType: 'application/json' } },
  'json-array': { raw: { body: '["a","b"]', contentType: 'application/json; charset=utf-8' } },
  unwrapped: { raw: { body: unwrapped, contentType: 'application/json' } },
  'not-json': { raw: { body: '{not json', contentType: 'application/json' } },
  pem: { raw: { body: '-----BEGIN CERTIFICATE-----\nMIIB\n', contentType: 'application/x-pem-file' } },
  der: { raw: { body: new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x05]), contentType: 'application/pkix-cert', status: 201 } },
};

const paths = [
  definePath({
    pattern: 'answer/:kind',
    fields: { kind: f.pathParam() },
    operations: { read: async (req) => results[req.data.kind] },
    help: 'an answer of each kind',
  }),
];

type Rec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  svc = await createTestService();
  const devices = [fileDevice(rawFile, { logRaw: true }), fileDevice(hashedFile)];
  const deps = { ...svc.deps, audit: new Auditor(devices, svc.deps.audit.hasher) };
  app = createVaultApi({ name: 'audit-response-test', deps, routes: [{ prefix: 'edge', mount, paths }] });
  hash = await svc.deps.audit.hasher.hashFn();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Reads `kind` (with `query`, `headers`) and returns the answer and its response record on each device. */
async function recorded(kind: string, query = '', headers: Record<string, string> = {}) {
  const r = await call(app, 'GET', `/v1/edge/answer/${kind}${query}`, { token: svc.root, headers });
  const id = r.headers.get('x-request-id');
  const of = (file: string): Rec => {
    const rec = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec)
      .find((x) => x.type === 'response' && x.request.id === id);
    if (!rec) throw new Error(`no response record for ${id}`);
    return rec.response;
  };
  return { r, raw: of(rawFile), hashed: of(hashedFile) };
}

const base = { mount_type: 'edge-test', mount_point: 'edge/' };

describe('audit-response: envelope answers', () => {
  it("records an envelope's data, lease id and warnings", async () => {
    const { raw } = await recorded('envelope');
    expect(raw).toEqual({
      ...base,
      status_code: 200,
      data: { name: 'web', secret: 's3cret' },
      secret: { lease_id: 'edge/creds/web/abc' },
      warnings: ['careful'],
    });
  });

  it("records an auth answer's auth block, its token and accessor hashed on a hashed device", async () => {
    const { raw, hashed } = await recorded('auth');
    expect(raw.auth).toEqual({ client_token: 'issued-token', accessor: 'issued-accessor', policies: ['p'], lease_duration: 60 });
    expect(hashed.auth).toEqual({
      client_token: hash('issued-token'),
      accessor: hash('issued-accessor'),
      policies: ['p'],
      lease_duration: 60,
    });
    expect(raw).not.toHaveProperty('data');
  });

  it("keeps the mount's clear response keys in clear on a hashed device, and hashes the rest", async () => {
    const { hashed } = await recorded('envelope');
    expect(hashed.data).toEqual({ name: 'web', secret: hash('s3cret') });
  });

  it("records a top-level answer's data once, as the envelope's", async () => {
    const { raw } = await recorded('top');
    expect(raw).toEqual({ ...base, status_code: 200, data: { name: 'top', secret: 'top-secret' } });
  });

  it('records the ignored-parameter warning the client got on a top-level answer', async () => {
    const { raw } = await recorded('top', '?stray=1');
    expect(raw.warnings).toEqual(['Endpoint ignored these unrecognized parameters: [stray]']);
  });

  // The client gets the warning on every envelope answer; only the top-level and wrapped ones record it (audit-response.ts takes result.warnings there).
  it('records the ignored-parameter warning the client got on an ordinary envelope answer', async () => {
    const { r, raw } = await recorded('envelope', '?stray=1');
    expect(r.json!.warnings).toEqual(['careful', 'Endpoint ignored these unrecognized parameters: [stray]']);
    expect(raw.warnings).toEqual(r.json!.warnings);
  });

  // The client gets 200 with a body (wrap.ts); the record says 204 (audit-response.ts: 200 only with data or auth).
  it('records the status the client got for an answer with only warnings or only a lease (200)', async () => {
    for (const kind of ['warnings', 'lease']) {
      const { r, raw } = await recorded(kind);
      expect(r.status, kind).toBe(200);
      expect(raw.status_code, kind).toBe(200);
    }
  });
});

describe('audit-response: wrapped answers', () => {
  it("records a wrapped answer's wrap_info and not its data", async () => {
    const { r, raw, hashed } = await recorded('envelope', '', { 'x-vault-wrap-ttl': '60s' });
    const info = r.json!.wrap_info as Rec;
    // The warnings go out beside the wrap_info (wrappedEnvelope), and are recorded so.
    expect(r.json!.warnings).toEqual(['careful']);
    expect(raw).toEqual({ ...base, status_code: 200, wrap_info: info, warnings: ['careful'] });
    expect(JSON.stringify(raw)).not.toContain('s3cret');
    expect(hashed.wrap_info).toMatchObject({ token: hash(info.token), accessor: hash(info.accessor), ttl: 60 });
  });

  it('records a wrapped auth answer without its auth block', async () => {
    const { raw } = await recorded('auth', '', { 'x-vault-wrap-ttl': '60s' });
    expect(raw).not.toHaveProperty('auth');
    expect(raw.wrap_info.wrapped_accessor).toBe('issued-accessor');
    expect(JSON.stringify(raw)).not.toContain('issued-token');
  });
});

describe('audit-response: empty answers', () => {
  it('records the status alone, 204 or the one the result chose', async () => {
    expect((await recorded('empty')).raw).toEqual({ ...base, status_code: 204 });
    expect((await recorded('accepted')).raw).toEqual({ ...base, status_code: 202 });
  });
});

describe('audit-response: raw answers', () => {
  it('records a raw JSON answer as its parsed data, hashed like any data', async () => {
    const { raw, hashed } = await recorded('json');
    expect(raw).toEqual({ ...base, status_code: 200, data: { keys: ['a', 'b'] } });
    expect(hashed.data).toEqual({ keys: [hash('a'), hash('b')] });
    expect((await recorded('json-array')).raw.data).toEqual(['a', 'b']);
  });

  it("records a raw envelope (an unwrap's answer) by its parts: data, lease id, warnings", async () => {
    const { raw } = await recorded('unwrapped');
    expect(raw).toEqual({
      ...base,
      status_code: 200,
      data: { password: 'p4ss' },
      secret: { lease_id: 'edge/creds/x/1' },
      warnings: ['from the original'],
    });
  });

  it('records any other raw body as its HMAC with its content type and status, never in clear', async () => {
    const pem = await recorded('pem');
    expect(pem.hashed.data).toEqual({
      http_content_type: 'application/x-pem-file',
      http_raw_body: hash('-----BEGIN CERTIFICATE-----\nMIIB\n'),
      http_status_code: 200,
    });
    expect(pem.raw.data.http_raw_body).toBe('-----BEGIN CERTIFICATE-----\nMIIB\n');
    const der = await recorded('der');
    expect(der.r.status).toBe(201);
    expect(der.hashed).toEqual({
      ...base,
      status_code: 201,
      data: { http_content_type: 'application/pkix-cert', http_raw_body: hash('MAMCAQU='), http_status_code: 201 },
    });
  });

  it('records a body labelled JSON that does not parse as a raw body', async () => {
    const { hashed } = await recorded('not-json');
    expect(hashed.data).toEqual({ http_content_type: 'application/json', http_raw_body: hash('{not json'), http_status_code: 200 });
  });
});
