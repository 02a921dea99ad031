import { describe, expect, it } from 'vitest';
import { allows, capabilitiesFor, compareSpecificity, matches, mergeRules, parsePolicy } from '../../lib/sys/policy-rules';

describe('policy path patterns', () => {
  it.each([
    ['pki/issue/web', 'pki/issue/web', true],
    ['pki/issue/web', 'pki/issue/web2', false],
    ['pki/issue/*', 'pki/issue/web', true],
    ['pki/issue/*', 'pki/issue/', true],
    ['pki/issue/*', 'pki/issue', false],
    ['pki/iss*', 'pki/issue/web', true],
    ['pki/+/web', 'pki/issue/web', true],
    ['pki/+/web', 'pki/issue/x/web', false],
    ['+/issue/*', 'pki_int/issue/a/b', true],
    ['pki/+', 'pki/roles', true],
    ['pki/+', 'pki/roles/x', false],
    ['*', 'anything/at/all', true],
  ])('%s matches %s: %s', (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected);
  });

  it('ranks the later first wildcard, then non-glob, then fewer +, then longer', () => {
    const sorted = ['pki/*', 'pki/issue/*', 'pki/issue/web', 'pki/+/web', '+/issue/web'].sort(compareSpecificity);
    expect(sorted.at(-1)).toBe('pki/issue/web');
    expect(compareSpecificity('pki/issue/*', 'pki/*')).toBeGreaterThan(0);
    expect(compareSpecificity('pki/issue', 'pki/issue*')).toBeGreaterThan(0);
    expect(compareSpecificity('a/b/+/c', 'a/b/+/+')).toBeGreaterThan(0);
  });
});

describe('capabilities', () => {
  const rules = mergeRules([
    parsePolicy({ path: { 'secret/*': { capabilities: ['read', 'list'] }, 'secret/admin/*': { capabilities: ['deny'] } } }),
    parsePolicy(JSON.stringify({ path: { 'secret/*': { capabilities: ['update'] }, 'pki/issue/+': { capabilities: ['create'] } } })),
  ]);

  it('merges rules of several policies on the same pattern', () => {
    expect([...capabilitiesFor(rules, 'secret/x')].sort()).toEqual(['list', 'read', 'update']);
  });

  it('the most specific pattern decides, and deny there wins', () => {
    expect(allows(capabilitiesFor(rules, 'secret/admin/key'), 'read', false)).toBe(false);
    expect(allows(capabilitiesFor(rules, 'secret/other'), 'read', false)).toBe(true);
  });

  it('deny on the same pattern wins over any grant from another policy', () => {
    const r = mergeRules([
      parsePolicy({ path: { 'a/*': { capabilities: ['read'] } } }),
      parsePolicy({ path: { 'a/*': { capabilities: ['deny'] } } }),
    ]);
    expect(allows(capabilitiesFor(r, 'a/b'), 'read', false)).toBe(false);
  });

  it('maps operations to capabilities and requires sudo where asked', () => {
    const caps = capabilitiesFor(rules, 'pki/issue/web');
    expect(allows(caps, 'write', false)).toBe(true);
    expect(allows(caps, 'write', true)).toBe(false);
    expect(allows(caps, 'read', false)).toBe(false);
    expect(allows(new Set(['update', 'sudo']), 'write', true)).toBe(true);
  });

  it('grants nothing where no pattern matches', () => {
    expect(capabilitiesFor(rules, 'ssh/sign/x').size).toBe(0);
  });
});

describe('parsePolicy refuses bad documents with a message naming the problem', () => {
  it.each([
    ['not json', /not valid JSON/],
    [JSON.stringify({ path: [] }), /"path" must be an object/],
    [JSON.stringify({ path: { 'a/*': {} } }), /needs a "capabilities" list/],
    [JSON.stringify({ path: { 'a/*': { capabilities: ['write'] } } }), /unknown capability "write"/],
    [JSON.stringify({ path: { 'a/*/b': { capabilities: ['read'] } } }), /only allowed at the end/],
    [JSON.stringify([1]), /expected a JSON object/],
  ])('%s', (doc, message) => {
    expect(() => parsePolicy(doc)).toThrow(message);
  });
});
