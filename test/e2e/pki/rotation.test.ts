/**
 * OpenBao's root rotation procedure end to end in one mount (website/content/docs/secrets/pki/
 * rotation-primitives.mdx: "Suggested root rotation procedure" with its cross-signed primitive):
 * an old root and a role issuing under it; the new root in the same mount (root/rotate, issuer
 * "next"); a CSR for the new root's key (intermediate/cross-sign, key_ref) signed by the old root
 * (issuer/<old>/sign-intermediate, use_csr_values) and imported (intermediate/set-signed); the
 * manual chains the doc sets; a leaf of the new issuer trusted by a store holding only the old
 * root (the leaf and the cross-signed certificate) and by one holding only the new root, checked
 * by openssl and by Go's crypto/x509; root/replace switching the default; the old issuer still
 * serving its CRL, and its leaves' revocations going there; and root/rotate with
 * default_follows_latest_issuer making the new root the default at once.
 *
 * The steps run in order and share what they made, as an operator's would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { goX509, type GoX509 } from '../../helpers/go-x509';
import { openssl, verifyChain, verifyCrl, withFiles } from '../../helpers/openssl';
import { call, createTestService, type TestService } from '../../helpers/service';

type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let svc: TestService;
let go: GoX509;

const request = (method: string, path: string, body?: unknown) => call(svc.app, method, `/v1/pki/${path}`, { token: svc.root, body });
async function ok(method: string, path: string, body?: unknown): Promise<Data> {
  const r = await request(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(200);
  return r.json!.data as Data;
}
/** An unauthenticated read, as a relying party makes it. */
async function fetched(path: string): Promise<string> {
  const r = await call(svc.app, 'GET', `/v1/pki/${path}`);
  expect(r.status, `GET ${path}: ${r.text}`).toBe(200);
  return r.text;
}

const trim = (pem: string) => pem.trim();
/** A serial as Go prints it: lower-case hex, no separators, no leading zeros. */
const goSerial = (colon: string) => colon.replace(/:/g, '').toLowerCase().replace(/^0+/, '');
const publicKeyOf = (pem: string, kind: 'x509' | 'req') =>
  withFiles({ 'x.pem': pem }, (p) => openssl([kind, '-in', p('x.pem'), '-noout', '-pubkey']).out);
const subjectAndIssuer = (pem: string) =>
  withFiles({ 'x.pem': pem }, (p) => openssl(['x509', '-in', p('x.pem'), '-noout', '-subject', '-issuer', '-nameopt', 'RFC2253']).out);

/** What the procedure made. */
const old = { id: '', pem: '', keyId: '' };
const next = { id: '', pem: '', keyId: '' };
const cross = { id: '', pem: '' };
let oldLeaf = { pem: '', serial: '' };
let newLeaf = { pem: '', serial: '', chain: [] as string[] };

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  go = goX509();
});

afterAll(async () => {
  await go?.close();
});

