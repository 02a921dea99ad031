/**
 * certbot (Debian's, unmodified) against the ACME server of a local Latchkey: --standalone
 * answering http-01 on the configured ACME_HTTP_PORT, --manual with auth/cleanup hooks setting
 * the dns-01 records in the DNS fake (a wildcard), renewal and revocation. Every chain passes
 * openssl verify against the mount's CA. certbot runs as an ordinary user with its own
 * directories (nobody, when the tests run as root).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../helpers/openssl';
import { checkIssued, clientDir, crlSerials, dnsHook, runClient, startAcmeService, type AcmeService } from '../../helpers/acme';

let svc: AcmeService;
let home: string;

beforeAll(async () => {
  svc = await startAcmeService(['a.acme.test', 'www.a.acme.test']);
  home = clientDir(svc, 'certbot');
});

afterAll(() => svc?.close());

/** certbot with its state under `home`, non-interactive, against the mount's default directory. */
async function certbot(args: string[], env: Record<string, string> = {}) {
  const dirs = ['--config-dir', join(home, 'config'), '--work-dir', join(home, 'work'), '--logs-dir', join(home, 'logs')];
  const r = await runClient('certbot', [...args, ...dirs, '-n'], home, env);
  if (r.code !== 0) {
    let log = '';
    try {
      log = readFileSync(join(home, 'logs', 'letsencrypt.log'), 'utf8').slice(-4000);
    } catch {
      // no log written
    }
    throw new Error(`certbot ${args[0]} exited ${r.code}:\n${r.output}\n${log}`);
  }
  return r.output;
}

const live = (name: string, file: string) => readFileSync(join(home, 'config', 'live', name, file), 'utf8');
const server = () => ['--server', svc.directory, '--agree-tos', '--register-unsafely-without-email'];

describe('certbot', () => {
  it('obtains a certificate with --standalone answering http-01 on the configured port', async () => {
    const out = await certbot([
      'certonly',
      ...server(),
      '--standalone',
      '--http-01-port',
      String(svc.httpPort),
      '--http-01-address',
      '127.0.0.1',
      '--cert-name',
      'web',
      '-d',
      'a.acme.test',
      '-d',
      'www.a.acme.test',
    ]);
    expect(out).toMatch(/Successfully received certificate/);
    const issued = checkIssued(live('web', 'fullchain.pem'), svc.caPem);
    expect(issued.verify).toMatchObject({ ok: true });
    expect(issued.sans).toEqual(['DNS:a.acme.test', 'DNS:www.a.acme.test']);
  });

  it('obtains a wildcard certificate through dns-01 with --manual and hooks that set the records', async () => {
    svc.dns.queries.length = 0;
    const hook = (cmd: string) => `${process.execPath} ${dnsHook(svc)} ${cmd}`;
    await certbot(
      [
        'certonly',
        ...server(),
        '--manual',
        '--preferred-challenges',
        'dns',
        '--manual-auth-hook',
        hook('certbot-auth'),
        '--manual-cleanup-hook',
        hook('certbot-cleanup'),
        '--cert-name',
        'wild',
        '-d',
        'b.acme.test',
        '-d',
        '*.b.acme.test',
      ],
      { DNS_FAKE_URL: svc.dns.controlUrl },
    );
    const issued = checkIssued(live('wild', 'fullchain.pem'), svc.caPem);
    expect(issued.verify).toMatchObject({ ok: true });
    expect(issued.sans).toEqual(['DNS:*.b.acme.test', 'DNS:b.acme.test']);
    // The server looked the records up through config/acme dns_resolver (the fake), and the cleanup hook removed them.
    expect(svc.dns.queries.filter((q) => q.type === 'TXT').map((q) => q.name.toLowerCase())).toContain('_acme-challenge.b.acme.test');
    expect(svc.dns.records().filter((r) => r.type === 'TXT')).toEqual([]);
  });

  it('renews a certificate and revokes it with a reason; the serial lands on the CRL with that reason', async () => {
    const before = checkIssued(live('web', 'cert.pem'), svc.caPem).serial;
    expect(await certbot(['renew', '--cert-name', 'web', '--force-renewal', '--no-random-sleep-on-renew'])).toMatch(/renewals succeeded/);
    const renewed = checkIssued(live('web', 'fullchain.pem'), svc.caPem);
    expect(renewed.verify).toMatchObject({ ok: true });
    expect(renewed.serial).not.toBe(before);

    await certbot(['revoke', '--server', svc.directory, '--cert-name', 'web', '--no-delete-after-revoke', '--reason', 'keycompromise']);
    expect(await crlSerials(svc)).toContain(renewed.serial);
    const crl = await fetch(`${svc.url}/v1/pki/crl/pem`).then((r) => r.text());
    expect(text(crl, 'crl')).toMatch(/Key Compromise/);
  });
});
