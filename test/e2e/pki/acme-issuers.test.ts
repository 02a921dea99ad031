/**
 * ACME per issuer: the npm `acme-client` (unmodified) against a local Latchkey whose `pki` mount
 * has two roots, the default and `second`, through the directories OpenBao serves under an
 * issuer (issuer/<ref>/acme/, issuer/<ref>/roles/<role>/acme/) and a role pinned to an issuer by
 * issuer_ref. Each certificate chains (openssl verify) to the directory's issuer and not to the
 * other root. config/acme allowed_issuers decides which issuers' directories answer (the default
 * directory's issuer too); an unknown issuer, one without a key here, and a disallowed one are
 * refused with problem documents; external account bindings are per issuer directory.
 */
import acme from 'acme-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIssued, pemBlocks, startAcmeService, type AcmeService } from '../../helpers/acme';
import { startChallengeHttpServer, type ChallengeHttpServer } from '../../helpers/acme-challenge';
import { verifyChain } from '../../helpers/openssl';

let svc: AcmeService;
let web: ChallengeHttpServer;
/** The default issuer's and `second`'s certificates (PEM), and `second`'s id. */
let defaultPem: string;
let secondPem: string;
let secondId: string;

const NAMES = ['a.acme.test', 'b.acme.test', 'c.acme.test', 'd.acme.test', 'e.acme.test', 'f.acme.test'];
const dir = (prefix: string) => `${svc.url}/v1/pki/${prefix}acme/directory`;

async function must(method: string, path: string, body?: unknown) {
  const r = await svc.api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { data: Record<string, unknown> };
}

const newClient = async (directoryUrl: string, o: Partial<acme.ClientOptions> = {}) =>
  new acme.Client({
    directoryUrl,
    accountKey: await acme.crypto.createPrivateEcdsaKey('P-256'),
    backoffAttempts: 5,
    backoffMin: 200,
    backoffMax: 1000,
    ...o,
  });

/** An account and a certificate for `name` through `directoryUrl`, answered by http-01; the chain as served. */
async function obtain(directoryUrl: string, name: string, o: Partial<acme.ClientOptions> = {}): Promise<string> {
  const client = await newClient(directoryUrl, o);
  const [, csr] = await acme.crypto.createCsr({ commonName: name, altNames: [name] });
  return client.auto({
    csr,
    termsOfServiceAgreed: true,
    skipChallengeVerification: true,
    challengePriority: ['http-01'],
    challengeCreateFn: async (_authz, ch, keyAuthorization) => void web.answers.set(ch.token, keyAuthorization),
    challengeRemoveFn: async (_authz, ch) => void web.answers.delete(ch.token),
  });
}

/** The chain verifies against `signer` and not against `other`; its certificate after the leaf is the signer's. */
function expectSignedBy(chain: string, signer: string, other: string, name: string) {
  const issued = checkIssued(chain, signer);
  expect(issued.verify, issued.verify.out).toMatchObject({ ok: true });
  expect(issued.sans).toEqual([`DNS:${name}`]);
  const [leaf = '', next = ''] = pemBlocks(chain);
  expect(next.trim()).toBe(signer.trim());
  expect(verifyChain(leaf, other).ok).toBe(false);
}

/** A GET of an ACME resource: its status and problem document (or body). */
async function get(path: string) {
  const res = await fetch(`${svc.url}/v1/pki/${path}`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  svc = await startAcmeService(NAMES);
  web = await startChallengeHttpServer('127.0.0.1', svc.httpPort);
  defaultPem = svc.caPem;
  const second = await must('POST', 'pki/issuers/generate/root/internal', {
    common_name: 'ACME Second Root',
    issuer_name: 'second',
    key_type: 'ec',
    ttl: '8760h',
  });
  secondPem = second.data.certificate as string;
  secondId = second.data.issuer_id as string;
  // The mount's default stays the first root.
  expect((await must('GET', 'pki/config/issuers')).data.default).not.toBe(secondId);
  // An issuer without a key here: pki_int's root, its certificate imported alone.
  const other = await must('POST', 'pki_int/root/generate/internal', { common_name: 'Keyless Root', key_type: 'ec', ttl: '8760h' });
  const imported = await must('POST', 'pki/issuers/import/cert', { pem_bundle: other.data.certificate });
  const keylessId = (imported.data.imported_issuers as string[])[0]!;
  await must('POST', `pki/issuer/${keylessId}`, { issuer_name: 'keyless' });
  await must('POST', 'pki/roles/pinned', { allowed_domains: 'acme.test', allow_subdomains: true, key_type: 'any', issuer_ref: 'second' });
});

afterAll(async () => {
  await web?.close();
  await svc?.close();
});

