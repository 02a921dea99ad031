/** The validators' lookups: through the configured resolver (the DNS fake) or the system resolver. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressesOf, txtOf } from '../../../../lib/pki/acme/validate/resolve';
import { startDnsFake, type DnsFake } from '../../../fakes/dns/server';

let dns: DnsFake;
const ctx = (resolver?: string) => ({
  settings: { httpPort: 80, tlsPort: 443, ...(resolver ? { resolver } : {}) },
  signal: AbortSignal.timeout(5000),
});

beforeAll(async () => {
  dns = await startDnsFake({ zones: ['acme.test'] });
  dns.set('two.acme.test', 'A', ['127.0.0.2', '127.0.0.3']);
  dns.set('two.acme.test', 'AAAA', ['::1']);
  dns.set('_acme-challenge.two.acme.test', 'TXT', ['y'.repeat(300), 'short']);
});

afterAll(() => dns.close());

describe('validation lookups', () => {
  it('answers one IPv6 then one IPv4 address, from the configured resolver', async () => {
    expect(await addressesOf('two.acme.test', 'test', ctx(dns.address))).toEqual({ ok: true, value: ['::1', '127.0.0.2'] });
  });

  it('answers an IP address as itself, with no lookup', async () => {
    dns.queries.length = 0;
    expect(await addressesOf('192.0.2.7', 'test', ctx(dns.address))).toEqual({ ok: true, value: ['192.0.2.7'] });
    expect(dns.queries).toEqual([]);
  });

  it('uses the system resolver when none is configured', async () => {
    expect(await addressesOf('localhost', 'test', ctx())).toMatchObject({ ok: true, value: expect.arrayContaining(['127.0.0.1']) });
  });

  it('joins the strings of each TXT record, and answers no records as an empty list', async () => {
    const found = await txtOf('_acme-challenge.two.acme.test', 'test', ctx(dns.address));
    expect(found.ok && [...found.value].sort()).toEqual(['short', 'y'.repeat(300)]);
    expect(await txtOf('_acme-challenge.none.acme.test', 'test', ctx(dns.address))).toEqual({ ok: true, value: [] });
  });
});
