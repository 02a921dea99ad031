/**
 * Bad input on the PKI issuers and keys API (issue 25): unknown references wherever one is taken,
 * a mount with no default issuer, an issuer whose usage forbids the operation (or that was
 * revoked), a key that does not match its certificate, garbage bundles (with nothing
 * half-imported), deleting the default issuer or a key in use, names OpenBao refuses, and
 * settings of the wrong type. Each answer is the exact 4xx with a message naming the problem,
 * never a 5xx: where OpenBao answers 500 (reading an unknown issuer, issuing with no default
 * issuer or through one whose usage forbids it), Latchkey answers 400 or 404.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { makeCsr, openssl, selfSignedCert, withFiles } from '../../helpers/openssl';
import { call, createTestService, type TestService } from '../../helpers/service';

type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let svc: TestService;
const UNKNOWN_ID = '00000000-1111-2222-3333-444444444444';

const request = (method: string, path: string, body?: unknown, token: string | undefined = svc.root) =>
  call(svc.app, method, `/v1/${path}`, { token, body });
async function ok(method: string, path: string, body?: unknown): Promise<Data> {
  const r = await request(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(200);
  return r.json!.data as Data;
}
/** The one error of a refusal, after checking its status. */
async function refused(status: 400 | 404, method: string, path: string, body?: unknown, token?: string | null): Promise<string> {
  const r = await request(method, path, body, token === null ? undefined : (token ?? svc.root));
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
  const errors = r.json!.errors as string[];
  expect(errors).toHaveLength(1);
  return errors[0]!;
}

const selfSigned = selfSignedCert;
const csr = () => makeCsr('/CN=x.example.com', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
const listed = async (what: 'issuers' | 'keys') => ((await ok('LIST', `pki/${what}`)).keys as string[]).sort();

const rootA = { id: '', keyId: '', cert: '' };
const rootB = { id: '', keyId: '' };

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  const a = await ok('POST', 'pki/root/generate/internal', { common_name: 'Root A', issuer_name: 'root-a', key_type: 'ec' });
  Object.assign(rootA, { id: a.issuer_id, keyId: a.key_id, cert: a.certificate });
  const b = await ok('POST', 'pki/root/generate/internal', { common_name: 'Root B', issuer_name: 'root-b', key_type: 'ec' });
  Object.assign(rootB, { id: b.issuer_id, keyId: b.key_id });
  await ok('POST', 'pki/roles/web', { allow_any_name: true, key_type: 'ec', ttl: '1h' });
}, 30_000);

