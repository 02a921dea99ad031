/** CA lifecycle through the app: generation rules, formats, chains, imports, self-issued, secrets at rest. */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { goX509, type GoX509 } from '../../helpers/go-x509';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';
import { makeCsr, openssl, selfSignedCert, text, verifyChain, withFiles } from '../../helpers/openssl';

let svc: TestService;
let go: GoX509;
const post = (path: string, body: unknown, token = svc.root) => call(svc.app, 'POST', `/v1/${path}`, { token, body });
const secrets: string[] = [];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sorted = (ids: string[]) => [...ids].sort();

/** A mount's issuers as LIST issuers answers them: id -> whether it is the default (none: {}). */
async function issuersOf(mount: string): Promise<Record<string, boolean>> {
  const r = await call(svc.app, 'LIST', `/v1/${mount}/issuers`, { token: svc.root });
  if (r.status === 404) return {};
  expect(r.status, r.text).toBe(200);
  const info = r.json!.data.key_info as Record<string, { is_default: boolean }>;
  return Object.fromEntries(Object.entries(info).map(([id, i]) => [id, i.is_default]));
}

/** A mount's key ids as LIST keys answers them, sorted (none: []). */
async function keysOf(mount: string): Promise<string[]> {
  const r = await call(svc.app, 'LIST', `/v1/${mount}/keys`, { token: svc.root });
  if (r.status === 404) return [];
  expect(r.status, r.text).toBe(200);
  return sorted(r.json!.data.keys as string[]);
}

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  go = goX509();
});

afterAll(async () => {
  await go.close();
});