describe('ACME through an issuer', () => {
  it("serves the issuer's directory with its own URLs (by name and by id)", async () => {
    for (const ref of ['second', secondId]) {
      const d = await get(`issuer/${ref}/acme/directory`);
      expect(d.status).toBe(200);
      const base = `${svc.url}/v1/pki/issuer/${ref}/acme`;
      expect(d.body).toMatchObject({
        newNonce: `${base}/new-nonce`,
        newAccount: `${base}/new-account`,
        newOrder: `${base}/new-order`,
        revokeCert: `${base}/revoke-cert`,
        keyChange: `${base}/key-change`,
      });
    }
    const roleDir = await get('issuer/second/roles/acme/acme/directory');
    expect(roleDir.body.newOrder).toBe(`${svc.url}/v1/pki/issuer/second/roles/acme/acme/new-order`);
  });

  it('issues through issuer/second/acme/: the certificate chains to second, not to the default', async () => {
    const chain = await obtain(dir('issuer/second/'), 'a.acme.test');
    expectSignedBy(chain, secondPem, defaultPem, 'a.acme.test');
  });

  it('issues through the issuer id as the reference, with account URLs under it', async () => {
    const client = await newClient(dir(`issuer/${secondId}/`));
    await client.createAccount({ termsOfServiceAgreed: true });
    expect(client.getAccountUrl()).toMatch(new RegExp(`^${svc.url}/v1/pki/issuer/${secondId}/acme/account/`));
    expectSignedBy(await obtain(dir(`issuer/${secondId}/`), 'b.acme.test'), secondPem, defaultPem, 'b.acme.test');
  });

  it("issues through a role's directory under the issuer, with the role's rules", async () => {
    const chain = await obtain(dir('issuer/second/roles/acme/'), 'c.acme.test');
    expectSignedBy(chain, secondPem, defaultPem, 'c.acme.test');
    // The role acme's max_ttl is 72h.
    const leaf = new (await import('node:crypto')).X509Certificate(pemBlocks(chain)[0]!);
    expect(Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)).toBeLessThanOrEqual(72 * 3600_000 + 60_000);
  });

  it("signs through the role's issuer_ref in the role's own directory, and the default issuer in the mount's", async () => {
    expectSignedBy(await obtain(dir('roles/pinned/'), 'd.acme.test'), secondPem, defaultPem, 'd.acme.test');
    expectSignedBy(await obtain(svc.directory, 'e.acme.test'), defaultPem, secondPem, 'e.acme.test');
  });

  it('refuses an unknown issuer (404) and one without a key in the mount (403), as problem documents', async () => {
    const unknown = await get('issuer/nope/acme/directory');
    expect(unknown).toMatchObject({ status: 404, body: { type: 'urn:ietf:params:acme:error:malformed' } });
    expect(unknown.type).toMatch(/application\/problem\+json/);
    expect(unknown.body.detail).toMatch(/issuer "nope" not found/);
    const keyless = await get('issuer/keyless/acme/directory');
    expect(keyless).toMatchObject({ status: 403, body: { type: 'urn:ietf:params:acme:error:unauthorized' } });
    expect(keyless.body.detail).toMatch(/cannot issue certificates/);
  });
});

describe('config/acme allowed_issuers', () => {
  it('refuses a config naming no issuer of the mount, "*" beside names, and an empty list', async () => {
    for (const allowed of [['nope'], ['*', 'second'], []]) {
      const r = await svc.api('POST', 'pki/config/acme', { allowed_issuers: allowed });
      expect(r.status, JSON.stringify(allowed)).toBe(400);
    }
    expect((await must('GET', 'pki/config/acme')).data.allowed_issuers).toEqual(['*']);
  });

  it("answers only the allowed issuer's directories, the default directory's issuer included", async () => {
    const w = await must('POST', 'pki/config/acme', { allowed_issuers: ['second'] });
    expect(w.data.allowed_issuers).toEqual(['second']);
    try {
      for (const path of ['acme/directory', 'issuer/default/acme/directory', 'roles/acme/acme/directory', 'acme/new-nonce']) {
        const r = await get(path);
        expect(r.status, path).toBe(403);
        expect(r.body).toMatchObject({ type: 'urn:ietf:params:acme:error:unauthorized' });
        expect(r.body.detail).toMatch(/is not allowed for ACME \(config\/acme allowed_issuers\)/);
      }
      await expect(obtain(svc.directory, 'f.acme.test')).rejects.toThrow(/ACME directory returned error 403/);
      // The allowed issuer's directories, and the role pinned to it, still issue.
      expectSignedBy(await obtain(dir('issuer/second/'), 'f.acme.test'), secondPem, defaultPem, 'f.acme.test');
      expect((await get('roles/pinned/acme/directory')).status).toBe(200);
      // By id in the list, the same issuer.
      await must('POST', 'pki/config/acme', { allowed_issuers: [secondId] });
      expect((await get('issuer/second/acme/directory')).status).toBe(200);
      expect((await get('acme/directory')).status).toBe(403);
    } finally {
      await must('POST', 'pki/config/acme', { allowed_issuers: ['*'] });
    }
    expect((await get('acme/directory')).status).toBe(200);
  });
});

describe('external account bindings per issuer directory', () => {
  it("binds an account in the issuer's directory with its own key, and refuses one made for another directory", async () => {
    const forSecond = (await must('POST', 'pki/issuer/second/acme/new-eab')).data;
    expect(forSecond.acme_directory).toBe('issuer/second/acme/directory');
    const forDefault = (await must('POST', 'pki/acme/new-eab')).data;
    expect((await svc.api('POST', 'pki/issuer/nope/acme/new-eab')).status).toBe(400);
    await must('POST', 'pki/config/acme', { eab_policy: 'new-account-required' });
    try {
      const eab = (e: Record<string, unknown>) => ({ externalAccountBinding: { kid: e.id as string, hmacKey: e.key as string } });
      const bound = await newClient(dir('issuer/second/'), eab(forSecond));
      await bound.createAccount({ termsOfServiceAgreed: true });
      expect(bound.getAccountUrl()).toMatch(new RegExp(`^${svc.url}/v1/pki/issuer/second/acme/account/`));
      const wrong = await newClient(dir('issuer/second/'), eab(forDefault));
      await expect(wrong.createAccount({ termsOfServiceAgreed: true })).rejects.toThrow(/unknown or used external account binding/);
      await expect((await newClient(dir('issuer/second/'))).createAccount({ termsOfServiceAgreed: true })).rejects.toThrow(
        /external account binding/,
      );
    } finally {
      await must('POST', 'pki/config/acme', { eab_policy: 'not-required' });
    }
  });
});
