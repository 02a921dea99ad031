/**
 * The OCSP responder (issue 26, item 1) checked by real relying parties over a real HTTP port:
 * `openssl ocsp` by POST and by GET (the request written with -reqout, sent base64 in the path,
 * the answer checked with -respin against the request's nonce), good / revoked (time and reason)
 * / unknown; GnuTLS `ocsptool`; Java's PKIX validator with OCSP revocation checking through the
 * responder named in the certificate's AIA; Go's golang.org/x/crypto/ocsp verifying the
 * signature against the issuer. Bad input (garbage, truncated, huge, deeply nested, unknown
 * issuer and serial, ocsp_disable, an issuer without ocsp-signing) gets an OCSP answer naming it,
 * never a 500.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../../lib/local/http-server';
import { mountPartition } from '../../../lib/mount-partition';
import { pkiEngine } from '../../../lib/pki/engine';
import { revokeSerial } from '../../../lib/pki/revoke';
import { parseSerial } from '../../../lib/pki/serial';
import { goOcsp, type GoOcsp } from '../../helpers/go-ocsp';
import { call, createTestService, type TestService } from '../../helpers/service';

type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const run = promisify(execFile);

let svc: TestService;
let served: Served;
let dir: string;
let go: GoOcsp;
const file = (name: string) => join(dir, name);
const ca = { pem: '', chain: '' };
const leaves: Record<string, { certificate: string; serial: string }> = {};

async function ok(method: string, path: string, body?: unknown): Promise<Data> {
  const r = await call(svc.app, method, `/v1/pki/${path}`, { token: svc.root, body });
  expect([200, 204], `${method} ${path}: ${r.status} ${r.text}`).toContain(r.status);
  return (r.json?.data ?? {}) as Data;
}

/** A command's output (stdout and stderr together) and whether it exited 0; never throws. */
async function tool(cmd: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const r = await run(cmd, args, { timeout: 60_000, maxBuffer: 16 << 20 });
    return { ok: true, out: r.stdout + r.stderr };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${err.stdout ?? ''}${err.stderr ?? ''}${err.message}` };
  }
}

const ocspUrl = () => `${served.url}/v1/pki/ocsp`;

async function issue(name: string): Promise<void> {
  const d = await ok('POST', 'issue/web', { common_name: `${name}.example.com`, ttl: '2h' });
  leaves[name] = { certificate: d.certificate as string, serial: d.serial_number as string };
  writeFileSync(file(`${name}.pem`), d.certificate as string);
}

/** `openssl ocsp` by POST to the responder, the answer verified against the CA (nonce on, as openssl's default). */
const opensslPost = (leaf: string, extra: string[] = []) =>
  tool('openssl', [
    'ocsp',
    '-issuer',
    file('ca.pem'),
    '-cert',
    file(`${leaf}.pem`),
    '-url',
    ocspUrl(),
    '-CAfile',
    file('ca.pem'),
    ...extra,
  ]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ocsp-e2e-'));
  svc = await createTestService({ engines: [pkiEngine] });
  served = await listen(svc.app.fetch);
  go = goOcsp();
  const root = await ok('POST', 'root/generate/internal', {
    common_name: 'OCSP Test Root',
    ttl: '87600h',
    key_type: 'rsa',
    key_bits: 2048,
  });
  ca.pem = root.certificate as string;
  writeFileSync(file('ca.pem'), ca.pem);
  await ok('POST', 'config/urls', { ocsp_servers: ocspUrl() });
  await ok('POST', 'roles/web', { allowed_domains: 'example.com', allow_subdomains: true, max_ttl: '72h' });
  for (const n of ['good', 'revoked', 'reason', 'java-good', 'java-revoked']) await issue(n);
  await ok('POST', 'revoke', { serial_number: leaves.revoked!.serial });
  await ok('POST', 'revoke', { serial_number: leaves['java-revoked']!.serial });
  // A reason code, as ACME's revokeCert records one (the revoke API takes none, as OpenBao's).
  await revokeSerial(svc.deps, mountPartition(svc.deps, 'pki', 'pki'), parseSerial(leaves.reason!.serial), 1);
}, 120_000);

afterAll(async () => {
  await go?.close();
  await served?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('openssl ocsp', () => {
  it('certificates carry the responder in their AIA', async () => {
    const t = await tool('openssl', ['x509', '-in', file('good.pem'), '-noout', '-text']);
    expect(t.out).toContain(`OCSP - URI:${ocspUrl()}`);
  });

  it('POST: good, the response verified and its nonce checked', async () => {
    const r = await opensslPost('good', ['-resp_text']);
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toContain('Response verify OK');
    expect(r.out).toMatch(/good\.pem: good/);
    expect(r.out).toContain('OCSP Nonce');
    expect(r.out).not.toMatch(/WARNING: no nonce in response/);
    expect(r.out).toMatch(/Next Update:/);
  });

  it('POST: revoked, with the revocation time', async () => {
    const r = await opensslPost('revoked');
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toContain('Response verify OK');
    expect(r.out).toMatch(/revoked\.pem: revoked/);
    expect(r.out).toMatch(/Revocation Time: \w+ +\d+ \d\d:\d\d:\d\d \d{4} GMT/);
  });

  it('POST: revoked with its reason', async () => {
    const r = await opensslPost('reason');
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toMatch(/reason\.pem: revoked/);
    expect(r.out).toMatch(/Reason: keyCompromise/);
  });

  it('POST: unknown for a serial the issuer never issued', async () => {
    const r = await tool('openssl', [
      'ocsp',
      '-issuer',
      file('ca.pem'),
      '-serial',
      '0x1234567890abcdef',
      '-url',
      ocspUrl(),
      '-CAfile',
      file('ca.pem'),
    ]);
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toContain('Response verify OK');
    expect(r.out).toMatch(/0x1234567890abcdef: unknown/i);
  });

  it('GET: the request base64 in the path, URL-escaped and not; the nonce echoed and checked', async () => {
    for (const [leaf, status] of [
      ['good', 'good'],
      ['revoked', 'revoked'],
    ] as const) {
      const made = await tool('openssl', [
        'ocsp',
        '-issuer',
        file('ca.pem'),
        '-cert',
        file(`${leaf}.pem`),
        '-nonce',
        '-reqout',
        file('req.der'),
      ]);
      expect(made.ok, made.out).toBe(true);
      const b64 = readFileSync(file('req.der')).toString('base64');
      for (const path of [b64, encodeURIComponent(b64)]) {
        const res = await fetch(`${ocspUrl()}/${path}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/ocsp-response');
        writeFileSync(file('resp.der'), Buffer.from(await res.arrayBuffer()));
        const r = await tool('openssl', [
          'ocsp',
          '-reqin',
          file('req.der'),
          '-respin',
          file('resp.der'),
          '-CAfile',
          file('ca.pem'),
          '-VAfile',
          file('ca.pem'),
          '-resp_text',
        ]);
        expect(r.ok, r.out).toBe(true);
        expect(r.out).toContain('Response verify OK');
        expect(r.out).toContain(`Cert Status: ${status}`);
        expect(r.out).toContain('OCSP Nonce');
      }
    }
  });

  it('a changed nonce fails openssl: the one echoed is the one sent', async () => {
    await tool('openssl', ['ocsp', '-issuer', file('ca.pem'), '-cert', file('good.pem'), '-nonce', '-reqout', file('req1.der')]);
    await tool('openssl', ['ocsp', '-issuer', file('ca.pem'), '-cert', file('good.pem'), '-nonce', '-reqout', file('req2.der')]);
    const res = await fetch(ocspUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      body: readFileSync(file('req1.der')),
    });
    writeFileSync(file('resp1.der'), Buffer.from(await res.arrayBuffer()));
    const wrong = await tool('openssl', [
      'ocsp',
      '-reqin',
      file('req2.der'),
      '-respin',
      file('resp1.der'),
      '-CAfile',
      file('ca.pem'),
      '-VAfile',
      file('ca.pem'),
    ]);
    expect(wrong.out).toMatch(/nonce verify error/i);
    const right = await tool('openssl', [
      'ocsp',
      '-reqin',
      file('req1.der'),
      '-respin',
      file('resp1.der'),
      '-CAfile',
      file('ca.pem'),
      '-VAfile',
      file('ca.pem'),
    ]);
    expect(right.out).not.toMatch(/nonce verify error/i);
    expect(right.out).toContain('Response verify OK');
  });
});