describe('root generation', () => {
  it('exported returns the key; pem_bundle and der formats; a second root is a second issuer, the first stays the default; DELETE root removes both', async () => {
    const r = await post('pki/root/generate/exported', {
      common_name: 'Root A',
      ttl: '8760h',
      key_type: 'ed25519',
      max_path_length: 2,
      permitted_dns_domains: 'example.com,.example.org',
      format: 'pem_bundle',
      private_key_format: 'pkcs8',
    });
    expect(r.status, r.text).toBe(200);
    const d = r.json!.data;
    secrets.push(d.private_key);
    expect(d.private_key).toMatch(/BEGIN PRIVATE KEY/);
    expect(d.certificate).toMatch(/BEGIN CERTIFICATE[\s\S]*BEGIN PRIVATE KEY/);
    const cert = d.certificate.split(/(?<=-----END CERTIFICATE-----)/)[0];
    expect(verifyChain(cert, cert).ok).toBe(true);
    expect(await go.verify(cert, [cert])).toMatchObject({ ok: true, permitted_dns_domains: ['example.com', '.example.org'] });
    const t = text(cert);
    expect(t).toMatch(/CA:TRUE, pathlen:2/);
    expect(t).toMatch(/Permitted:\s+DNS:example\.com\s+DNS:\.example\.org/);
    expect(t).toMatch(/Certificate Sign, CRL Sign/);
    expect(d).toMatchObject({ issuer_name: '', key_name: '' });
    expect(d.issuer_id).toMatch(UUID);
    expect(d.key_id).toMatch(UUID);
    // A second root is a second issuer with its own key; the mount's default (Root A) stays the default.
    const again = await post('pki/root/generate/internal', { common_name: 'Root B' });
    expect(again.status, again.text).toBe(200);
    const b = again.json!.data;
    expect(b).toMatchObject({ issuer_name: '', key_name: '' });
    expect(b.issuer_id).toMatch(UUID);
    expect(b.issuer_id).not.toBe(d.issuer_id);
    expect(b.key_id).toMatch(UUID);
    expect(b.key_id).not.toBe(d.key_id);
    expect(text(b.certificate)).toMatch(/Subject: CN ?= ?Root B/);
    expect((await call(svc.app, 'GET', '/v1/pki/ca/pem')).text.trim()).toBe(cert.trim());
    expect(await issuersOf('pki')).toEqual({ [d.issuer_id]: true, [b.issuer_id]: false });
    expect(await keysOf('pki')).toEqual(sorted([d.key_id, b.key_id]));
    // DELETE root needs sudo.
    const plain = await tokenWith(svc, ['pki-admin']);
    await call(svc.app, 'PUT', '/v1/sys/policy/pki-admin', {
      token: svc.root,
      body: { policy: JSON.stringify({ path: { 'pki/*': { capabilities: ['create', 'read', 'update', 'delete', 'list'] } } }) },
    });
    expect((await call(svc.app, 'DELETE', '/v1/pki/root', { token: plain })).status).toBe(403);
    expect((await call(svc.app, 'DELETE', '/v1/pki/root', { token: svc.root })).status).toBe(204);
    // Both issuers and both keys are gone: no CA to serve, nothing can be signed; the certificates stay on record.
    expect(await issuersOf('pki')).toEqual({});
    expect(await keysOf('pki')).toEqual([]);
    expect((await call(svc.app, 'GET', '/v1/pki/ca/pem')).status).toBe(404);
    await post('pki/roles/r', { allow_any_name: true, key_type: 'ec' });
    expect((await post('pki/issue/r', { common_name: 'x' })).json!.errors[0]).toMatch(/no default issuer/);
    const kept = await call(svc.app, 'GET', `/v1/pki/cert/${d.serial_number}`);
    expect(kept.json!.data.certificate.trim()).toBe(cert.trim());
    // On a mount without a default issuer, the new root becomes the default.
    const der = await post('pki/root/generate/internal', { common_name: 'Root C', format: 'der', key_type: 'ec' });
    expect(der.status, der.text).toBe(200);
    expect(der.json!.data.private_key).toBeUndefined();
    const derCert = Buffer.from(der.json!.data.certificate, 'base64');
    expect(derCert[0]).toBe(0x30);
    expect(await issuersOf('pki')).toEqual({ [der.json!.data.issuer_id]: true });
    const raw = await svc.app.request('http://localhost/v1/pki/ca');
    expect(raw.headers.get('content-type')).toBe('application/pkix-cert');
    expect(Buffer.from(await raw.arrayBuffer()).equals(derCert)).toBe(true);
  });

  it('concurrent root generations make one issuer each, and exactly one of them is the default', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => post('pki_int/root/generate/internal', { common_name: `Race ${i}`, key_type: 'ec' })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const made = results.map((r) => r.json!.data);
    expect(new Set(made.map((m) => m.issuer_id)).size).toBe(5);
    expect(new Set(made.map((m) => m.key_id)).size).toBe(5);
    const issuers = await issuersOf('pki_int');
    expect(sorted(Object.keys(issuers))).toEqual(sorted(made.map((m) => m.issuer_id)));
    expect(await keysOf('pki_int')).toEqual(sorted(made.map((m) => m.key_id)));
    const defaults = Object.keys(issuers).filter((id) => issuers[id]);
    expect(defaults).toHaveLength(1);
    // The one config/issuers names, and the one ca/pem serves.
    const config = await call(svc.app, 'GET', '/v1/pki_int/config/issuers', { token: svc.root });
    expect(config.json!.data.default).toBe(defaults[0]);
    const ca = (await call(svc.app, 'GET', '/v1/pki_int/ca/pem')).text.trim();
    expect(made.find((m) => m.issuer_id === defaults[0])!.certificate.trim()).toBe(ca);
    expect((await call(svc.app, 'DELETE', '/v1/pki_int/root', { token: svc.root })).status).toBe(204);
  });

  it('refuses bad generation requests', async () => {
    for (const [path, body, msg] of [
      ['pki_int/root/generate/sideways', { common_name: 'x' }, /invalid type/],
      ['pki_int/root/generate/internal', {}, /common_name/],
      ['pki_int/root/generate/internal', { common_name: 'x', key_type: 'rsa', key_bits: 1024 }, /bit length/],
      ['pki_int/root/generate/internal', { common_name: 'x', ttl: '1h', not_after: '2030-01-01T00:00:00Z' }, /not both/],
      ['pki_int/root/generate/internal', { common_name: 'x', max_path_length: -2 }, /max_path_length/],
      ['pki_int/root/generate/kms', { common_name: 'x', managed_key_name: 'nope' }, /no managed key/],
      ['pki_int/root/generate/kms', { common_name: 'x', managed_key_name: 'nope', key_type: 'ec' }, /key_type and key_bits/],
    ] as const) {
      const r = await post(path, body);
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.json!.errors.join(' ')).toMatch(msg);
    }
  });
});