describe('unknown references: 404 naming the reference', () => {
  const issuerRef = (ref: string) => `unable to find issuer for reference: ${ref}`;
  const keyRef = (ref: string) => `unable to find PKI key for reference: ${ref}`;

  for (const ref of ['nope', UNKNOWN_ID]) {
    it(`issuer/${ref}: read, write, patch, delete`, async () => {
      expect(await refused(404, 'GET', `pki/issuer/${ref}`)).toBe(issuerRef(ref));
      expect(await refused(404, 'POST', `pki/issuer/${ref}`, { issuer_name: 'x' })).toBe(issuerRef(ref));
      expect(await refused(404, 'PATCH', `pki/issuer/${ref}`, { usage: 'read-only' })).toBe(issuerRef(ref));
      expect(await refused(404, 'DELETE', `pki/issuer/${ref}`)).toBe(issuerRef(ref));
    });

    it(`issuer/${ref}: its certificate and CRL, read without a token`, async () => {
      for (const sub of ['json', 'pem', 'der', 'crl', 'crl/pem', 'crl/der'])
        expect(await refused(404, 'GET', `pki/issuer/${ref}/${sub}`, undefined, null)).toBe(issuerRef(ref));
    });

    it(`issuer/${ref}: issue, sign, sign-verbatim, sign-intermediate, sign-self-issued, revoke`, async () => {
      expect(await refused(404, 'POST', `pki/issuer/${ref}/issue/web`, { common_name: 'a.example.com' })).toBe(issuerRef(ref));
      expect(await refused(404, 'POST', `pki/issuer/${ref}/sign/web`, { csr: csr() })).toBe(issuerRef(ref));
      expect(await refused(404, 'POST', `pki/issuer/${ref}/sign-verbatim`, { csr: csr() })).toBe(issuerRef(ref));
      expect(await refused(404, 'POST', `pki/issuer/${ref}/sign-verbatim/web`, { csr: csr() })).toBe(issuerRef(ref));
      expect(await refused(404, 'POST', `pki/issuer/${ref}/sign-intermediate`, { csr: csr(), common_name: 'I' })).toBe(issuerRef(ref));
      const selfIssued = selfSigned('Self Issued').cert;
      expect(await refused(404, 'POST', `pki/issuer/${ref}/sign-self-issued`, { certificate: selfIssued })).toBe(issuerRef(ref));
      expect(await refused(404, 'POST', `pki/issuer/${ref}/revoke`)).toBe(issuerRef(ref));
    });

    it(`key/${ref}: read, rename, delete`, async () => {
      expect(await refused(404, 'GET', `pki/key/${ref}`)).toBe(keyRef(ref));
      expect(await refused(404, 'POST', `pki/key/${ref}`, { key_name: 'k' })).toBe(keyRef(ref));
      expect(await refused(404, 'DELETE', `pki/key/${ref}`)).toBe(keyRef(ref));
    });

    it(`${ref} as the default (config/issuers, root/replace, config/keys) and in manual_chain; nothing changes`, async () => {
      expect(await refused(404, 'POST', 'pki/config/issuers', { default: ref })).toBe(issuerRef(ref));
      expect(await refused(404, 'POST', 'pki/root/replace', { default: ref })).toBe(issuerRef(ref));
      expect(await refused(404, 'POST', 'pki/config/keys', { default: ref })).toBe(keyRef(ref));
      expect(await refused(404, 'PATCH', 'pki/issuer/root-a', { manual_chain: `self,${ref}` })).toBe(issuerRef(ref));
      expect((await ok('GET', 'pki/config/issuers')).default).toBe(rootA.id);
      expect((await ok('GET', 'pki/config/keys')).default).toBe(rootA.keyId);
      expect((await ok('GET', 'pki/issuer/root-a')).manual_chain).toBeNull(); // none set, as OpenBao answers it
    });

    it(`key_ref=${ref}: root/generate/existing, issuers/generate/root|intermediate/existing, intermediate/cross-sign`, async () => {
      const before = await listed('issuers');
      for (const path of [
        'pki/root/generate/existing',
        'pki/issuers/generate/root/existing',
        'pki/issuers/generate/intermediate/existing',
        'pki/intermediate/generate/existing',
        'pki/intermediate/cross-sign',
      ])
        expect(await refused(404, 'POST', path, { common_name: 'New CA', key_ref: ref })).toBe(keyRef(ref));
      expect(await listed('issuers')).toEqual(before);
    });
  }

  // OpenBao does not resolve issuer_ref when a role is written (path_roles.go: "resolve it at use
  // time", with a warning), so the name may come to exist later; the issue then names it.
  it('a role whose issuer_ref names nothing is stored; issuing or signing with it names the reference', async () => {
    await ok('POST', 'pki/roles/dangling', { allow_any_name: true, key_type: 'ec', issuer_ref: 'later' });
    expect(await refused(404, 'POST', 'pki/issue/dangling', { common_name: 'a.example.com' })).toBe(issuerRef('later'));
    expect(await refused(404, 'POST', 'pki/sign/dangling', { csr: csr() })).toBe(issuerRef('later'));
  });

  it("names of Object.prototype's members are references like any other", async () => {
    for (const ref of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(await refused(404, 'GET', `pki/issuer/${ref}`)).toBe(issuerRef(ref));
      expect(await refused(404, 'GET', `pki/key/${ref}`)).toBe(keyRef(ref));
      expect(await refused(404, 'POST', 'pki/config/issuers', { default: ref })).toBe(issuerRef(ref));
    }
  });
});