describe('GnuTLS ocsptool', () => {
  const ask = (leaf: string) =>
    tool('ocsptool', [`--ask=${ocspUrl()}`, '--load-issuer', file('ca.pem'), '--load-cert', file(`${leaf}.pem`), '--nonce']);

  it('good: the answer verified against the issuer, the nonce matched', async () => {
    const r = await ask('good');
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toMatch(/Certificate Status: good/);
    expect(r.out).toMatch(/Verifying OCSP Response: Success/);
    expect(r.out).toMatch(/Nonce: [0-9a-f]+/);
    expect(r.out).not.toMatch(/nonce mismatch/i);
  });

  it('revoked, with its time', async () => {
    const r = await ask('reason');
    expect(r.out).toMatch(/Certificate Status: revoked/);
    expect(r.out).toMatch(/Revocation time: \w+ \w+ +\d+ \d\d:\d\d:\d\d UTC \d{4}/);
    expect(r.out).toMatch(/Verifying OCSP Response: Success/);
  });
});

describe("Java's PKIX validator with OCSP revocation checking", () => {
  const java = (leaf: string) =>
    tool('java', [
      '-Djdk.security.certpath.ocspNonce=true',
      join(import.meta.dirname, '../../helpers/PkixOcsp.java'),
      file('ca.pem'),
      file(`${leaf}.pem`),
    ]);

  it('a good certificate validates, asking the responder its AIA names', async () => {
    const r = await java('java-good');
    expect(r.out.trim()).toBe('VALID');
  });

  it('a revoked certificate fails with a revoked reason', async () => {
    const r = await java('java-revoked');
    expect(r.ok).toBe(false);
    expect(r.out).toMatch(/^REVOKED UNSPECIFIED \d{4}-/m);
    const withReason = await java('reason');
    expect(withReason.out).toMatch(/^REVOKED KEY_COMPROMISE /m);
  });
});

