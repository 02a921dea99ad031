/** dns-01 validation against the DNS fake (the config/acme dns_resolver path): the success and each way it fails. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dns01Value, validateChallenge, type ValidationSettings } from '../../../../lib/pki/acme/validate';
import { startDnsFake, type DnsFake } from '../../../fakes/dns/server';
import { freePort } from '../../../helpers/local-child';

const KEY_AUTH = 'tok-dns01.thumbprint-of-the-account-key';
const URN = 'urn:ietf:params:acme:error:';
const NAME = '_acme-challenge.a.acme.test';

let dns: DnsFake;
let settings: ValidationSettings;

const dns01 = (value: string, s: Partial<ValidationSettings> = {}, type: 'dns' | 'ip' = 'dns') =>
  validateChallenge('dns-01', { type, value }, 'tok-dns01', KEY_AUTH, { ...settings, ...s });

beforeAll(async () => {
  dns = await startDnsFake({ zones: ['acme.test'] });
  settings = { resolver: dns.address, httpPort: 1, tlsPort: 1 };
});

afterAll(() => dns.close());

beforeEach(() => {
  dns.clear();
  dns.queries.length = 0;
});

describe('dns-01', () => {
  it('expects base64url(SHA-256(key authorization))', () => {
    expect(dns01Value(KEY_AUTH)).toBe(createHash('sha256').update(KEY_AUTH).digest('base64url'));
    expect(dns01Value(KEY_AUTH)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('succeeds when one of several TXT records matches, asking the configured resolver', async () => {
    dns.set(NAME, 'TXT', ['something else', dns01Value(KEY_AUTH), 'a third']);
    expect(await dns01('a.acme.test')).toEqual({ ok: true });
    expect(dns.queries).toEqual([{ name: NAME, type: 'TXT', transport: 'udp' }]);
  });

  it('answers unauthorized when there is no TXT record', async () => {
    expect(await dns01('a.acme.test')).toEqual({ ok: false, type: `${URN}unauthorized`, detail: `dns-01: no TXT record at ${NAME}` });
  });

  it('answers incorrectResponse when no record matches, without echoing the expected value', async () => {
    dns.set(NAME, 'TXT', ['stale', `${dns01Value(KEY_AUTH)} `]);
    const o = await dns01('a.acme.test');
    expect(o).toEqual({ ok: false, type: `${URN}incorrectResponse`, detail: `dns-01: no TXT record at ${NAME} matched (2 records found)` });
    expect(JSON.stringify(o)).not.toContain(dns01Value(KEY_AUTH));
  });

  it('refuses an ip identifier', async () => {
    expect(await dns01('127.0.0.1', {}, 'ip')).toEqual({
      ok: false,
      type: `${URN}unauthorized`,
      detail: 'dns-01: an ip identifier cannot be validated with dns-01',
    });
    expect(dns.queries).toEqual([]);
  });

  it('answers dns when the resolver refuses the lookup or does not answer', async () => {
    expect(await dns01('a.example')).toEqual({
      ok: false,
      type: `${URN}dns`,
      detail: 'dns-01: the TXT lookup of _acme-challenge.a.example failed (EREFUSED)',
    });
    const silent = `127.0.0.1:${await freePort()}`;
    const o = await dns01('a.acme.test', { resolver: silent, timeoutMs: 1500 });
    expect(o).toEqual({
      ok: false,
      type: `${URN}dns`,
      detail: expect.stringMatching(/^dns-01: the TXT lookup of _acme-challenge\.a\.acme\.test failed \(E[A-Z]+\)$/),
    });
  });

  it('takes the resolver as "ip:port" or "[ipv6]:port"', async () => {
    dns.add(NAME, 'TXT', dns01Value(KEY_AUTH));
    expect(await dns01('a.acme.test', { resolver: ` ${dns.address} ` })).toEqual({ ok: true });
    expect(await dns01('a.acme.test', { resolver: '[::1' })).toMatchObject({ ok: false, type: `${URN}dns` });
  });
});