// A fresh mount (pki_int holds nothing in this file).
describe('no default issuer: a 4xx naming it, where OpenBao answers 500 for the signing paths', () => {
  const none = 'no default issuer currently configured';

  it('issue, sign, sign-verbatim and root/sign-intermediate: 400', async () => {
    await ok('POST', 'pki_int/roles/web', { allow_any_name: true, key_type: 'ec' });
    const signing = `${none}: generate or import a CA first`;
    expect(await refused(400, 'POST', 'pki_int/issue/web', { common_name: 'a.example.com' })).toBe(signing);
    expect(await refused(400, 'POST', 'pki_int/sign/web', { csr: csr() })).toBe(signing);
    expect(await refused(400, 'POST', 'pki_int/sign-verbatim', { csr: csr() })).toBe(signing);
    expect(await refused(400, 'POST', 'pki_int/root/sign-intermediate', { csr: csr(), common_name: 'I' })).toBe(signing);
  });

  it('the reads of the default issuer: 404 (ca/pem with no message, as the README says)', async () => {
    expect(await refused(404, 'GET', 'pki_int/crl', undefined, null)).toBe(none);
    expect(await refused(404, 'GET', 'pki_int/crl/pem', undefined, null)).toBe(none);
    expect(await refused(404, 'GET', 'pki_int/issuer/default')).toBe(none);
    expect(await refused(404, 'GET', 'pki_int/issuer/default/json', undefined, null)).toBe(none);
    const ca = await request('GET', 'pki_int/ca/pem', undefined, undefined);
    expect(ca.status).toBe(404);
  });

  it('config/issuers and root/replace naming an issuer the mount lacks: 404 naming it', async () => {
    expect(await refused(404, 'POST', 'pki_int/config/issuers', { default: 'root-a' })).toBe('unable to find issuer for reference: root-a');
    expect(await refused(404, 'POST', 'pki_int/root/replace', { default: rootA.id })).toBe(
      `unable to find issuer for reference: ${rootA.id}`,
    );
  });
});

describe('an issuer whose usage forbids the operation: 400 naming the issuer and its usage', () => {
  const forbidden = (usage: string, has: string) => `issuer root-b may not be used for ${usage} (its usage: ${has})`;

  it('read-only: issue, sign, sign-verbatim, sign-intermediate, sign-self-issued and a role naming it are refused; its certificate is still served', async () => {
    expect((await ok('PATCH', 'pki/issuer/root-b', { usage: 'read-only' })).usage).toBe('read-only');
    const msg = forbidden('issuing-certificates', 'read-only');
    expect(await refused(400, 'POST', 'pki/issuer/root-b/issue/web', { common_name: 'a.example.com' })).toBe(msg);
    expect(await refused(400, 'POST', 'pki/issuer/root-b/sign/web', { csr: csr() })).toBe(msg);
    expect(await refused(400, 'POST', 'pki/issuer/root-b/sign-verbatim', { csr: csr() })).toBe(msg);
    expect(await refused(400, 'POST', 'pki/issuer/root-b/sign-intermediate', { csr: csr(), common_name: 'I' })).toBe(msg);
    expect(await refused(400, 'POST', 'pki/issuer/root-b/sign-self-issued', { certificate: selfSigned('Self Issued').cert })).toBe(msg);
    await ok('POST', 'pki/roles/via-b', { allow_any_name: true, key_type: 'ec', issuer_ref: 'root-b' });
    expect(await refused(400, 'POST', 'pki/issue/via-b', { common_name: 'a.example.com' })).toBe(msg);
    expect((await request('GET', 'pki/issuer/root-b/pem', undefined, undefined)).status).toBe(200);
  });

  // OpenBao builds no CRL for an issuer without crl-signing (crl_util.go skips it as its set's
  // representative), and its read then fails; Latchkey refuses the read, naming the usage.
  it("without crl-signing, the issuer's CRL is refused (400 naming the usage); issuing works", async () => {
    await ok('PATCH', 'pki/issuer/root-b', { usage: 'issuing-certificates' });
    const msg = forbidden('crl-signing', 'read-only,issuing-certificates');
    for (const sub of ['crl', 'crl/pem', 'crl/der'])
      expect(await refused(400, 'GET', `pki/issuer/root-b/${sub}`, undefined, null)).toBe(msg);
    await ok('POST', 'pki/issuer/root-b/issue/web', { common_name: 'a.example.com' });
    expect((await request('GET', 'pki/crl/pem', undefined, undefined)).status).toBe(200); // the default's
  });

  it('an unknown usage, or one of the wrong type, is refused and changes nothing', async () => {
    expect(await refused(400, 'PATCH', 'pki/issuer/root-b', { usage: 'read-only,bogus' })).toBe(
      'invalid usage "bogus": read-only, issuing-certificates, crl-signing, ocsp-signing',
    );
    expect(await refused(400, 'PATCH', 'pki/issuer/root-b', { usage: 5 })).toBe(
      'field "usage": expected a list of strings or a comma-separated string',
    );
    expect((await ok('GET', 'pki/issuer/root-b')).usage).toBe('read-only,issuing-certificates');
  });

  it('a revoked issuer issues nothing (the message says so), and issuance cannot be given back (OpenBao refuses too)', async () => {
    await ok('PATCH', 'pki/issuer/root-b', { usage: 'read-only,issuing-certificates,crl-signing,ocsp-signing' });
    expect((await ok('POST', 'pki/issuer/root-b/revoke')).revoked).toBe(true);
    expect(await refused(400, 'POST', 'pki/issuer/root-b/issue/web', { common_name: 'a.example.com' })).toBe(
      forbidden('issuing-certificates', 'read-only,crl-signing,ocsp-signing; the issuer was revoked'),
    );
    expect(await refused(400, 'POST', 'pki/issuer/root-b/sign-intermediate', { csr: csr(), common_name: 'I' })).toMatch(
      /the issuer was revoked/,
    );
    expect(await refused(400, 'PATCH', 'pki/issuer/root-b', { usage: 'issuing-certificates' })).toMatch(
      /^issuer root-b was revoked; unable to modify its usage to include certificate signing again/,
    );
    expect((await ok('PATCH', 'pki/issuer/root-b', { usage: 'read-only,crl-signing' })).usage).toBe('read-only,crl-signing');
    expect((await request('GET', 'pki/issuer/root-b/crl/pem', undefined, undefined)).status).toBe(200);
  });
});

