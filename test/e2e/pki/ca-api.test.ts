/** CA lifecycle through the app: generation rules, formats, chains, imports, self-issued, secrets at rest. */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { goX509, type GoX509 } from '../../helpers/go-x509';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';
import { makeCsr, openssl, text, verifyChain, withFiles } from '../../helpers/openssl';

let svc: TestService;
let go: GoX509;
const post = (path: string, body: unknown, token = svc.root) => call(svc.app, 'POST', `/v1/${path}`, { token, body });
const secrets: string[] = [];

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  go = goX509();
});

afterAll(async () => {
  await go.close();
});

describe('root generation', () => {
  it('exported returns the key; pem_bundle and der formats; refuses a second root until DELETE root', async () => {
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
    const again = await post('pki/root/generate/internal', { common_name: 'Root B' });
    expect(again.status).toBe(400);
    expect(again.json!.errors[0]).toMatch(/existing root/);
    // DELETE root needs sudo.
    const plain = await tokenWith(svc, ['pki-admin']);
    await call(svc.app, 'PUT', '/v1/sys/policy/pki-admin', {
      token: svc.root,
      body: { policy: JSON.stringify({ path: { 'pki/*': { capabilities: ['create', 'read', 'update', 'delete', 'list'] } } }) },
    });
    expect((await call(svc.app, 'DELETE', '/v1/pki/root', { token: plain })).status).toBe(403);
    expect((await call(svc.app, 'DELETE', '/v1/pki/root', { token: svc.root })).status).toBe(204);
    // The old certificate stays readable; nothing can be signed.
    const ca = await call(svc.app, 'GET', '/v1/pki/ca/pem');
    expect(ca.text.trim()).toBe(cert.trim());
    await post('pki/roles/r', { allow_any_name: true, key_type: 'ec' });
    expect((await post('pki/issue/r', { common_name: 'x' })).json!.errors[0]).toMatch(/no default issuer/);
    const der = await post('pki/root/generate/internal', { common_name: 'Root B', format: 'der', key_type: 'ec' });
    expect(der.status, der.text).toBe(200);
    expect(der.json!.data.private_key).toBeUndefined();
    expect(Buffer.from(der.json!.data.certificate, 'base64')[0]).toBe(0x30);
    const raw = await call(svc.app, 'GET', '/v1/pki/ca');
    expect(raw.headers.get('content-type')).toBe('application/pkix-cert');
  });

  it('concurrent root generation: exactly one wins', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => post('pki_int/root/generate/internal', { common_name: `Race ${i}`, key_type: 'ec' })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(4);
    const ca = await call(svc.app, 'GET', '/v1/pki_int/ca/pem');
    const winner = results.find((r) => r.status === 200)!;
    expect(ca.text.trim()).toBe(winner.json!.data.certificate.trim());
    await call(svc.app, 'DELETE', '/v1/pki_int/root', { token: svc.root });
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
    const selfIssued = withFiles({}, (p) => {
      openssl([
        'req',
        '-x509',
        '-new',
        '-nodes',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-keyout',
        p('k.pem'),
        '-subj',
        '/CN=Old Root',
        '-days',
        '30',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
        '-out',
        p('c.pem'),
      ]);
      return openssl(['x509', '-in', p('c.pem')]).out;
    });
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
    secrets.push(bundle.slice(bundle.indexOf('-----BEGIN PRIVATE KEY')));
    for (const bad of [
      'nothing here',
      bundle.replace(/-----BEGIN PRIVATE KEY[\s\S]*/, ''),
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
    ]) {
      expect((await post('pki_int/config/ca', { pem_bundle: bad })).status).toBe(400);
    }
    expect((await post('pki_int/config/ca', { pem_bundle: bundle })).status).toBe(204);
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
    const s = await post('pki/root/sign-intermediate', { csr: g.json!.data.csr, common_name: 'Int Z', ttl: '100h' });
    const pkiRoot = (await call(svc.app, 'GET', '/v1/pki/ca/pem')).text;
    expect((await post('pki_int/intermediate/set-signed', { certificate: `${s.json!.data.certificate}\n${pkiRoot}` })).status).toBe(204);
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
    expect(raw).toMatch(/pki\/pki_int[^\n]*ca\/current[^\n]*\$sealed/);
    expect(raw).not.toMatch(/PRIVATE KEY/);
    for (const pem of secrets) {
      const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
      expect(body.length).toBeGreaterThan(40);
      expect(raw).not.toContain(body.slice(0, 40));
      expect(raw).not.toContain(Buffer.from(body, 'base64').toString('hex').slice(0, 40));
    }
  });
});
