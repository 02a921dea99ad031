/**
 * http-01 validation against real local servers: names resolved through the DNS fake (the
 * config/acme dns_resolver path) or the system resolver, the success and each way it fails.
 */
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateChallenge, type ValidationOutcome, type ValidationSettings } from '../../../../lib/pki/acme/validate';
import { startDnsFake, type DnsFake } from '../../../fakes/dns/server';
import { startChallengeHttpServer, type ChallengeHttpServer } from '../../../helpers/acme-challenge';
import { freePort } from '../../../helpers/local-child';
import { localhostTls } from '../../../helpers/pki-cert';

const TOKEN = 'tok_http01-AbC';
const KEY_AUTH = `${TOKEN}.thumbprint-of-the-account-key`;
const URN = 'urn:ietf:params:acme:error:';

let dns: DnsFake;
let web: ChallengeHttpServer;
let https: HttpsServer;
let httpsPort: number;
let closedPort: number;
let settings: ValidationSettings;

const http01 = (name: string, s: Partial<ValidationSettings> = {}, type: 'dns' | 'ip' = 'dns') =>
  validateChallenge('http-01', { type, value: name }, TOKEN, KEY_AUTH, { ...settings, ...s });

/** A failure's type and detail, checked to carry neither the token nor the key authorization. */
function failure(o: ValidationOutcome): { type: string; detail: string } {
  expect(o.ok).toBe(false);
  const f = o as { type: string; detail: string };
  expect(f.detail).not.toContain(TOKEN);
  expect(f.detail).not.toContain(KEY_AUTH);
  return f;
}

beforeAll(async () => {
  dns = await startDnsFake({ zones: ['acme.test'] });
  web = await startChallengeHttpServer();
  const tls = await localhostTls();
  https = createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    res.writeHead(200).end(req.url?.endsWith(TOKEN) ? `${KEY_AUTH}\n` : 'nope');
  });
  await new Promise<void>((r) => https.listen(0, '127.0.0.1', () => r()));
  httpsPort = (https.address() as AddressInfo).port;
  closedPort = await freePort();
  settings = { resolver: dns.address, httpPort: web.port, tlsPort: httpsPort };
});

afterAll(async () => {
  await Promise.all([dns.close(), web.close(), new Promise((r) => https.close(r))]);
});

beforeEach(() => {
  dns.clear();
  dns.add('a.acme.test', 'A', '127.0.0.1');
  dns.add('b.acme.test', 'A', '127.0.0.1');
  web.answers.clear();
  web.answers.set(TOKEN, `${KEY_AUTH}\r\n`);
  web.hosts.length = 0;
  web.handler = undefined;
  dns.queries.length = 0;
});

