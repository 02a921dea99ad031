/**
 * lego (Debian's, unmodified) against a role's ACME directory of a local Latchkey: --http on the
 * configured ACME_HTTP_PORT with an RSA account key (RS256), --tls (tls-alpn-01) on
 * ACME_TLS_PORT, --dns exec with the DNS fake's hook as EXEC_PATH and --dns.resolvers on the
 * fake (a wildcard), revocation, a second issuer's directory (issuer/<ref>/roles/<role>/acme), and
 * external account binding once config/acme requires it.
 * Every chain passes openssl verify against the mount's CA. lego runs as an ordinary user
 * (nobody, when the tests run as root).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIssued, clientDir, crlSerials, dnsHook, runClient, startAcmeService, type AcmeService } from '../../helpers/acme';

let svc: AcmeService;
let home: string;

beforeAll(async () => {
  svc = await startAcmeService(['c.acme.test', 'd.acme.test', 'f.acme.test', 'g.acme.test']);
  home = clientDir(svc, 'lego');
});

afterAll(() => svc?.close());

/** lego with its state under `home` (one account per email), against the role `acme`'s directory. */
async function lego(email: string, args: string[], env: Record<string, string> = {}, expectCode = 0, server = svc.roleDirectory) {
  const base = ['--server', server, '--accept-tos', '--email', email, '--path', join(home, 'state')];
  const r = await runClient('lego', [...base, ...args], home, env);
  if (r.code !== expectCode) throw new Error(`lego ${args.join(' ')} exited ${r.code}:\n${r.output}`);
  return r.output;
}

const issued = (name: string) => readFileSync(join(home, 'state', 'certificates', `${name}.crt`), 'utf8');

describe('lego', () => {
  it('obtains a certificate with --http on the configured port, with an RSA account key', async () => {
    await lego('rsa@acme.test', [
      '--key-type',
      'rsa2048',
      '--domains',
      'c.acme.test',
      '--http',
      '--http.port',
      `127.0.0.1:${svc.httpPort}`,
      'run',
    ]);
    const c = checkIssued(issued('c.acme.test'), svc.caPem);
    expect(c.verify).toMatchObject({ ok: true });
    expect(c.sans).toEqual(['DNS:c.acme.test']);
  });

  it('obtains a certificate with --tls (tls-alpn-01) on the configured port', async () => {
    await lego('ec@acme.test', ['--domains', 'd.acme.test', '--tls', '--tls.port', `127.0.0.1:${svc.tlsPort}`, 'run']);
    const c = checkIssued(issued('d.acme.test'), svc.caPem);
    expect(c.verify).toMatchObject({ ok: true });
    expect(c.sans).toEqual(['DNS:d.acme.test']);
  });

  it('obtains a wildcard certificate with --dns exec, the records set by its program and checked through --dns.resolvers', async () => {
    svc.dns.queries.length = 0;
    const env = {
      EXEC_PATH: dnsHook(svc),
      DNS_FAKE_URL: svc.dns.controlUrl,
      EXEC_POLLING_INTERVAL: '1',
      EXEC_PROPAGATION_TIMEOUT: '30',
      EXEC_SEQUENCE_INTERVAL: '1',
    };
    // --dns.disable-cp: lego's complete check would ask the zone's NS hosts on port 53; its check through the resolver stays.
    const args = [
      '--domains',
      'e.acme.test',
      '--domains',
      '*.e.acme.test',
      '--dns',
      'exec',
      '--dns.resolvers',
      svc.dns.address,
      '--dns.disable-cp',
      'run',
    ];
    await lego('ec@acme.test', args, env);
    const c = checkIssued(issued('e.acme.test'), svc.caPem);
    expect(c.verify).toMatchObject({ ok: true });
    expect(c.sans).toEqual(['DNS:*.e.acme.test', 'DNS:e.acme.test']);
    // Both lego's check and the server's validation asked the fake; the program's cleanup removed the records.
    const asked = svc.dns.queries.filter((q) => q.type === 'TXT' && q.name.toLowerCase() === '_acme-challenge.e.acme.test');
    expect(asked.length).toBeGreaterThanOrEqual(4);
    expect(svc.dns.records().filter((r) => r.type === 'TXT')).toEqual([]);
  });

  it('revokes a certificate; the serial lands on the CRL', async () => {
    const serial = checkIssued(issued('c.acme.test'), svc.caPem).serial;
    await lego('rsa@acme.test', ['--domains', 'c.acme.test', 'revoke', '--keep']);
    expect(await crlSerials(svc)).toContain(serial);
  });

  it("obtains a certificate through a second issuer's role directory (issuer/<ref>/roles/<role>/acme): it chains to that issuer, not to the default", async () => {
    const second = await svc.api('POST', 'pki/issuers/generate/root/internal', {
      common_name: 'ACME Clients Second Root',
      issuer_name: 'second',
      key_type: 'ec',
      ttl: '8760h',
    });
    expect(second.status).toBe(200);
    const secondPem = (second.body.data as { certificate: string }).certificate;
    const server = `${svc.url}/v1/pki/issuer/second/roles/acme/acme/directory`;
    await lego(
      'issuer@acme.test',
      ['--domains', 'g.acme.test', '--http', '--http.port', `127.0.0.1:${svc.httpPort}`, 'run'],
      {},
      0,
      server,
    );
    expect(checkIssued(issued('g.acme.test'), secondPem).verify).toMatchObject({ ok: true });
    expect(checkIssued(issued('g.acme.test'), svc.caPem).verify).toMatchObject({ ok: false });
  });

  it('registers with external account binding once config/acme requires it (the directory says so)', async () => {
    const cfg = await svc.api('POST', 'pki/config/acme', { eab_policy: 'always-required' });
    expect(cfg.status).toBe(200);
    const refused = await lego(
      'noeab@acme.test',
      ['--domains', 'f.acme.test', '--http', '--http.port', `127.0.0.1:${svc.httpPort}`, 'run'],
      {},
      1,
    );
    // lego reads meta.externalAccountRequired in the directory and stops before registering.
    expect(refused).toMatch(/Server requires External Account Binding/);

    const eab = await svc.api('POST', 'pki/roles/acme/acme/new-eab');
    expect(eab.status).toBe(200);
    const { id, key } = eab.body.data as { id: string; key: string };
    const args = [
      '--eab',
      '--kid',
      id,
      '--hmac',
      key,
      '--domains',
      'f.acme.test',
      '--http',
      '--http.port',
      `127.0.0.1:${svc.httpPort}`,
      'run',
    ];
    await lego('eab@acme.test', args);
    expect(checkIssued(issued('f.acme.test'), svc.caPem).verify).toMatchObject({ ok: true });
  });
});
