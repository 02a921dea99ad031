/**
 * Delta CRL freshness across instances (issue 26, item 3, the CRL part): two app instances (as
 * two Lambda instances, each with its own caches and rebuild coalescing) on one
 * DynamoDB-compatible store (dynalite). With config/crl enable_delta, a revocation made through
 * either is on the very next delta CRL either serves. The bound is 0: the revocation goes on the
 * delta list and the delta is rebuilt and stored before the revoke is answered, the CRL reads are
 * consistent reads with no cache, and a delta is only ever replaced by one numbered later, which
 * read the list later (lib/pki/crl-delta.ts). Concurrent revocations through both instances all
 * end on both instances' delta. openssl -use_deltas is the relying party.
 */
import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { openssl, text, withFiles } from '../../helpers/openssl';
import { instancesOnOneStore } from '../../helpers/instances';
import { call } from '../../helpers/service';

type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let apps: Hono[] = [];
let root: string;
let caPem: string;

async function ok(app: Hono, method: string, path: string, body?: unknown): Promise<Data> {
  const r = await call(app, method, `/v1/pki/${path}`, { token: root, body });
  expect([200, 204], `${method} ${path}: ${r.status} ${r.text}`).toContain(r.status);
  return (r.json?.data ?? {}) as Data;
}
async function pem(app: Hono, path: string): Promise<string> {
  const r = await call(app, 'GET', `/v1/pki/${path}`);
  expect(r.status, r.text).toBe(200);
  return r.text;
}
const serialsOf = (crl: string) => [...text(crl, 'crl').matchAll(/Serial Number: ([0-9A-F]+)/g)].map((m) => m[1]!.toLowerCase());
const hex = (colon: string) => colon.replaceAll(':', '').replace(/^0+/, '');
const issue = async (app: Hono) =>
  (await ok(app, 'POST', 'issue/web', { common_name: 'f.test' })) as { certificate: string; serial_number: string };

function verifyWithDeltas(leaf: string, crls: string[]) {
  return withFiles({ 'leaf.pem': leaf, 'ca.pem': caPem, 'crls.pem': crls.join('\n') }, (p) =>
    openssl(['verify', '-crl_check', '-use_deltas', '-CAfile', p('ca.pem'), '-CRLfile', p('crls.pem'), p('leaf.pem')]),
  );
}

beforeAll(async () => {
  ({ apps, root } = await instancesOnOneStore([pkiEngine]));
  const [a] = apps as [Hono, Hono];
  caPem = (await ok(a, 'POST', 'root/generate/internal', { common_name: 'Fresh Root', key_type: 'ec', ttl: '8760h' })).certificate;
  await ok(a, 'POST', 'roles/web', { allow_any_name: true, key_type: 'ec', ttl: '24h' });
  // openssl uses a delta only when the certificate or the base names where deltas are (Freshest CRL).
  await ok(a, 'POST', 'config/urls', { delta_crl_distribution_points: ['http://ca.test/v1/pki/crl/delta'] });
  await ok(a, 'POST', 'config/crl', { auto_rebuild: true, enable_delta: true });
}, 60_000);

describe('delta CRL freshness across two instances on one store', () => {
  it('a revocation through either instance is on the next delta the other serves (bound: 0 after the answer)', async () => {
    const [a, b] = apps as [Hono, Hono];
    for (let i = 0; i < 6; i++) {
      const [through, other] = i % 2 ? [b, a] : [a, b];
      const cert = await issue(through);
      await ok(through, 'POST', 'revoke', { serial_number: cert.serial_number });
      const delta = await pem(other, 'crl/delta/pem');
      expect(serialsOf(delta)).toContain(hex(cert.serial_number));
      const complete = await pem(other, 'crl/pem');
      expect(serialsOf(complete)).not.toContain(hex(cert.serial_number)); // auto_rebuild: only the delta has it yet
      const v = verifyWithDeltas(cert.certificate, [complete, delta]);
      expect(v.ok).toBe(false);
      expect(v.out).toMatch(/certificate revoked/);
    }
  });

  it('concurrent revocations through both instances all end on both instances’ delta', async () => {
    const [a, b] = apps as [Hono, Hono];
    const certs = await Promise.all(Array.from({ length: 16 }, (_, i) => issue(i % 2 ? a : b)));
    await Promise.all(certs.map((c, i) => ok(i % 2 ? b : a, 'POST', 'revoke', { serial_number: c.serial_number })));
    for (const app of [a, b]) {
      const listed = serialsOf(await pem(app, 'crl/delta/pem'));
      for (const c of certs) expect(listed).toContain(hex(c.serial_number));
    }
  });

  it('a complete CRL rebuilt through one instance is the base of the delta the other serves', async () => {
    const [a, b] = apps as [Hono, Hono];
    await ok(a, 'GET', 'crl/rotate');
    const complete = text(await pem(b, 'crl/pem'), 'crl');
    const delta = text(await pem(b, 'crl/delta/pem'), 'crl');
    const number = /X509v3 CRL Number:\s*\n\s*(\d+)/.exec(complete)?.[1];
    expect(/Delta CRL Indicator: critical\s*\n\s*(\d+)/.exec(delta)?.[1]).toBe(number);
  });
});