describe('intermediates, chains, imports and self-issued', () => {
  let root = '';
  let inter = '';

  it('exported intermediate CSR, signed with use_csr_values and a path length one less than the root', async () => {
    // pki holds Root B (EC, no path length): give pki_int a root with max_path_length 1 to see the decrement.
    const r = await post('pki_int/root/generate/internal', { common_name: 'Path Root', key_type: 'rsa', max_path_length: 1, ttl: '8760h' });
    root = r.json!.data.certificate;
    const g = await post('pki/intermediate/generate/exported', { common_name: 'Int X', key_type: 'ec', alt_names: 'int.example.com' });
    expect(g.status, g.text).toBe(200);
    secrets.push(g.json!.data.private_key);
    expect(g.json!.data.private_key).toMatch(/EC PRIVATE KEY/);
    expect(text(g.json!.data.csr, 'req')).toMatch(/CN ?= ?Int X/);
    const s = await post('pki_int/root/sign-intermediate', { csr: g.json!.data.csr, use_csr_values: true, ttl: '100h' });
    expect(s.status, s.text).toBe(200);
    inter = s.json!.data.certificate;
    expect(text(inter)).toMatch(/CA:TRUE, pathlen:0/);
    expect(text(inter)).toMatch(/DNS:int\.example\.com/);
    expect(s.json!.data.ca_chain).toEqual([root]);
    expect(verifyChain(inter, root).ok).toBe(true);
    expect(await go.verify(inter, [root])).toMatchObject({ ok: true });
    // The pending key is not the CA until set-signed; a certificate for another key is refused.
    const otherCsr = makeCsr('/CN=Other', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
    const other = await post('pki_int/root/sign-intermediate', { csr: otherCsr, common_name: 'Other' });
    const wrong = await post('pki/intermediate/set-signed', { certificate: other.json!.data.certificate });
    expect(wrong.status).toBe(400);
  });

  it('sign-self-issued needs sudo and re-signs a self-issued CA so it chains to this CA', async () => {
    const selfIssued = selfSignedCert('Old Root').cert;
    const plain = await tokenWith(svc, ['pki-int-admin']);
    await call(svc.app, 'PUT', '/v1/sys/policy/pki-int-admin', {
      token: svc.root,
      body: { policy: JSON.stringify({ path: { 'pki_int/*': { capabilities: ['create', 'update'] } } }) },
    });
    expect((await post('pki_int/root/sign-self-issued', { certificate: selfIssued }, plain)).status).toBe(403);
    const r = await post('pki_int/root/sign-self-issued', { certificate: selfIssued });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.data.issuing_ca.trim()).toBe(root.trim());
    const v = verifyChain(r.json!.data.certificate, root);
    expect(v.ok, v.out).toBe(true);
    expect(await go.verify(r.json!.data.certificate, [root])).toMatchObject({ ok: true });
    expect(text(r.json!.data.certificate)).toMatch(/Subject: CN ?= ?Old Root/);
    const leafish = (
      await post('pki_int/root/sign-intermediate', {
        csr: makeCsr('/CN=Y', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']),
        common_name: 'Y',
      })
    ).json!.data.certificate;
    expect((await post('pki_int/root/sign-self-issued', { certificate: leafish })).json!.errors[0]).toMatch(/not self-issued/);
    expect((await post('pki_int/root/sign-self-issued', { certificate: 'nonsense' })).status).toBe(400);
  });

  it('config/ca imports an openssl CA bundle; issued leaves verify; ca_chain leaves out the root', async () => {
    const bundle = withFiles({}, (p) => {
      openssl([
        'req',
        '-x509',
        '-new',
        '-nodes',
        '-newkey',
        'rsa:2048',
        '-keyout',
        p('k.pem'),
        '-subj',
        '/CN=Imported Root',
        '-days',
        '30',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
        '-out',
        p('c.pem'),
      ]);
      return openssl(['x509', '-in', p('c.pem')]).out + openssl(['pkey', '-in', p('k.pem')]).out;
    });
    const key = bundle.slice(bundle.indexOf('-----BEGIN PRIVATE KEY'));
    secrets.push(key);
    // pki_int's issuers (Path Root) go first: on a mount without a default issuer, the import becomes the default.
    expect((await call(svc.app, 'DELETE', '/v1/pki_int/root', { token: svc.root })).status).toBe(204);
    for (const bad of ['nothing here', bundle + key, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n']) {
      expect((await post('pki_int/config/ca', { pem_bundle: bad })).status).toBe(400);
    }
    const imported = await post('pki_int/config/ca', { pem_bundle: bundle });
    expect(imported.status, imported.text).toBe(200);
    const issuerId = imported.json!.data.imported_issuers?.[0] as string;
    const keyId = imported.json!.data.imported_keys?.[0] as string;
    expect(imported.json!.data).toEqual({
      imported_issuers: [issuerId],
      imported_keys: [keyId],
      existing_issuers: null,
      existing_keys: null,
      mapping: { [issuerId]: keyId },
    });
    // The certificate again, alone: nothing new, the issuer found with its key.
    const again = await post('pki_int/config/ca', { pem_bundle: bundle.slice(0, bundle.indexOf('-----BEGIN PRIVATE KEY')) });
    expect(again.status, again.text).toBe(200);
    expect(again.json!.data).toEqual({
      imported_issuers: null,
      imported_keys: null,
      existing_issuers: [issuerId],
      existing_keys: null,
      mapping: { [issuerId]: keyId },
    });
    const caPem = (await call(svc.app, 'GET', '/v1/pki_int/ca/pem')).text;
    await post('pki_int/roles/web', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'rsa', ttl: '1h' });
    const leaf = await post('pki_int/issue/web', { common_name: 'a.example.com' });
    expect(verifyChain(leaf.json!.data.certificate, caPem).ok).toBe(true);
    expect(await go.verify(leaf.json!.data.certificate, [caPem], [], 'a.example.com')).toMatchObject({ ok: true });
    expect((await call(svc.app, 'GET', '/v1/pki_int/ca_chain')).text).toBe('');
    const full = await call(svc.app, 'GET', '/v1/pki_int/cert/ca_chain');
    expect(full.json!.data.ca_chain).toBe(caPem.trim());
  });

  it('a pki_int with set-signed chain answers ca_chain without the root and the full chain under cert/ca_chain', async () => {
    const g = await post('pki_int/intermediate/generate/internal', { common_name: 'Int Z', key_type: 'ec' });
    expect(g.json!.data.key_id).toMatch(UUID);
    const s = await post('pki/root/sign-intermediate', { csr: g.json!.data.csr, common_name: 'Int Z', ttl: '100h' });
    const pkiRoot = (await call(svc.app, 'GET', '/v1/pki/ca/pem')).text;
    const set = await post('pki_int/intermediate/set-signed', { certificate: `${s.json!.data.certificate}\n${pkiRoot}` });
    expect(set.status, set.text).toBe(200);
    // Both certificates become issuers: Int Z with the key intermediate/generate made, pki's root without one.
    const [intId, rootId] = set.json!.data.imported_issuers as string[];
    expect(set.json!.data).toEqual({
      imported_issuers: [intId, rootId],
      imported_keys: null,
      existing_issuers: null,
      existing_keys: null,
      mapping: { [intId!]: g.json!.data.key_id, [rootId!]: '' },
    });
    // pki_int's default is still the root config/ca imported above: Int Z is made the default.
    const config = await post('pki_int/config/issuers', { default: intId });
    expect(config.status, config.text).toBe(200);
    expect(config.json!.data).toEqual({ default: intId, default_follows_latest_issuer: false });
    const chain = await call(svc.app, 'GET', '/v1/pki_int/ca_chain');
    expect(chain.text.trim()).toBe(s.json!.data.certificate.trim());
    const full = await call(svc.app, 'GET', '/v1/pki_int/cert/ca_chain');
    // One PEM string, blocks joined by a newline, as the reference answers (not an array).
    expect(full.json!.data.ca_chain).toBe(`${s.json!.data.certificate.trim()}\n${pkiRoot.trim()}`);
    expect(full.json!.data.certificate).toBe(full.json!.data.ca_chain);
    await post('pki_int/roles/ec', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' });
    const leaf = await post('pki_int/issue/ec', { common_name: 'z.example.com' });
    secrets.push(leaf.json!.data.private_key);
    expect(verifyChain(leaf.json!.data.certificate, pkiRoot, [s.json!.data.certificate]).ok).toBe(true);
    expect(await go.verify(leaf.json!.data.certificate, [pkiRoot], [s.json!.data.certificate], 'z.example.com')).toMatchObject({
      ok: true,
    });
  });
});

describe('secrets at rest', () => {
  it('no private key the engine produced or imported appears in the raw table', async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    const items: string[] = [];
    let start: Record<string, never> | undefined;
    do {
      const page = await svc.client.send(new ScanCommand({ TableName: svc.table, ...(start ? { ExclusiveStartKey: start } : {}) }));
      items.push(...(page.Items ?? []).map((i) => JSON.stringify(i)));
      start = page.LastEvaluatedKey as typeof start;
    } while (start);
    const raw = items.join('\n');
    expect(raw).toMatch(/pki\/pki_int[^\n]*key\/[0-9a-f-]{36}[^\n]*\$sealed/);
    expect(raw).not.toMatch(/PRIVATE KEY/);
    for (const pem of secrets) {
      const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
      expect(body.length).toBeGreaterThan(40);
      expect(raw).not.toContain(body.slice(0, 40));
      expect(raw).not.toContain(Buffer.from(body, 'base64').toString('hex').slice(0, 40));
    }
  });
});
