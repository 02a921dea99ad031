/**
 * The DNS fake, driven by real clients: node's dns.Resolver (c-ares, UDP with its own fallback to
 * TCP on a truncated answer) and dig (BIND's, over UDP and TCP), its records changed through the
 * programmatic API, the HTTP control endpoint and hook.mjs as certbot and lego run it.
 */
import { execFile } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDnsFake, type DnsFake } from './server';

const run = promisify(execFile);
const HOOK = join(import.meta.dirname, 'hook.mjs');

let fake: DnsFake;
let resolver: Resolver;

beforeAll(async () => {
  fake = await startDnsFake({ zones: ['acme.test', 'other.test'] });
  resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([fake.address]);
});

afterAll(() => fake.close());

beforeEach(() => {
  fake.clear();
  fake.queries.length = 0;
});

/** dig's answer: its status, flags, and the answer and authority sections as text. */
async function dig(name: string, type: string, ...opts: string[]) {
  const { stdout } = await run('dig', [`@${fake.host}`, '-p', String(fake.port), name, type, '+time=2', '+tries=1', ...opts]);
  const status = /status: (\w+)/.exec(stdout)?.[1];
  const flags = /;; flags: ([a-z ]+);/.exec(stdout)?.[1]?.split(' ') ?? [];
  const sections = new Map([...stdout.matchAll(/;; (\w+) SECTION:\n([\s\S]*?)(?:\n\n|$)/g)].map((m) => [m[1]!, m[2]!]));
  return { status, flags, answer: sections.get('ANSWER') ?? '', authority: sections.get('AUTHORITY') ?? '', raw: stdout };
}