describe('a key that does not match its certificate', () => {
  // OpenBao imports both (the certificate as a keyless issuer, the key on its own); Latchkey
  // refuses the bundle, as issue 25 asks: a key beside a certificate it does not belong to is
  // more likely a mistake than a wish to store an unrelated key.
  it('issuers/import/bundle of a CA certificate and another key pair’s private key: 400, nothing imported', async () => {
    const [issuers, keys] = [await listed('issuers'), await listed('keys')];
    const msg = await refused(400, 'POST', 'pki/issuers/import/bundle', { pem_bundle: selfSigned('One').cert + selfSigned('Two').key });
    expect(msg).toBe('no certificate in the bundle matches the private key');
    expect([await listed('issuers'), await listed('keys')]).toEqual([issuers, keys]);
  });

  // OpenBao's set-signed is its import and would take the certificate keyless; Latchkey's
  // set-signed is for the key intermediate/generate made, and says so.
  it('intermediate/set-signed with a CA certificate for a key the mount does not hold: 400', async () => {
    const issuers = await listed('issuers');
    expect(await refused(400, 'POST', 'pki/intermediate/set-signed', { certificate: selfSigned('Stranger').cert })).toBe(
      'the certificate does not match the key generated by intermediate/generate',
    );
    expect(await refused(400, 'POST', 'pki/intermediate/set-signed', { certificate: selfSigned('With Key').key })).toBe(
      'the certificate field must not contain a private key',
    );
    expect(await listed('issuers')).toEqual(issuers);
  });

  it('keys/import: garbage, an encrypted key, two keys, a certificate: 400 naming each', async () => {
    const keys = await listed('keys');
    const { key, cert } = selfSigned('Key Source');
    const encrypted = withFiles({ 'k.pem': key }, (p) => openssl(['pkey', '-in', p('k.pem'), '-aes256', '-passout', 'pass:x']).out);
    const cases: [string, string][] = [
      ['', 'missing required field "pem_bundle"'],
      ['not a key, not PEM, not anything at all', 'the PEM bundle contains no PEM block'],
      [encrypted, 'the private key could not be parsed (encrypted keys are not supported)'],
      [key + selfSigned('Other Key').key, 'the PEM bundle must hold exactly one unencrypted private key'],
      [cert, 'the PEM bundle must hold exactly one unencrypted private key'],
    ];
    for (const [pem, message] of cases) expect(await refused(400, 'POST', 'pki/keys/import', { pem_bundle: pem })).toBe(message);
    expect(await listed('keys')).toEqual(keys);
  });

  it('keys/import checks key_name even for a key the mount has (OpenBao: getKeyName first), and warns that an existing key keeps its name', async () => {
    const { key } = selfSigned('Named Key');
    const first = await ok('POST', 'pki/keys/import', { pem_bundle: key, key_name: 'named' });
    expect(await refused(400, 'POST', 'pki/keys/import', { pem_bundle: key, key_name: 'default' })).toMatch(/^invalid key name "default"/);
    expect(await refused(400, 'POST', 'pki/keys/import', { pem_bundle: key, key_name: 'named' })).toBe('key name already in use: named');
    const again = await request('POST', 'pki/keys/import', { pem_bundle: key, key_name: 'renamed' });
    expect(again.status).toBe(200);
    expect(again.json!.data).toMatchObject({ key_id: first.key_id, key_name: 'named' });
    expect(again.json!.warnings).toEqual(['Key already imported, use key/ endpoint to update name.']);
  });
});

