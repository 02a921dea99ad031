/**
 * tls-alpn-01 validation against real TLS servers on loopback presenting certificates made
 * here: the success for dns and ip identifiers (SNI the name, or the reverse-DNS name), and each
 * way the handshake or the certificate fails.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { validateChallenge, type ValidationOutcome } from '../../../../lib/pki/acme/validate';
import { startDnsFake, type DnsFake } from '../../../fakes/dns/server';
import { alpnCertificate, startAlpnServer, type AlpnCertOptions, type AlpnServer } from '../../../helpers/acme-challenge';
import { freePort } from '../../../helpers/local-child';

const KEY_AUTH = 'tok-alpn.thumbprint-of-the-account-key';
const URN = 'urn:ietf:params:acme:error:';

let dns: DnsFake;
let server: AlpnServer | undefined;

beforeAll(async () => {
  dns = await startDnsFake({ zones: ['acme.test'], records: [{ name: 'a.acme.test', type: 'A', value: '127.0.0.1' }] });
});

afterAll(() => dns.close());

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Serves a certificate made with `o` (over the defaults for a.acme.test) and validates `value` against it. */
async function alpn(
  o: Partial<AlpnCertOptions>,
  protocols: string[] | null = ['acme-tls/1'],
  value = 'a.acme.test',
): Promise<ValidationOutcome> {
  const cert = await alpnCertificate({ names: ['dns:a.acme.test'], keyAuthorization: KEY_AUTH, ...o });
  server = await startAlpnServer(cert, protocols);
  const id = { type: /^[\d.]+$/.test(value) ? ('ip' as const) : ('dns' as const), value };
  return validateChallenge('tls-alpn-01', id, 'tok-alpn', KEY_AUTH, { resolver: dns.address, httpPort: 1, tlsPort: server.port });
}

describe('tls-alpn-01', () => {
  it('succeeds with the certificate RFC 8737 describes, SNI the name', async () => {
    expect(await alpn({})).toEqual({ ok: true });
    expect(server!.servernames).toEqual(['a.acme.test']);
  });

  it('succeeds for an ip identifier, SNI its reverse-DNS name (RFC 8738)', async () => {
    expect(await alpn({ names: ['ip:127.0.0.1'] }, undefined, '127.0.0.1')).toEqual({ ok: true });
    expect(server!.servernames).toEqual(['1.0.0.127.in-addr.arpa']);
  });

  it('answers incorrectResponse when the extension holds another digest', async () => {
    const o = await alpn({ digest: createHash('sha256').update('another key authorization').digest() });
    expect(o).toEqual({
      ok: false,
      type: `${URN}incorrectResponse`,
      detail: 'tls-alpn-01: the acmeIdentifier extension does not hold the key authorization digest',
    });
  });

  it('answers unauthorized for a non-critical or missing extension', async () => {
    expect(await alpn({ critical: false })).toMatchObject({
      ok: false,
      type: `${URN}unauthorized`,
      detail: 'tls-alpn-01: the acmeIdentifier extension is not critical',
    });
    await server!.close();
    expect(await alpn({ omitExtension: true })).toMatchObject({
      detail: 'tls-alpn-01: the certificate presented has no acmeIdentifier extension',
    });
  });

  it('answers unauthorized unless the only subjectAltName is the identifier', async () => {
    expect(await alpn({ names: ['dns:a.acme.test', 'dns:b.acme.test'] })).toMatchObject({
      type: `${URN}unauthorized`,
      detail: 'tls-alpn-01: the certificate presented has 2 subjectAltNames (exactly one, a.acme.test, is required)',
    });
    await server!.close();
    expect(await alpn({ names: ['dns:b.acme.test'] })).toMatchObject({
      detail: 'tls-alpn-01: the certificate presented does not name a.acme.test',
    });
    await server!.close();
    expect(await alpn({ names: ['ip:127.0.0.2'] }, undefined, '127.0.0.1')).toMatchObject({
      detail: 'tls-alpn-01: the certificate presented does not name 127.0.0.1',
    });
  });

  it('answers tls when acme-tls/1 is not negotiated', async () => {
    const noAlpn = await alpn({}, null);
    expect(noAlpn).toEqual({
      ok: false,
      type: `${URN}tls`,
      detail: `tls-alpn-01: 127.0.0.1:${server!.port} did not negotiate ALPN acme-tls/1`,
    });
    await server!.close();
    const other = await alpn({}, ['h2']);
    expect(other).toMatchObject({
      ok: false,
      type: `${URN}tls`,
      detail: expect.stringMatching(/^tls-alpn-01: the TLS handshake with 127\.0\.0\.1:\d+ failed/),
    });
  });

  it('answers connection when nothing listens, and dns when the name has no address', async () => {
    const port = await freePort();
    const id = { type: 'dns' as const, value: 'a.acme.test' };
    expect(await validateChallenge('tls-alpn-01', id, 't', KEY_AUTH, { resolver: dns.address, httpPort: 1, tlsPort: port })).toEqual({
      ok: false,
      type: `${URN}connection`,
      detail: `tls-alpn-01: connection refused on 127.0.0.1:${port}`,
    });
    const nobody = { type: 'dns' as const, value: 'nobody.acme.test' };
    expect(
      await validateChallenge('tls-alpn-01', nobody, 't', KEY_AUTH, { resolver: dns.address, httpPort: 1, tlsPort: port }),
    ).toMatchObject({
      type: `${URN}dns`,
    });
  });
});