describe('http-01', () => {
  it('succeeds when the body (trailing whitespace trimmed) is the key authorization, asking the configured resolver with the name as Host', async () => {
    expect(await http01('a.acme.test')).toEqual({ ok: true });
    expect(web.hosts).toEqual([`a.acme.test:${web.port}`]);
    expect(dns.queries.map((q) => `${q.name} ${q.type}`).sort()).toEqual(['a.acme.test A', 'a.acme.test AAAA']);
  });

  it('uses an ip identifier as the address, with no lookup', async () => {
    expect(await http01('127.0.0.1', {}, 'ip')).toEqual({ ok: true });
    expect(web.hosts).toEqual([`127.0.0.1:${web.port}`]);
    expect(dns.queries).toEqual([]);
  });

  it('uses the system resolver when no dns_resolver is set', async () => {
    expect(await http01('localhost', { resolver: undefined })).toEqual({ ok: true });
    expect(dns.queries).toEqual([]);
  });

  it('falls back to the IPv4 address when the IPv6 one refuses the connection', async () => {
    dns.add('a.acme.test', 'AAAA', '::1');
    expect(await http01('a.acme.test')).toEqual({ ok: true });
  });

  it('answers incorrectResponse for a body that is not the key authorization', async () => {
    web.answers.set(TOKEN, `${KEY_AUTH}x`);
    const f = failure(await http01('a.acme.test'));
    expect(f.type).toBe(`${URN}incorrectResponse`);
    expect(f.detail).toBe(
      `http-01: http://a.acme.test:${web.port}/.well-known/acme-challenge/<token> answered a body that is not the key authorization`,
    );
  });

  it('answers unauthorized for a status other than 200', async () => {
    web.answers.clear();
    const f = failure(await http01('a.acme.test'));
    expect(f).toEqual({ ok: false, type: `${URN}unauthorized`, detail: expect.stringMatching(/acme-challenge\/<token> answered 404$/) });
  });

  it('answers connection when nothing listens on the port', async () => {
    const f = failure(await http01('a.acme.test', { httpPort: closedPort }));
    expect(f).toEqual({ ok: false, type: `${URN}connection`, detail: `http-01: connection refused on 127.0.0.1:${closedPort}` });
  });

  it('answers dns for a name with no address, and for a lookup the resolver refuses', async () => {
    expect(failure(await http01('nobody.acme.test'))).toEqual({
      ok: false,
      type: `${URN}dns`,
      detail: 'http-01: no A or AAAA record for nobody.acme.test',
    });
    const refused = failure(await http01('elsewhere.example'));
    expect(refused).toEqual({ ok: false, type: `${URN}dns`, detail: 'http-01: the A/AAAA lookup of elsewhere.example failed (EREFUSED)' });
  });

  it('answers dns when dns_resolver is not an address', async () => {
    const f = failure(await http01('a.acme.test', { resolver: 'resolver.example:53' }));
    expect(f.type).toBe(`${URN}dns`);
    expect(f.detail).toMatch(/dns_resolver is not an address/);
  });

  it('caps the body at 64 KiB', async () => {
    web.answers.set(TOKEN, 'x'.repeat(65 * 1024));
    expect(failure(await http01('a.acme.test')).detail).toMatch(/answered more than 64 KiB$/);
  });

  it('ends with the budget when the server never answers', async () => {
    web.handler = () => {};
    // An ip identifier: no lookup to spend the budget on, so it ends while waiting for the answer.
    const f = failure(await http01('127.0.0.1', { timeoutMs: 300 }, 'ip'));
    expect(f).toEqual({ ok: false, type: `${URN}connection`, detail: expect.stringMatching(/did not answer in time/) });
  });

  it('refuses a token that is not base64url', async () => {
    const o = await validateChallenge('http-01', { type: 'dns', value: 'a.acme.test' }, '../x', KEY_AUTH, settings);
    expect(o).toEqual({ ok: false, type: `${URN}malformed`, detail: 'http-01: the token is not base64url' });
  });
});

describe('http-01 redirects', () => {
  const redirectTo = (location: (path: string) => string) => {
    web.handler = (req, res) => {
      if (req.headers.host?.startsWith('b.acme.test')) return res.writeHead(200).end(KEY_AUTH);
      res.writeHead(302, { location: location(req.url ?? '') }).end();
    };
  };

  it('follows a redirect to another name on the http port, resolving it through the same resolver', async () => {
    redirectTo((path) => `http://b.acme.test:${web.port}${path}`);
    expect(await http01('a.acme.test')).toEqual({ ok: true });
    expect(web.hosts).toEqual([`a.acme.test:${web.port}`, `b.acme.test:${web.port}`]);
    expect(dns.queries.map((q) => q.name)).toContain('b.acme.test');
  });

  it('follows a redirect to https on the TLS port (its certificate unchecked)', async () => {
    redirectTo((path) => `https://a.acme.test:${httpsPort}${path}`);
    expect(await http01('a.acme.test')).toEqual({ ok: true });
  });

  it('refuses a redirect to another port or scheme', async () => {
    redirectTo(() => `http://b.acme.test:${closedPort}/x`);
    const f = failure(await http01('a.acme.test'));
    expect(f.type).toBe(`${URN}unauthorized`);
    expect(f.detail).toMatch(
      new RegExp(`redirected to http://b.acme.test:${closedPort} \\(only http on port ${web.port} and https on port ${httpsPort}`),
    );
    redirectTo(() => 'ftp://b.acme.test/x');
    expect(failure(await http01('a.acme.test')).detail).toMatch(/redirected to a ftp URL/);
  });

  it('stops after 10 redirects', async () => {
    web.handler = (req, res) => res.writeHead(301, { location: req.url ?? '/' }).end();
    const f = failure(await http01('a.acme.test'));
    expect(f.type).toBe(`${URN}unauthorized`);
    expect(f.detail).toMatch(/more than 10 redirects/);
    expect(web.hosts).toHaveLength(11);
  });
});