describe('garbage bundles: 400 naming the problem, nothing half-imported', () => {
  const ca = selfSigned('Bundle CA');
  const leaf = selfSigned('Leaf', false);
  const garbageDer = `-----BEGIN CERTIFICATE-----\n${Buffer.from('not DER, only bytes in PEM armour. '.repeat(3)).toString('base64')}\n-----END CERTIFICATE-----\n`;
  const cases: [string, () => string, string | RegExp][] = [
    ['empty', () => '', 'missing required field "pem_bundle"'],
    ['not PEM', () => 'a path, perhaps: /etc/ssl/certs/ca.pem, or anything else', 'the PEM bundle contains no PEM block'],
    ['a PEM of the wrong type (a CSR)', csr, 'the PEM bundle may hold only certificates and one private key'],
    ['truncated DER', () => `${ca.cert.slice(0, 200)}\n-----END CERTIFICATE-----\n`, 'the certificate: malformed DER: truncated'],
    ['bad DER inside valid armour', () => garbageDer, /^the certificate: malformed (DER|certificate)/],
    [
      'a block whose base64 is broken',
      () => ca.cert.replace(/\n[A-Za-z0-9+/]{8}/, '\n!!!!!!!!'),
      /^the PEM bundle contains no PEM block: block 1 is malformed \(no matching END line, or characters outside base64\)$/,
    ],
    [
      'a good certificate then a block that never ends',
      () => `${ca.cert}-----BEGIN CERTIFICATE-----\nMIIB\n`,
      'the PEM bundle: PEM block 2 is malformed (no matching END line, or characters outside base64)',
    ],
    [
      'a leaf (OpenBao: "Refusing to import non-CA certificate")',
      () => leaf.cert,
      'the certificate is not a CA certificate (basic constraints CA:TRUE missing)',
    ],
    [
      'a CA, then a leaf and its key',
      () => ca.cert + leaf.cert + leaf.key,
      'certificate 2 of the bundle (CN=Leaf) is not a CA certificate (basic constraints CA:TRUE missing)',
    ],
    ['a CA and two keys', () => ca.cert + ca.key + leaf.key, 'the PEM bundle must hold at most one private key'],
    ['a CA, its key and garbage', () => ca.cert + ca.key + garbageDer, /^certificate 2 of the bundle: malformed (DER|certificate)/],
  ];

  for (const path of ['issuers/import/bundle', 'config/ca']) {
    it(`${path}: each refused, LIST issuers and keys unchanged`, async () => {
      const [issuers, keys] = [await listed('issuers'), await listed('keys')];
      for (const [what, bundle, message] of cases) {
        const msg = await refused(400, 'POST', `pki/${path}`, { pem_bundle: bundle() });
        if (typeof message === 'string') expect(msg, what).toBe(message);
        else expect(msg, what).toMatch(message);
      }
      expect([await listed('issuers'), await listed('keys')]).toEqual([issuers, keys]);
    });
  }

  it('issuers/import/cert: a key is refused, naming the path that takes one', async () => {
    expect(await refused(400, 'POST', 'pki/issuers/import/cert', { pem_bundle: ca.cert + ca.key })).toBe(
      'issuers/import/cert takes certificates only: use issuers/import/bundle for keys',
    );
  });

  it('49 CA certificates and a garbage one: refused before any is imported', async () => {
    const issuers = await listed('issuers');
    const many = Array.from({ length: 49 }, (_, i) => selfSigned(`Many ${i}`).cert).join('');
    expect(await refused(400, 'POST', 'pki/issuers/import/bundle', { pem_bundle: many + garbageDer })).toMatch(
      /^certificate 50 of the bundle: malformed (DER|certificate)/,
    );
    expect(await listed('issuers')).toEqual(issuers);
    // OpenBao sets no limit on the number of issuers a bundle holds; without the garbage, all 50 come in.
    const imported = await ok('POST', 'pki/issuers/import/bundle', { pem_bundle: many + selfSigned('Many 49').cert });
    expect(imported.imported_issuers).toHaveLength(50);
    expect(await listed('issuers')).toHaveLength(issuers.length + 50);
    expect((await ok('GET', 'pki/config/issuers')).default).toBe(rootA.id);
  }, 60_000);
});

