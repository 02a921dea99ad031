/**
 * The npm `acme-client` library (unmodified) against the ACME server of a local Latchkey: an
 * account, orders answered with each challenge type (http-01 on ACME_HTTP_PORT, dns-01 in the
 * DNS fake, tls-alpn-01 on ACME_TLS_PORT with the library's own certificate), an ip identifier,
 * renewal, revocation, account key rollover (updateAccountKey), and a challenge answered wrongly.
 * Every chain passes openssl verify against the mount's CA.
 */
import acme from 'acme-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIssued, crlSerials, startAcmeService, type AcmeService } from '../../helpers/acme';
import { startAlpnServer, startChallengeHttpServer, type ChallengeHttpServer } from '../../helpers/acme-challenge';

type ChallengeType = 'http-01' | 'dns-01' | 'tls-alpn-01';

let svc: AcmeService;
let web: ChallengeHttpServer;
let accountKey: Buffer;
let client: acme.Client;
/** A certificate for g.acme.test, kept for renewal and revocation. */
let first: string;

const newClient = (key: Buffer, o: Partial<acme.ClientOptions> = {}) =>
  new acme.Client({ directoryUrl: svc.directory, accountKey: key, backoffAttempts: 5, backoffMin: 200, backoffMax: 1000, ...o });

beforeAll(async () => {
  svc = await startAcmeService(['g.acme.test', 'i.acme.test', 'k.acme.test']);
  web = await startChallengeHttpServer('127.0.0.1', svc.httpPort);
  accountKey = await acme.crypto.createPrivateEcdsaKey('P-256');
  client = newClient(accountKey);
});

afterAll(async () => {
  await web?.close();
  await svc?.close();
});

/** Puts the answer to `challenge` where the server will look, and answers how to take it away. */
async function present(
  authz: acme.Authorization,
  challenge: { type: string; token: string },
  keyAuthorization: string,
): Promise<() => Promise<void>> {
  const name = authz.identifier.value;
  if (challenge.type === 'http-01') {
    web.answers.set(challenge.token, keyAuthorization);
    return async () => void web.answers.delete(challenge.token);
  }
  if (challenge.type === 'dns-01') {
    svc.dns.add(`_acme-challenge.${name}`, 'TXT', keyAuthorization);
    return async () => svc.dns.remove(`_acme-challenge.${name}`, 'TXT', keyAuthorization);
  }
  const [keyPem, certPem] = await acme.crypto.createAlpnCertificate(authz, keyAuthorization);
  const server = await startAlpnServer(
    { certPem: certPem.toString(), keyPem: keyPem.toString() },
    ['acme-tls/1'],
    '127.0.0.1',
    svc.tlsPort,
  );
  return () => server.close();
}

/** One order through the library's step-by-step API, each authorization answered with `type`. */
async function obtain(c: acme.Client, names: string[], type: ChallengeType): Promise<string> {
  const identifiers = names.map((value) => ({ type: /^[\d.]+$/.test(value) ? 'ip' : 'dns', value }));
  const order = await c.createOrder({ identifiers });
  for (const authz of await c.getAuthorizations(order)) {
    const challenge = authz.challenges.find((ch) => ch.type === type);
    if (!challenge) throw new Error(`no ${type} challenge offered for ${authz.identifier.value}`);
    const remove = await present(authz, challenge, await c.getChallengeKeyAuthorization(challenge));
    try {
      await c.completeChallenge(challenge);
      await c.waitForValidStatus(challenge);
    } finally {
      await remove();
    }
  }
  const [, csr] = await acme.crypto.createCsr({ commonName: names[0], altNames: names });
  const finalized = await c.finalizeOrder(order, csr);
  return c.getCertificate(finalized);
}

function expectIssued(chain: string, sans: string[]) {
  const issued = checkIssued(chain, svc.caPem);
  expect(issued.verify).toMatchObject({ ok: true });
  expect(issued.sans).toEqual(sans);
  return issued;
}

