/**
 * OCSP freshness across instances (issue 26, item 3): two app instances (as two Lambda
 * instances) on one DynamoDB-compatible store (dynalite), each with its own caches. A revocation
 * made through one is in the very next OCSP answer of the other: the bound is 0, as the
 * responder reads the revocation record with a consistent read on every request and caches only
 * what cannot say `good` for a revoked certificate (a pre-signed answer is reused only while the
 * status just read is the one it says).
 */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { goOcsp, type GoOcsp } from '../../helpers/go-ocsp';
import { instancesOnOneStore } from '../../helpers/instances';
import { call } from '../../helpers/service';

type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let apps: Hono[] = [];
let root: string;
let caPem: string;
let go: GoOcsp;

async function ok(app: Hono, method: string, path: string, body?: unknown): Promise<Data> {
  const r = await call(app, method, `/v1/pki/${path}`, { token: root, body });
  expect([200, 204], `${method} ${path}: ${r.status} ${r.text}`).toContain(r.status);
  return (r.json?.data ?? {}) as Data;
}

/** The status `app` answers for `cert`, the answer verified by Go's x/crypto/ocsp against the CA. */
async function status(app: Hono, cert: string, nonce: boolean): Promise<string> {
  let der: Buffer = Buffer.from((await go.request(cert, caPem)).request!, 'base64');
  if (nonce) der = withNonce(der);
  const res = await app.request('http://localhost/v1/pki/ocsp', { method: 'POST', body: der });
  expect(res.status).toBe(200);
  const a = await go.response(Buffer.from(await res.arrayBuffer()), caPem);
  expect(a.ok, a.error).toBe(true);
  return a.status!;
}

/** Go's request (no extensions) with a random nonce extension added to its TBSRequest. */
function withNonce(req: Buffer): Buffer {
  // OCSPRequest = 30 len (TBSRequest = 30 len (requestList)); both lengths short or 0x81 forms for small requests.
  const header = (b: Buffer, off: number) => (b[off + 1]! < 0x80 ? 2 : 2 + (b[off + 1]! & 0x7f));
  const tbsOff = header(req, 0);
  const tbs = req.subarray(tbsOff);
  const tbsBody = tbs.subarray(header(tbs, 0));
  const nonce = Buffer.concat([Buffer.from('04120410', 'hex'), randomBytes(16)]);
  const ext = Buffer.concat([Buffer.from('300b06092b0601050507300102', 'hex').subarray(2), nonce]);
  const extSeq = Buffer.concat([Buffer.from([0x30, ext.length]), ext]);
  const exts = Buffer.concat([Buffer.from([0xa2, extSeq.length + 2, 0x30, extSeq.length]), extSeq]);
  const body = Buffer.concat([tbsBody, exts]);
  const seq = (b: Buffer) => Buffer.concat([Buffer.from(b.length < 0x80 ? [0x30, b.length] : [0x30, 0x81, b.length]), b]);
  return seq(seq(body));
}

beforeAll(async () => {
  ({ apps, root } = await instancesOnOneStore([pkiEngine]));
  go = goOcsp();
  caPem = (await ok(apps[0]!, 'POST', 'root/generate/internal', { common_name: 'Freshness Root', ttl: '8760h', key_type: 'ec' }))
    .certificate as string;
  await ok(apps[0]!, 'POST', 'roles/web', { allowed_domains: 'example.com', allow_subdomains: true, max_ttl: '2h' });
}, 60_000);

afterAll(async () => {
  await go?.close();
});

describe('a revocation through one instance, the OCSP answer of the other', () => {
  it.each([
    ['without a nonce (pre-signed answers in play)', false],
    ['with a nonce (signed per request)', true],
  ])('%s: revoked in the very next answer (bound 0), either way round', async (_, nonce) => {
    for (const [revoker, responder] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const leaf = (await ok(apps[revoker]!, 'POST', 'issue/web', { common_name: 'fresh.example.com', ttl: '1h' })) as Data;
      // Both instances answered `good` (their caches are warm: the certificate's issuer, a pre-signed answer).
      for (let i = 0; i < 3; i++) for (const app of apps) expect(await status(app, leaf.certificate as string, nonce)).toBe('good');
      await ok(apps[revoker]!, 'POST', 'revoke', { serial_number: leaf.serial_number });
      expect(await status(apps[responder]!, leaf.certificate as string, nonce)).toBe('revoked');
      expect(await status(apps[revoker]!, leaf.certificate as string, nonce)).toBe('revoked');
    }
  });
});