describe('deleting the default issuer, a key in use; names OpenBao refuses', () => {
  it('DELETE of the default issuer: 400 naming it and what to do; DELETE of its key: 400 naming the issuer', async () => {
    expect(await refused(400, 'DELETE', 'pki/issuer/root-a')).toBe(
      'issuer root-a is the default issuer: set another default (config/issuers) before deleting it',
    );
    expect(await refused(400, 'DELETE', 'pki/issuer/default')).toMatch(/^issuer root-a is the default issuer: set another default/);
    expect(await refused(400, 'DELETE', `pki/key/${rootA.keyId}`)).toBe(
      `key ${rootA.keyId} is used by issuer(s) root-a: delete them first`,
    );
    expect((await ok('GET', 'pki/issuer/root-a')).issuer_id).toBe(rootA.id);
  });

  it('with another default it deletes (204); then reads name the reference (404), and its key may go', async () => {
    const c = await ok('POST', 'pki/root/generate/internal', { common_name: 'Root C', issuer_name: 'root-c', key_type: 'ec' });
    await ok('POST', 'pki/config/issuers', { default: 'root-c' });
    expect((await request('DELETE', 'pki/issuer/root-a')).status).toBe(204);
    expect(await refused(404, 'GET', 'pki/issuer/root-a')).toBe('unable to find issuer for reference: root-a');
    expect(await refused(404, 'GET', `pki/issuer/${rootA.id}/pem`, undefined, null)).toBe(
      `unable to find issuer for reference: ${rootA.id}`,
    );
    expect(await refused(404, 'DELETE', `pki/issuer/${rootA.id}`)).toBe(`unable to find issuer for reference: ${rootA.id}`);
    expect((await request('DELETE', `pki/key/${rootA.keyId}`)).status).toBe(204);
    expect(await refused(404, 'GET', `pki/key/${rootA.keyId}`)).toBe(`unable to find PKI key for reference: ${rootA.keyId}`);
    expect((await ok('GET', 'pki/config/issuers')).default).toBe(c.issuer_id);
  });

  const invalid = (what: string, name: string) =>
    `invalid ${what} name ${JSON.stringify(name.slice(0, 64))}: 1 to 128 of letters, digits, _ . - (not "default", not an id)`;
  // "default" in any case (OpenBao compares strings.ToLower); a uuid-shaped name, which OpenBao
  // would take but which reads as an id here (a deliberate difference: a reference is never
  // ambiguous); spaces; more than 128 characters (OpenBao sets no length).
  const badNames = ['default', 'Default', 'DEFAULT', UNKNOWN_ID, 'has space', 'x'.repeat(200), 'semi;colon', '../up'];

  it('issuer names: invalid ones and one in use are 400 naming it; the name stays', async () => {
    for (const name of badNames)
      expect(await refused(400, 'PATCH', 'pki/issuer/root-c', { issuer_name: name })).toBe(invalid('issuer', name));
    expect(await refused(400, 'PATCH', 'pki/issuer/root-c', { issuer_name: 'root-b' })).toBe('issuer name already in use: root-b');
    expect(await refused(400, 'POST', 'pki/root/generate/internal', { common_name: 'D', issuer_name: 'root-c', key_type: 'ec' })).toBe(
      'issuer name already in use: root-c',
    );
    expect(await refused(400, 'POST', 'pki/root/generate/internal', { common_name: 'D', issuer_name: 'Default', key_type: 'ec' })).toBe(
      invalid('issuer', 'Default'),
    );
    expect((await ok('GET', 'pki/issuer/root-c')).issuer_name).toBe('root-c');
  });

  it('key names: invalid ones and one in use are 400 naming it', async () => {
    const k = await ok('POST', 'pki/keys/generate/internal', { key_type: 'ec', key_name: 'spare' });
    for (const name of badNames) expect(await refused(400, 'POST', `pki/key/${k.key_id}`, { key_name: name })).toBe(invalid('key', name));
    expect(await refused(400, 'POST', `pki/key/${k.key_id}`, { key_name: 'named' })).toBe('key name already in use: named');
    expect(await refused(400, 'POST', 'pki/keys/generate/internal', { key_type: 'ec', key_name: 'spare' })).toBe(
      'key name already in use: spare',
    );
    expect(await refused(400, 'POST', 'pki/root/generate/internal', { common_name: 'D', key_name: 'DeFaUlT', key_type: 'ec' })).toBe(
      invalid('key', 'DeFaUlT'),
    );
    expect((await ok('GET', 'pki/key/spare')).key_id).toBe(k.key_id);
  });

  // OpenBao's name rule (framework.GenericNameRegex) admits `__proto__`; it must stay an ordinary name.
  it('__proto__ is a name like any other, for an issuer and a key', async () => {
    await ok('PATCH', 'pki/issuer/root-c', { issuer_name: '__proto__' });
    expect((await ok('GET', 'pki/issuer/__proto__')).issuer_name).toBe('__proto__');
    expect((await ok('LIST', 'pki/issuers')).key_info[(await ok('GET', 'pki/issuer/default')).issuer_id]).toMatchObject({
      issuer_name: '__proto__',
      is_default: true,
    });
    await ok('POST', 'pki/key/spare', { key_name: '__proto__' });
    expect((await ok('GET', 'pki/key/__proto__')).key_name).toBe('__proto__');
    expect(await refused(400, 'POST', 'pki/keys/generate/internal', { key_type: 'ec', key_name: '__proto__' })).toBe(
      'key name already in use: __proto__',
    );
    await ok('PATCH', 'pki/issuer/__proto__', { issuer_name: 'root-c' });
  });
});

