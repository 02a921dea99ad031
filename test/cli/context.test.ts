/** Where the CLI finds its address, token and TLS root. */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliContext, storeToken } from '../../lib/cli/context';

const home = () => mkdtempSync(join(tmpdir(), 'latchkey-ctx-'));

describe('cliContext', () => {
  it('LATCHKEY_ADDR over VAULT_ADDR over the default; -address over both', () => {
    expect(cliContext({ HOME: home() }).address).toBe('http://127.0.0.1:8200');
    expect(cliContext({ HOME: home(), VAULT_ADDR: 'http://v:1' }).address).toBe('http://v:1');
    expect(cliContext({ HOME: home(), VAULT_ADDR: 'http://v:1', LATCHKEY_ADDR: 'https://l:2' }).address).toBe('https://l:2');
    expect(cliContext({ HOME: home(), LATCHKEY_ADDR: 'https://l:2' }, { address: 'http://f:3' }).address).toBe('http://f:3');
    expect(() => cliContext({ HOME: home(), LATCHKEY_ADDR: 'ftp://x' })).toThrow('the address is not an http(s) URL: ftp://x');
  });

  it('the token: LATCHKEY_TOKEN, VAULT_TOKEN, then the token file (kept 0600)', () => {
    const h = home();
    expect(cliContext({ HOME: h }).token).toBeUndefined();
    storeToken(join(h, '.latchkey-token'), 'from-file');
    expect(statSync(join(h, '.latchkey-token')).mode & 0o777).toBe(0o600);
    expect(cliContext({ HOME: h }).token).toBe('from-file');
    expect(cliContext({ HOME: h, VAULT_TOKEN: 'v' }).token).toBe('v');
    expect(cliContext({ HOME: h, VAULT_TOKEN: 'v', LATCHKEY_TOKEN: 'l' }).client.token).toBe('l');
  });

  it('the CA certificate from -ca-cert, LATCHKEY_CACERT or VAULT_CACERT; an unreadable one is a usage error', () => {
    const h = home();
    writeFileSync(join(h, 'ca.pem'), '-----BEGIN CERTIFICATE-----\n');
    expect(cliContext({ HOME: h, VAULT_CACERT: join(h, 'ca.pem') }).caCert).toBe(readFileSync(join(h, 'ca.pem'), 'utf8'));
    expect(cliContext({ HOME: h }, { caCert: join(h, 'ca.pem') }).caCert).toMatch(/BEGIN/);
    expect(() => cliContext({ HOME: h, LATCHKEY_CACERT: join(h, 'missing.pem') })).toThrow(
      /cannot read the CA certificate .*missing.pem: ENOENT/,
    );
  });
});