describe('node dns.Resolver', () => {
  it('resolves A, AAAA and several TXT values of one name', async () => {
    fake.add('a.acme.test', 'A', '127.0.0.1');
    fake.add('a.acme.test', 'A', '127.0.0.2');
    fake.add('a.acme.test', 'AAAA', '::1');
    fake.add('_acme-challenge.a.acme.test', 'TXT', 'first');
    fake.add('_acme-challenge.a.acme.test', 'TXT', 'second');
    expect((await resolver.resolve4('a.acme.test')).sort()).toEqual(['127.0.0.1', '127.0.0.2']);
    expect(await resolver.resolve6('A.Acme.Test')).toEqual(['::1']);
    const txt = await resolver.resolveTxt('_acme-challenge.a.acme.test');
    expect(txt.map((chunks) => chunks.join('')).sort()).toEqual(['first', 'second']);
  });

  it('answers NXDOMAIN for an unknown name and NODATA for a known name without the type', async () => {
    fake.add('b.acme.test', 'A', '127.0.0.1');
    await expect(resolver.resolve4('nobody.acme.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveTxt('b.acme.test')).rejects.toMatchObject({ code: 'ENODATA' });
  });

  it('refuses a name outside its zones', async () => {
    await expect(resolver.resolve4('example.com')).rejects.toMatchObject({ code: 'EREFUSED' });
  });

  it('splits a long TXT value into 255-byte strings', async () => {
    const long = 'x'.repeat(300);
    fake.add('long.acme.test', 'TXT', long);
    const [chunks] = await resolver.resolveTxt('long.acme.test');
    expect(chunks!.map((c) => c.length)).toEqual([255, 45]);
    expect(chunks!.join('')).toBe(long);
  });

  it('answers an answer too long for UDP truncated, and in full over TCP', async () => {
    const values = Array.from({ length: 12 }, (_, i) => `${i}-${'v'.repeat(60)}`);
    fake.set('many.acme.test', 'TXT', values);
    const txt = await resolver.resolveTxt('many.acme.test');
    expect(txt.map((c) => c.join('')).sort()).toEqual([...values].sort());
    expect(fake.queries.map((q) => q.transport)).toContain('tcp');
  });

  it('sees a change at once (TTL 0) and logs each question', async () => {
    fake.add('c.acme.test', 'TXT', 'one');
    expect(await resolver.resolveTxt('c.acme.test')).toEqual([['one']]);
    fake.set('c.acme.test', 'TXT', ['two']);
    expect(await resolver.resolveTxt('c.acme.test')).toEqual([['two']]);
    fake.remove('c.acme.test', 'TXT');
    await expect(resolver.resolveTxt('c.acme.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(fake.queries.map((q) => `${q.name} ${q.type}`)).toEqual(Array(3).fill('c.acme.test TXT'));
  });
});

describe('dig', () => {
  it('gets an authoritative answer over UDP and over TCP', async () => {
    fake.add('d.acme.test', 'TXT', 'over the wire');
    for (const transport of ['+notcp', '+tcp']) {
      const r = await dig('d.acme.test', 'TXT', transport);
      expect(r.status).toBe('NOERROR');
      expect(r.flags).toContain('aa');
      expect(r.answer).toMatch(/d\.acme\.test\.\s+0\s+IN\s+TXT\s+"over the wire"/);
    }
    expect(fake.queries.map((q) => q.transport)).toEqual(['udp', 'tcp']);
  });

  it('answers NXDOMAIN with the zone SOA in the authority section', async () => {
    const r = await dig('nothing.other.test', 'A');
    expect(r.status).toBe('NXDOMAIN');
    expect(r.authority).toMatch(/^other\.test\.\s+0\s+IN\s+SOA\s+ns\.other\.test\. hostmaster\.other\.test\. \d+/m);
  });

  it('answers the SOA at a zone apex, and AAAA records', async () => {
    fake.add('v6.acme.test', 'AAAA', '2001:db8::1');
    expect((await dig('acme.test', 'SOA')).answer).toMatch(/acme\.test\.\s+0\s+IN\s+SOA\s+ns\.acme\.test\./);
    expect((await dig('v6.acme.test', 'AAAA')).answer).toMatch(/v6\.acme\.test\.\s+0\s+IN\s+AAAA\s+2001:db8::1/);
  });

  it('answers REFUSED outside the zones', async () => {
    expect((await dig('example.com', 'A')).status).toBe('REFUSED');
  });
});

describe('the control endpoint and the hook', () => {
  it('adds, lists and removes records over HTTP', async () => {
    const body = JSON.stringify({ name: '_acme-challenge.e.acme.test.', type: 'TXT', value: 'abc' });
    expect((await fetch(`${fake.controlUrl}/records`, { method: 'POST', body })).status).toBe(204);
    expect(await (await fetch(`${fake.controlUrl}/records`)).json()).toEqual([
      { name: '_acme-challenge.e.acme.test', type: 'TXT', value: 'abc' },
    ]);
    expect(await resolver.resolveTxt('_acme-challenge.e.acme.test')).toEqual([['abc']]);
    const del = await fetch(`${fake.controlUrl}/records`, { method: 'DELETE', body });
    expect(await del.json()).toEqual({ removed: 1 });
    expect(fake.records()).toEqual([]);
  });

  it('refuses a bad record with 400 naming the problem', async () => {
    const post = (body: string) => fetch(`${fake.controlUrl}/records`, { method: 'POST', body });
    const bad: [string, RegExp][] = [
      ['not json', /not JSON/],
      [JSON.stringify({ name: 'x.acme.test', type: 'MX', value: 'a' }), /type must be one of A, AAAA, TXT/],
      [JSON.stringify({ name: 'x.acme.test', type: 'A', value: '::1' }), /not an IPv4 address/],
      [JSON.stringify({ name: 'bad name!', type: 'TXT', value: 'a' }), /not a DNS name/],
      [JSON.stringify({ name: 'x.acme.test', type: 'TXT' }), /value must be a string/],
    ];
    for (const [body, why] of bad) {
      const r = await post(body);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toMatch(why);
    }
  });

  it('is driven by hook.mjs as lego --dns exec runs it (present/cleanup <fqdn> <value>)', async () => {
    const env = { ...process.env, DNS_FAKE_URL: fake.controlUrl };
    await run(HOOK, ['present', '_acme-challenge.f.acme.test.', 'lego-value'], { env });
    expect(await resolver.resolveTxt('_acme-challenge.f.acme.test')).toEqual([['lego-value']]);
    await run(HOOK, ['cleanup', '_acme-challenge.f.acme.test.', 'lego-value'], { env });
    expect(fake.records()).toEqual([]);
  });

  it('is driven by hook.mjs as certbot --manual-auth-hook runs it (CERTBOT_DOMAIN, CERTBOT_VALIDATION)', async () => {
    const env = { ...process.env, DNS_FAKE_URL: fake.controlUrl, CERTBOT_DOMAIN: 'g.acme.test', CERTBOT_VALIDATION: 'certbot-value' };
    await run('/bin/sh', ['-c', `node ${HOOK} certbot-auth`], { env });
    expect(fake.records()).toEqual([{ name: '_acme-challenge.g.acme.test', type: 'TXT', value: 'certbot-value' }]);
    await run('/bin/sh', ['-c', `node ${HOOK} certbot-cleanup`], { env });
    expect(fake.records()).toEqual([]);
  });

  it('hook.mjs fails, saying why, when the fake refuses', async () => {
    const env = { ...process.env, DNS_FAKE_URL: fake.controlUrl };
    await expect(run(HOOK, ['present', 'bad name!', 'v'], { env })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/400.*not a DNS name/),
    });
  });
});