describe('golang.org/x/crypto/ocsp', () => {
  const post = async (request: string) => {
    const res = await fetch(ocspUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      body: Buffer.from(request, 'base64'),
    });
    return { status: res.status, der: Buffer.from(await res.arrayBuffer()) };
  };

  it.each(['sha1', 'sha256'] as const)(
    'a request hashed with %s: good, revoked, the signature verified against the issuer',
    async (hash) => {
      for (const [leaf, status, reason] of [
        ['good', 'good', 0],
        ['revoked', 'revoked', 0],
        ['reason', 'revoked', 1],
      ] as const) {
        const req = await go.request(leaves[leaf]!.certificate, ca.pem, hash);
        expect(req.ok, req.error).toBe(true);
        const r = await post(req.request!);
        expect(r.status).toBe(200);
        const a = await go.response(r.der, ca.pem);
        expect(a.ok, a.error).toBe(true);
        expect(a.status).toBe(status);
        expect(a.serial).toBe(leaves[leaf]!.serial.replace(/:/g, '').replace(/^0+/, ''));
        expect(a.reason).toBe(reason);
        expect(a.next_update).toBeDefined();
      }
    },
  );

  it('an answer signed by another issuer fails verification', async () => {
    const other = await ok('POST', 'root/generate/internal', {
      common_name: 'Other Root',
      issuer_name: 'other',
      ttl: '8760h',
      key_type: 'ec',
    });
    const req = await go.request(leaves.good!.certificate, ca.pem);
    const r = await post(req.request!);
    const a = await go.response(r.der, other.certificate as string);
    expect(a.ok).toBe(false);
    expect(a.error).toMatch(/signature|verification/i);
  });
});