describe('acme-client', () => {
  it('creates an account with an ES256 key, then finds it again with onlyReturnExisting', async () => {
    const account = await client.createAccount({ termsOfServiceAgreed: true, contact: ['mailto:ops@acme.test'] });
    expect(account).toMatchObject({ status: 'valid', contact: ['mailto:ops@acme.test'] });
    expect(client.getAccountUrl()).toMatch(new RegExp(`^${svc.url}/v1/pki/acme/account/`));
    const again = newClient(accountKey);
    await again.createAccount({ onlyReturnExisting: true });
    expect(again.getAccountUrl()).toBe(client.getAccountUrl());
  });

  it('obtains a certificate through http-01', async () => {
    first = await obtain(client, ['g.acme.test'], 'http-01');
    expectIssued(first, ['DNS:g.acme.test']);
    expect(web.hosts).toContain(`g.acme.test:${svc.httpPort}`);
  });

  it('obtains a wildcard certificate through dns-01', async () => {
    expectIssued(await obtain(client, ['h.acme.test', '*.h.acme.test'], 'dns-01'), ['DNS:*.h.acme.test', 'DNS:h.acme.test']);
  });

  it('obtains a certificate through tls-alpn-01', async () => {
    expectIssued(await obtain(client, ['i.acme.test'], 'tls-alpn-01'), ['DNS:i.acme.test']);
  });

  it('obtains a certificate for an ip identifier through http-01', async () => {
    expectIssued(await obtain(client, ['127.0.0.1'], 'http-01'), ['IP Address:127.0.0.1']);
  });

  it('renews: a second order for the same name (auto) gives a new certificate', async () => {
    const [, csr] = await acme.crypto.createCsr({ commonName: 'g.acme.test', altNames: ['g.acme.test'] });
    const renewed = await client.auto({
      csr,
      termsOfServiceAgreed: true,
      skipChallengeVerification: true,
      challengePriority: ['http-01'],
      challengeCreateFn: async (_authz, ch, keyAuthorization) => void web.answers.set(ch.token, keyAuthorization),
      challengeRemoveFn: async (_authz, ch) => void web.answers.delete(ch.token),
    });
    const issued = expectIssued(renewed, ['DNS:g.acme.test']);
    expect(issued.serial).not.toBe(checkIssued(first, svc.caPem).serial);
  });

  it('revokes a certificate; the serial lands on the CRL, and a second revocation is refused', async () => {
    await client.revokeCertificate(first);
    expect(await crlSerials(svc)).toContain(checkIssued(first, svc.caPem).serial);
    await expect(client.revokeCertificate(first)).rejects.toThrow(/revoked/i);
  });

  it('rolls the account key over (updateAccountKey): the new ES384 key holds the account, the old one no longer does', async () => {
    const newKey = await acme.crypto.createPrivateEcdsaKey('P-384');
    await client.updateAccountKey(newKey);
    const withNew = newClient(newKey);
    await withNew.createAccount({ onlyReturnExisting: true });
    expect(withNew.getAccountUrl()).toBe(client.getAccountUrl());
    await expect(newClient(accountKey).createAccount({ onlyReturnExisting: true })).rejects.toThrow(/account/i);
    expectIssued(await obtain(withNew, ['k.acme.test'], 'http-01'), ['DNS:k.acme.test']);
  });

  it('sees the authorization invalid when the challenge is answered wrongly', async () => {
    const c = newClient(await acme.crypto.createPrivateRsaKey(2048));
    await c.createAccount({ termsOfServiceAgreed: true });
    const order = await c.createOrder({ identifiers: [{ type: 'dns', value: 'g.acme.test' }] });
    const [authz] = await c.getAuthorizations(order);
    const challenge = authz!.challenges.find((ch) => ch.type === 'http-01')!;
    web.answers.set(challenge.token, 'not the key authorization');
    const answered = await c.completeChallenge(challenge);
    web.answers.delete(challenge.token);
    expect(answered).toMatchObject({ status: 'invalid', error: { type: 'urn:ietf:params:acme:error:incorrectResponse' } });
    const [after] = await c.getAuthorizations(await c.getOrder(order));
    expect(after!.status).toBe('invalid');
    expect((await c.getOrder(order)).status).toBe('invalid');
  });
});
