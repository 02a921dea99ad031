/** Policy documents (JSON, HCL, the legacy policy word) read into rules, and the ones refused with the reason. */
import { describe, expect, it } from 'vitest';
import { Acl, allows, capabilitiesFor, mergeRules } from '../../lib/sys/acl';
import { paramsAsSent } from '../../lib/sys/acl-params';
import { parsePolicy } from '../../lib/sys/policy-rules';

const acl = (...docs: unknown[]) => mergeRules(docs.map((d) => parsePolicy(d)));
const caps = (a: Acl, path: string) => [...capabilitiesFor(a, path)].sort();
const can = (
  a: Acl,
  path: string,
  op: 'read' | 'list' | 'create' | 'update' | 'delete',
  data: Record<string, unknown> = {},
  sudo = false,
) => allows(a.permissions(path, op === 'list'), op, sudo, paramsAsSent(data));

describe('documents: JSON, HCL and the legacy policy word', () => {
  it('reads HCL with repeated blocks, comments and parameter maps', () => {
    const a = acl(`
      # comment
      path "secret/*" {
        capabilities = ["read", "list"]
      }
      // another
      path "secret/*" { capabilities = ["update"] }
      /* block */
      path "pki/issue/web" {
        capabilities = ["create", "update"]
        allowed_parameters = {
          "common_name" = ["*.example.com"]
          ttl = []
        }
        required_parameters = ["common_name"]
      }
    `);
    expect(caps(a, 'secret/x')).toEqual(['list', 'read', 'update']);
    expect(can(a, 'pki/issue/web', 'update', { common_name: 'a.example.com', ttl: '1h' })).toBe(true);
    expect(can(a, 'pki/issue/web', 'update', { common_name: 'a.evil.com' })).toBe(false);
  });

  it('maps the legacy policy word to capabilities', () => {
    const a = acl(`path "sys" { policy = "deny" }
path "secret" { policy = "write" }
path "r/*" { policy = "read" }
path "s/*" { policy = "sudo" }`);
    expect(caps(a, 'secret')).toEqual(['create', 'delete', 'list', 'read', 'update']);
    expect(caps(a, 'r/x')).toEqual(['list', 'read']);
    expect(caps(a, 's/x')).toContain('sudo');
    expect(caps(a, 'sys')).toEqual(['deny']);
    expect(caps(acl({ path: { a: { policy: 'read' } } }), 'a')).toEqual(['list', 'read']);
  });

  it.each([
    ['{not json', /not valid JSON/],
    ['path "a" {', /missing "}"/],
    ['path "a" { capabilities = ["read" }', /expected "," or "]"/],
    [JSON.stringify({ paths: { 'a/*': { capabilities: ['read'] } } }), /unknown key "paths"/],
    [JSON.stringify({ path: { 'a/*': { capabilites: ['read'] } } }), /unknown key "capabilites"/],
    [JSON.stringify({ path: { 'a/*': { capabilities: ['write'] } } }), /unknown capability "write"/],
    [JSON.stringify({ path: { 'a/*': { policy: 'all' } } }), /must be one of deny, read, write, sudo/],
    [JSON.stringify({ path: { 'a/*/b': { capabilities: ['read'] } } }), /only allowed at the end/],
    [JSON.stringify({ path: { 'a/+*': { capabilities: ['read'] } } }), /"\+\*" is not allowed/],
    [JSON.stringify({ path: { a: { capabilities: ['read'], mfa_methods: ['x'] } } }), /"mfa_methods" is not supported/],
    [JSON.stringify({ path: { a: { capabilities: ['read'], min_wrapping_ttl: '1s' } } }), /"min_wrapping_ttl" is not supported/],
    [JSON.stringify({ path: { a: { capabilities: ['read'], allowed_parameters: { x: { y: 1 } } } } }), /must be a list/],
    [JSON.stringify([1]), /expected a JSON object/],
  ])('refuses %s', (doc, message) => {
    expect(() => parsePolicy(doc)).toThrow(message);
  });
});