describe('bad input: an OCSP answer naming the problem, never a 500', () => {
  const MALFORMED = Buffer.from('30030a0101', 'hex');
  const UNAUTHORIZED = Buffer.from('30030a0106', 'hex');
  const postRaw = async (body: Uint8Array) => {
    const res = await svc.app.request('http://localhost/v1/pki/ocsp', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/ocsp-request' },
    });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
  };
  const getRaw = async (path: string) => {
    const res = await svc.app.request(`http://localhost/v1/pki/ocsp/${path}`);
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
  };
  const goodRequest = async () => Buffer.from((await go.request(leaves.good!.certificate, ca.pem)).request!, 'base64');
  const deep = (() => {
    let d = Buffer.from('0500', 'hex');
    for (let i = 0; i < 1000; i++) {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(d.length);
      d = Buffer.concat([Buffer.from([0x30, 0x84]), len, d]);
    }
    return d;
  })();

  it.each([
    ['garbage', Buffer.from('this is a bad request')],
    ['empty', Buffer.alloc(0)],
    ['deep nesting', deep],
    ['a SEQUENCE claiming more than it holds', Buffer.from('3084ffffffff3000', 'hex')],
    ['indefinite length', Buffer.from('3080300000', 'hex')],
  ])('POST %s: malformedRequest (400)', async (_, body) => {
    const r = await postRaw(body);
    expect(r.status).toBe(400);
    expect(r.type).toBe('application/ocsp-response');
    expect(r.body.equals(MALFORMED)).toBe(true);
  });

  it('POST truncated, or with trailing data: malformedRequest', async () => {
    const req = await goodRequest();
    for (const cut of [1, 2, 10, req.length - 1]) expect((await postRaw(req.subarray(0, cut))).status).toBe(400);
    expect((await postRaw(Buffer.concat([req, Buffer.from([0])]))).status).toBe(400);
  });

  it('POST of 1 MB: refused with a clear 4xx; 8 KB: malformedRequest', async () => {
    const big = await postRaw(Buffer.alloc(1 << 20, 0x30));
    expect([400, 413]).toContain(big.status);
    const r = await postRaw(Buffer.concat([Buffer.from([0x30, 0x82, 0x20, 0x00]), Buffer.alloc(0x2000)]));
    expect(r.status).toBe(400);
    expect(r.body.equals(MALFORMED)).toBe(true);
  });

  it.each([
    ['not base64', 'not*base64!'],
    ['base64 of garbage', Buffer.from('garbage garbage').toString('base64')],
    ['a huge path', 'A'.repeat(20_000)],
  ])('GET %s: malformedRequest (400)', async (_, path) => {
    const r = await getRaw(path);
    expect(r.status).toBe(400);
    expect(r.body.equals(MALFORMED)).toBe(true);
  });

  it('GET with a broken escape: a 400 naming it (the edge decodes the path)', async () => {
    const r = await getRaw('%ZZ%ZZ');
    expect(r.status).toBe(400);
  });

  it('GET with base64 holding "/" and "+", sent raw, escaped, or URL-safe: answered', async () => {
    // A request is fixed by its certificate (no nonce), so each try asks about a new leaf (a new
    // random serial): about 1 in 25 requests has neither character.
    for (let i = 0; i < 40; i++) {
      await issue(`slash-${i}`);
      const request = await go.request(leaves[`slash-${i}`]!.certificate, ca.pem);
      const b64 = Buffer.from(request.request!, 'base64').toString('base64');
      if (!/[/+]/.test(b64)) continue;
      for (const path of [b64, encodeURIComponent(b64), b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')]) {
        const r = await getRaw(path);
        expect(r.status, path).toBe(200);
        expect((await go.response(r.body, ca.pem)).status).toBe('good');
      }
      return;
    }
    throw new Error('no request with "/" or "+" in 40 tries');
  });

  it('an unknown issuer: unknown, signed by the default issuer; an unknown serial: unknown', async () => {
    const foreign = await tool('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      file('f.key'),
      '-subj',
      '/CN=Foreign',
      '-days',
      '1',
      '-out',
      file('foreign.pem'),
    ]);
    expect(foreign.ok, foreign.out).toBe(true);
    const foreignPem = readFileSync(file('foreign.pem'), 'utf8');
    const req = await go.request(leaves.good!.certificate, foreignPem);
    const r = await postRaw(Buffer.from(req.request!, 'base64'));
    expect(r.status).toBe(200);
    const a = await go.response(r.body, ca.pem);
    expect(a.ok, a.error).toBe(true);
    expect(a.status).toBe('unknown');
    const serial = await tool('openssl', ['ocsp', '-issuer', file('ca.pem'), '-serial', '0x01', '-no_nonce', '-reqout', file('u.der')]);
    expect(serial.ok, serial.out).toBe(true);
    const u = await go.response((await postRaw(readFileSync(file('u.der')))).body, ca.pem);
    expect(u.status).toBe('unknown');
  });

  it('an issuer without the ocsp-signing usage: unauthorized (401); restored: answered', async () => {
    const issuer = (await ok('GET', 'issuer/default')) as Data;
    await ok('PATCH', 'issuer/default', { usage: 'read-only,issuing-certificates,crl-signing' });
    try {
      const r = await postRaw(await goodRequest());
      expect(r.status).toBe(401);
      expect(r.body.equals(UNAUTHORIZED)).toBe(true);
    } finally {
      await ok('PATCH', 'issuer/default', { usage: issuer.usage });
    }
    expect((await postRaw(await goodRequest())).status).toBe(200);
  });

  it('config/crl ocsp_disable: unauthorized (401) by POST and GET; ocsp_expiry 0: no nextUpdate', async () => {
    await ok('POST', 'config/crl', { ocsp_disable: true });
    try {
      const req = await goodRequest();
      for (const r of [await postRaw(req), await getRaw(encodeURIComponent(req.toString('base64')))]) {
        expect(r.status).toBe(401);
        expect(r.body.equals(UNAUTHORIZED)).toBe(true);
      }
    } finally {
      await ok('POST', 'config/crl', { ocsp_disable: false, ocsp_expiry: 0 });
    }
    try {
      const a = await go.response((await postRaw(await goodRequest())).body, ca.pem);
      expect(a.status).toBe('good');
      expect(a.next_update).toBeUndefined();
    } finally {
      await ok('POST', 'config/crl', { ocsp_expiry: '1h' });
    }
  });

  it('no token needed, and none of these answers is a 500', async () => {
    const r = await fetch(ocspUrl(), { method: 'POST', body: await goodRequest() });
    expect(r.status).toBe(200);
  });
});
