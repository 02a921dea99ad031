/** The agent's configuration: what it takes (JSON and YAML alike) and what it refuses, by name. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfig, ConfigError, loadConfig } from '../../lib/agent/config';

const pki = { role: 'web', common_name: 'a.example.com', cert_file: 'c.pem', key_file: 'k.pem' };
const ssh = { role: 'u', public_key_file: 'id.pub', cert_file: 'id-cert.pub' };

function refusal(doc: unknown): string {
  try {
    checkConfig(doc, 'agent.json', '/etc/agent');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('accepted');
}

describe('agent configuration', () => {
  it('takes every field of the issue, defaults the mounts, resolves files from the config folder', () => {
    const c = checkConfig(
      {
        auth: { method: 'approle', path: 'approle', role_id: 'r', secret_id_file: 'sid' },
        pki: [
          {
            ...pki,
            alt_names: ['b.example.com', 'c.example.com'],
            ttl: '24h',
            chain_file: '/abs/chain.pem',
            command: 'systemctl reload nginx',
          },
        ],
        ssh: [{ ...ssh, mount: 'ssh-host', valid_principals: 'a, b', ttl: 3600, command: 'true' }],
      },
      'agent.json',
      '/etc/agent',
    );
    expect(c.auth).toEqual({ method: 'approle', path: 'approle', role_id: 'r', secret_id_file: '/etc/agent/sid' });
    expect(c.pki[0]).toMatchObject({
      mount: 'pki',
      alt_names: 'b.example.com,c.example.com',
      cert_file: '/etc/agent/c.pem',
      chain_file: '/abs/chain.pem',
    });
    expect(c.ssh[0]).toMatchObject({ mount: 'ssh-host', valid_principals: 'a,b', public_key_file: '/etc/agent/id.pub' });
  });

  it.each([
    ['an unknown top-level key', { pki: [pki], vault: {} }, 'unknown key "vault"'],
    ['a misspelt entry key', { pki: [{ ...pki, commnd: 'x' }] }, 'pki[0]: unknown key "commnd"'],
    [
      'a secret in the file itself',
      { auth: { method: 'approle', role_id: 'r', secret_id: 's', secret_id_file: 'f' }, pki: [pki] },
      'auth: unknown key "secret_id"',
    ],
    ['a jwt in the file itself', { auth: { method: 'jwt', role: 'r', jwt: 'e.y.j' }, pki: [pki] }, 'auth.jwt_file: is required'],
    ['an unknown method', { auth: { method: 'ldap' }, pki: [pki] }, 'auth.method: method must be one of approle, jwt, aws, token'],
    ['a missing key file', { pki: [{ ...pki, key_file: undefined }] }, 'pki[0].key_file: is required'],
    ['an empty role', { ssh: [{ ...ssh, role: ' ' }] }, 'ssh[0].role: must not be empty'],
    ['a bad ttl', { pki: [{ ...pki, ttl: 'soon' }] }, 'pki[0].ttl: must be a duration'],
    ['a zero ttl', { ssh: [{ ...ssh, ttl: 0 }] }, 'ssh[0].ttl: must be a duration'],
    ['a bad cert_type', { ssh: [{ ...ssh, cert_type: 'both' }] }, 'ssh[0].cert_type'],
    ['nothing to keep', { auth: { method: 'token', token_file: 't' } }, 'names no certificate to keep'],
    ['one file for two things', { pki: [{ ...pki, key_file: 'c.pem' }] }, 'pki[0].key_file: /etc/agent/c.pem is also pki[0].cert_file'],
    [
      'one file for two entries',
      { pki: [pki], ssh: [{ ...ssh, cert_file: 'c.pem' }] },
      'ssh[0].cert_file: /etc/agent/c.pem is also pki[0].cert_file',
    ],
    ['pki not a list', { pki: pki }, 'pki: '],
  ])('refuses %s', (_, doc, message) => {
    expect(refusal(doc)).toContain(message);
  });

  it('reads YAML and JSON files alike, and names a file it cannot read or parse', () => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-agent-config-'));
    const yaml = join(dir, 'a.yaml');
    writeFileSync(
      yaml,
      'auth:\n  method: jwt\n  role: r\n  jwt_file: /run/token\npki:\n  - role: web\n    common_name: a.example.com\n    cert_file: c\n    key_file: k\n',
    );
    const json = join(dir, 'a.json');
    writeFileSync(
      json,
      JSON.stringify({
        auth: { method: 'jwt', role: 'r', jwt_file: '/run/token' },
        pki: [{ role: 'web', common_name: 'a.example.com', cert_file: 'c', key_file: 'k' }],
      }),
    );
    expect(loadConfig(yaml)).toEqual(loadConfig(json));
    expect(() => loadConfig(join(dir, 'none.yaml'))).toThrow(/none\.yaml: cannot read it \(ENOENT\)/);
    writeFileSync(join(dir, 'bad.yaml'), 'pki: [\n');
    expect(() => loadConfig(join(dir, 'bad.yaml'))).toThrow(/bad\.yaml: not JSON or YAML/);
    writeFileSync(join(dir, 'dup.yaml'), 'pki: []\npki: []\n');
    expect(() => loadConfig(join(dir, 'dup.yaml'))).toThrow(/not JSON or YAML/);
    writeFileSync(join(dir, 'list.yaml'), '- a\n');
    expect(() => loadConfig(join(dir, 'list.yaml'))).toThrow(/must be an object/);
  });
});