describe('issuer settings of the wrong type: 400 naming the field', () => {
  it.each([
    [{ usage: 5 }, 'field "usage": expected a list of strings or a comma-separated string'],
    [{ manual_chain: { first: 'self' } }, 'field "manual_chain": expected a list of strings or a comma-separated string'],
    [{ manual_chain: 'root-b' }, 'the first entry of manual_chain must be the issuer itself'],
    [{ leaf_not_after_behavior: 'sometimes' }, 'invalid leaf_not_after_behavior "sometimes": err, truncate or permit'],
    [{ enable_aia_url_templating: 'maybe' }, 'field "enable_aia_url_templating": expected a boolean'],
  ])('%j', async (body, message) => {
    expect(await refused(400, 'PATCH', 'pki/issuer/root-c', body)).toBe(message);
  });

  // OpenBao takes the template when written (with a warning: "issuance may fail") and refuses
  // at issuance; Latchkey does the same, with a 400 naming config/cluster.
  it('AIA templating with {{cluster_path}} and no config/cluster path: issuing is 400 naming it, until the path is set', async () => {
    await ok('PATCH', 'pki/issuer/root-c', {
      enable_aia_url_templating: true,
      issuing_certificates: '{{cluster_path}}/issuer/{{issuer_id}}/der',
    });
    expect(await refused(400, 'POST', 'pki/issue/web', { common_name: 'a.example.com' })).toMatch(
      /\{\{cluster_path\}\}.*config\/cluster.*path/,
    );
    await ok('POST', 'pki/config/cluster', { path: 'https://pki.example.com/v1/pki' });
    await ok('POST', 'pki/issue/web', { common_name: 'a.example.com' });
  });
});