describe("OpenBao's root rotation, in one mount", () => {
  it('the old root is the default; a role issues under it', async () => {
    const root = await ok('POST', 'root/generate/internal', {
      common_name: 'Example Root CA 2024',
      issuer_name: 'old-root',
      key_type: 'ec',
      ttl: '87600h',
    });
    Object.assign(old, { id: root.issuer_id, pem: root.certificate, keyId: root.key_id });
    expect(await ok('GET', 'config/issuers')).toEqual({ default: old.id, default_follows_latest_issuer: false });
    await ok('POST', 'roles/web', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' });
    const leaf = await ok('POST', 'issue/web', { common_name: 'before.example.com' });
    oldLeaf = { pem: leaf.certificate, serial: leaf.serial_number };
    expect(verifyChain(oldLeaf.pem, old.pem)).toMatchObject({ ok: true });
    expect(await go.verify(oldLeaf.pem, [old.pem])).toMatchObject({ ok: true, chain_length: 2 });
  });

  it('root/rotate/internal: the new root in the same mount, issuer "next" with a key of its own; the default stays', async () => {
    const root = await ok('POST', 'root/rotate/internal', { common_name: 'Example Root CA 2026', key_type: 'ec', ttl: '87600h' });
    expect(root.issuer_name).toBe('next');
    Object.assign(next, { id: root.issuer_id, pem: root.certificate, keyId: root.key_id });
    expect(next.keyId).not.toBe(old.keyId);
    expect((await ok('GET', 'config/issuers')).default).toBe(old.id);
    expect(trim(await fetched('ca/pem'))).toBe(trim(old.pem));
    expect((await ok('LIST', 'issuers')).key_info).toEqual({
      [old.id]: { issuer_name: 'old-root', is_default: true },
      [next.id]: { issuer_name: 'next', is_default: false },
    });
  });

  it("cross-sign: a CSR for next's key (intermediate/cross-sign), signed by the old root with the CSR's values, imported with intermediate/set-signed", async () => {
    const csr = await ok('POST', 'intermediate/cross-sign', { common_name: 'Example Root CA 2026', key_ref: next.keyId, key_type: 'ec' });
    expect(csr.key_id).toBe(next.keyId);
    expect(publicKeyOf(csr.csr, 'req')).toBe(publicKeyOf(next.pem, 'x509'));
    const signed = await ok('POST', `issuer/old-root/sign-intermediate`, { csr: csr.csr, use_csr_values: true, ttl: '43800h' });
    cross.pem = signed.certificate;
    expect(subjectAndIssuer(cross.pem)).toBe('subject=CN=Example Root CA 2026\nissuer=CN=Example Root CA 2024\n');
    expect(publicKeyOf(cross.pem, 'x509')).toBe(publicKeyOf(next.pem, 'x509'));
    expect(verifyChain(cross.pem, old.pem)).toMatchObject({ ok: true });
    const set = await ok('POST', 'intermediate/set-signed', { certificate: cross.pem });
    cross.id = set.imported_issuers[0];
    expect(set).toMatchObject({ imported_issuers: [cross.id], imported_keys: null, mapping: { [cross.id]: next.keyId } });
    await ok('PATCH', `issuer/${cross.id}`, { issuer_name: 'next-cross' });
    const read = await ok('GET', 'issuer/next-cross');
    expect(read).toMatchObject({ key_id: next.keyId, issuer_name: 'next-cross' });
    // Automatic chain building: the cross-signed copy chains to the old root.
    expect(read.ca_chain.map(trim)).toEqual([trim(cross.pem), trim(old.pem)]);
    expect((await ok('GET', 'config/issuers')).default).toBe(old.id);
  });

  // The doc's own commands (`bao patch pki/issuer/intA manual_chain=self,rootA,intB,rootB`) start
  // the chain with "self", which OpenBao takes, in the first entry only, for the issuer itself.
  it('manual_chain takes "self" as its first entry, as in the doc (and only there)', async () => {
    const r = await request('PATCH', 'issuer/next', { manual_chain: 'self,next-cross,old-root' });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.data.manual_chain).toEqual([next.id, cross.id, old.id]);
    const later = await request('PATCH', 'issuer/next', { manual_chain: 'next,self' });
    expect(later.status).toBe(404);
    expect(later.text).toMatch(/self/);
  });

  it('manual_chain on both copies, as the doc sets it: next serves its cross-signed copy and the old root, and the copy serves next', async () => {
    const n = await ok('PATCH', 'issuer/next', { manual_chain: 'next,next-cross,old-root' });
    expect(n.manual_chain).toEqual([next.id, cross.id, old.id]);
    expect(n.ca_chain.map(trim)).toEqual([trim(next.pem), trim(cross.pem), trim(old.pem)]);
    const c = await ok('PATCH', 'issuer/next-cross', { manual_chain: [cross.id, 'old-root', 'next'] });
    expect(c.ca_chain.map(trim)).toEqual([trim(cross.pem), trim(old.pem), trim(next.pem)]);
  });

  it('a leaf of the new issuer validates with a trust store of only the old root (leaf + cross-signed certificate) and with one of only the new root: openssl', async () => {
    const leaf = await ok('POST', 'issuer/next/issue/web', { common_name: 'after.example.com' });
    newLeaf = { pem: leaf.certificate, serial: leaf.serial_number, chain: leaf.ca_chain };
    expect(newLeaf.chain.map(trim)).toEqual([trim(next.pem), trim(cross.pem), trim(old.pem)]);
    expect(verifyChain(newLeaf.pem, old.pem, [cross.pem])).toMatchObject({ ok: true });
    expect(verifyChain(newLeaf.pem, next.pem)).toMatchObject({ ok: true });
    // As served by a server configured with certificate + ca_chain, to a client trusting the new
    // root. (openssl given the whole ca_chain and only the old root stops at the first untrusted
    // self-signed certificate, next, which the doc's manual_chain puts first: "self-signed
    // certificate in certificate chain"; Go finds the path through the cross-signed copy, below.)
    expect(verifyChain(newLeaf.pem, next.pem, newLeaf.chain)).toMatchObject({ ok: true });
    // The control: without the cross-signed certificate the old root alone does not reach it.
    expect(verifyChain(newLeaf.pem, old.pem).ok).toBe(false);
  });

  it("the same, by Go's crypto/x509", async () => {
    expect(await go.verify(newLeaf.pem, [old.pem], [cross.pem])).toMatchObject({ ok: true, chain_length: 3 });
    expect(await go.verify(newLeaf.pem, [next.pem])).toMatchObject({ ok: true, chain_length: 2 });
    expect(await go.verify(newLeaf.pem, [old.pem], newLeaf.chain)).toMatchObject({ ok: true });
    expect(await go.verify(newLeaf.pem, [next.pem], newLeaf.chain)).toMatchObject({ ok: true, chain_length: 2 });
    expect((await go.verify(newLeaf.pem, [old.pem])).ok).toBe(false);
    // A leaf the old root issued directly stays valid under the old root.
    expect(await go.verify(oldLeaf.pem, [old.pem])).toMatchObject({ ok: true });
  });

  it('root/replace makes next the default: ca/pem, ca_chain and issue/<role> switch to the new root', async () => {
    expect(await ok('POST', 'root/replace', {})).toEqual({ default: next.id, default_follows_latest_issuer: false });
    expect((await ok('LIST', 'issuers')).key_info[next.id]).toEqual({ issuer_name: 'next', is_default: true });
    expect(trim(await fetched('ca/pem'))).toBe(trim(next.pem));
    const leaf = await ok('POST', 'issue/web', { common_name: 'default.example.com' });
    expect(trim(leaf.issuing_ca)).toBe(trim(next.pem));
    expect(await go.verify(leaf.certificate, [next.pem])).toMatchObject({ ok: true, chain_length: 2 });
    expect(await go.verify(leaf.certificate, [old.pem], leaf.ca_chain)).toMatchObject({ ok: true, chain_length: 3 });
  });

  it('the old issuer still serves its CRL, signed by the old root (openssl, Go)', async () => {
    const crl = await fetched('issuer/old-root/crl/pem');
    expect(verifyCrl(crl, old.pem)).toMatchObject({ ok: true });
    expect(await go.crl(crl, old.pem)).toMatchObject({ ok: true });
    const json = await ok('GET', `issuer/${old.id}/crl`);
    expect(verifyCrl(json.crl, old.pem)).toMatchObject({ ok: true });
    // The mount's CRL is now the new default's.
    expect(await go.crl(await fetched('crl/pem'), next.pem)).toMatchObject({ ok: true });
  });

  it("revoking a leaf of the old issuer puts it on the old issuer's CRL, not on the new one's; a leaf of next goes on next's", async () => {
    expect((await ok('POST', 'revoke', { serial_number: oldLeaf.serial })).revocation_time).toBeGreaterThan(0);
    expect((await ok('POST', 'revoke', { serial_number: newLeaf.serial })).revocation_time).toBeGreaterThan(0);
    const oldCrl = await fetched('issuer/old-root/crl/pem');
    const newCrl = await fetched('issuer/next/crl/pem');
    const onOld = await go.crl(oldCrl, old.pem);
    const onNew = await go.crl(newCrl, next.pem);
    expect(onOld).toMatchObject({ ok: true, revoked: [goSerial(oldLeaf.serial)] });
    expect(onNew).toMatchObject({ ok: true, revoked: [goSerial(newLeaf.serial)] });
    expect(trim(await fetched('crl/pem'))).toBe(trim(newCrl));
    expect(verifyChain(oldLeaf.pem, old.pem, [], [oldCrl]).out).toMatch(/certificate revoked/);
    expect(verifyChain(newLeaf.pem, next.pem, [], [newCrl]).out).toMatch(/certificate revoked/);
  });

  // next and its cross-signed copy have one key and one subject, so a leaf of either names the same
  // issuer and key identifier and a relying party checks it against one CRL: as OpenBao builds one
  // CRL per key and subject (crl_util.go keySubjectIssuersMap), each of their CRLs lists the
  // revocations of both.
  it("a revoked leaf of the cross-signed copy (next's key and subject) is on next's CRL and the copy's, as OpenBao shares it", async () => {
    const leaf = await ok('POST', 'issuer/next-cross/issue/web', { common_name: 'copy.example.com' });
    await ok('POST', 'revoke', { serial_number: leaf.serial_number });
    const crl = await go.crl(await fetched('crl/pem'), next.pem);
    expect(crl).toMatchObject({ ok: true });
    expect(crl.revoked).toContain(goSerial(leaf.serial_number));
    expect(crl.revoked).toContain(goSerial(newLeaf.serial));
    const copy = await go.crl(await fetched('issuer/next-cross/crl/pem'), next.pem);
    expect(copy.revoked).toEqual(crl.revoked);
    // The old root's CRL (another key and subject) lists neither.
    const onOld = await go.crl(await fetched('issuer/old-root/crl/pem'), old.pem);
    expect(onOld.revoked).not.toContain(goSerial(leaf.serial_number));
  });

  it('with default_follows_latest_issuer, root/rotate makes the new root the default at once (the name next taken: refused)', async () => {
    const taken = await request('POST', 'root/rotate/internal', { common_name: 'Example Root CA 2028', key_type: 'ec' });
    expect(taken.status).toBe(400);
    expect(taken.json!.errors).toEqual(['issuer name already in use: next']);
    expect(await ok('POST', 'config/issuers', { default_follows_latest_issuer: true })).toEqual({
      default: next.id,
      default_follows_latest_issuer: true,
    });
    const root = await ok('POST', 'root/rotate/internal', {
      common_name: 'Example Root CA 2028',
      issuer_name: 'next-2028',
      key_type: 'ec',
    });
    expect(await ok('GET', 'config/issuers')).toEqual({ default: root.issuer_id, default_follows_latest_issuer: true });
    expect(trim(await fetched('ca/pem'))).toBe(trim(root.certificate));
    const leaf = await ok('POST', 'issue/web', { common_name: 'latest.example.com' });
    expect(await go.verify(leaf.certificate, [root.certificate])).toMatchObject({ ok: true, chain_length: 2 });
    expect(verifyChain(leaf.certificate, root.certificate)).toMatchObject({ ok: true });
    // The older issuers stay, and keep serving their CRLs.
    expect(Object.keys((await ok('LIST', 'issuers')).key_info)).toHaveLength(4);
    expect(verifyCrl(await fetched('issuer/old-root/crl/pem'), old.pem)).toMatchObject({ ok: true });
  });
});
