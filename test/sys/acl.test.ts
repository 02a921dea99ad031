/** Table tests: the ACL of merged policies: path patterns and their precedence, capabilities, parameter constraints. */
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
    ['pki/+/x*', 'pki/a/xyz/more', true],
    ['*', 'anything/at/all', true],
  ])('%s matches %s: %s', (pattern, path, expected) => {
    expect(can(acl({ path: { [pattern]: { capabilities: ['read'] } } }), path, 'read')).toBe(expected);
  });

  it('the exact rule wins, then the reference ordering of globs and segment wildcards', () => {
    const a = acl({
      path: {
        'pki/*': { capabilities: ['read'] },
        'pki/issue/*': { capabilities: ['list'] },
        'pki/+/web': { capabilities: ['delete'] },
        'pki/issue/web': { capabilities: ['update'] },
        '+/issue/web2': { capabilities: ['create'] },
      },
    });
    expect(caps(a, 'pki/issue/web')).toEqual(['update']);
    expect(caps(a, 'pki/issue/x')).toEqual(['list']);
    // first wildcard position: "pki/issue/*" (10) beats "+/issue/web2" (0)
    expect(caps(a, 'pki/issue/web2')).toEqual(['list']);
    expect(caps(a, 'pki/roles/web')).toEqual(['delete']);
    expect(caps(a, 'pki/roles/other')).toEqual(['read']);
  });

  it('a deny on a folder hides its listing, whatever grants its parent (the slash-less fallback is for exact rules only)', () => {
    const a = acl({ path: { 'pki/*': { capabilities: ['read', 'list'] }, 'pki/roles/*': { capabilities: ['deny'] } } });
    expect(can(a, 'pki/roles/', 'list')).toBe(false);
    expect(caps(a, 'pki/roles/')).toEqual(['deny']);
    expect(can(a, 'pki/certs/', 'list')).toBe(true);
    expect(can(a, 'pki/roles', 'read')).toBe(true);
    const plus = acl({ path: { 'pki/*': { capabilities: ['list'] }, 'pki/roles/+': { capabilities: ['deny'] } } });
    expect(can(plus, 'pki/roles/', 'list')).toBe(false);
  });

  it('checks a LIST on the path with its trailing slash, and on the bare path as well', () => {
    expect(can(acl({ path: { 'pki/roles/*': { capabilities: ['list'] } } }), 'pki/roles/', 'list')).toBe(true);
    expect(can(acl({ path: { 'pki/roles': { capabilities: ['list'] } } }), 'pki/roles/', 'list')).toBe(true);
    expect(can(acl({ path: { 'pki/roles/': { capabilities: ['list'] } } }), 'pki/roles/', 'list')).toBe(true);
    expect(can(acl({ path: { 'pki/roles/*': { capabilities: ['read'] } } }), 'pki/roles/', 'list')).toBe(false);
  });
});

describe('merging and capabilities', () => {
  const rules = acl(
    { path: { 'secret/*': { capabilities: ['read', 'list'] }, 'secret/admin/*': { capabilities: ['deny'] } } },
    JSON.stringify({ path: { 'secret/*': { capabilities: ['update'] }, 'pki/issue/+': { capabilities: ['create'] } } }),
  );

  it('merges rules of several policies on the same pattern', () => {
    expect(caps(rules, 'secret/x')).toEqual(['list', 'read', 'update']);
  });

  it('the most specific pattern decides, and deny there wins', () => {
    expect(can(rules, 'secret/admin/key', 'read')).toBe(false);
    expect(can(rules, 'secret/other', 'read')).toBe(true);
  });

  it('deny on the same pattern wins over any grant from another policy', () => {
    const r = acl({ path: { 'a/*': { capabilities: ['read'] } } }, { path: { 'a/*': { capabilities: ['deny'] } } });
    expect(can(r, 'a/b', 'read')).toBe(false);
  });

  it('create and update are separate, and sudo is required where asked', () => {
    expect(can(rules, 'pki/issue/web', 'create')).toBe(true);
    expect(can(rules, 'pki/issue/web', 'update')).toBe(false);
    expect(can(rules, 'pki/issue/web', 'create', {}, true)).toBe(false);
    expect(allows({ capabilities: new Set(['update', 'sudo']), required: [] }, 'update', true)).toBe(true);
  });

  it('grants nothing where no pattern matches', () => {
    expect(capabilitiesFor(rules, 'ssh/sign/x').size).toBe(0);
  });
});

describe('parameter constraints', () => {
  const issue = (rule: Record<string, unknown>) => acl({ path: { 'pki/issue/web': { capabilities: ['update'], ...rule } } });
  it.each([
    ['an allowed value', { allowed_parameters: { common_name: ['ok.example.com'] } }, { common_name: 'ok.example.com' }, true],
    [
      'a value outside the allowed list',
      { allowed_parameters: { common_name: ['ok.example.com'] } },
      { common_name: 'evil.example.com' },
      false,
    ],
    ['a parameter not in the allowed map', { allowed_parameters: { common_name: [] } }, { common_name: 'x', ttl: '1h' }, false],
    ['any value with an empty list', { allowed_parameters: { common_name: [] } }, { common_name: 'anything' }, true],
    ['a suffix glob', { allowed_parameters: { common_name: ['*.example.com'] } }, { common_name: 'a.example.com' }, true],
    ['a suffix glob, other domain', { allowed_parameters: { common_name: ['*.example.com'] } }, { common_name: 'a.evil.com' }, false],
    ['a prefix glob', { allowed_parameters: { common_name: ['web-*'] } }, { common_name: 'web-1' }, true],
    ['"*" allows other names', { allowed_parameters: { '*': [], common_name: ['a'] } }, { ttl: '1h', common_name: 'a' }, true],
    ['"*" still checks the listed names', { allowed_parameters: { '*': [], common_name: ['a'] } }, { common_name: 'b' }, false],
    ['a denied value', { denied_parameters: { ttl: ['87600h'] } }, { ttl: '87600h' }, false],
    ['a value not denied', { denied_parameters: { ttl: ['87600h'] } }, { ttl: '1h' }, true],
    ['a denied name (empty list)', { denied_parameters: { alt_names: [] } }, { alt_names: 'x' }, false],
    ['every name denied', { denied_parameters: { '*': [] } }, { common_name: 'x' }, false],
    ['denied over allowed', { allowed_parameters: { ttl: [] }, denied_parameters: { ttl: ['9h'] } }, { ttl: '9h' }, false],
    ['names compared in lower case', { allowed_parameters: { Common_Name: ['a'] } }, { COMMON_NAME: 'b' }, false],
    ['a required parameter present', { required_parameters: ['common_name'] }, { common_name: 'a' }, true],
    ['a required parameter missing', { required_parameters: ['common_name'] }, { ttl: '1h' }, false],
    ['no data and no required ones', { allowed_parameters: { a: ['b'] } }, {}, true],
    ['non-string values compared whole', { allowed_parameters: { n: [3] } }, { n: 3 }, true],
    ['a list, every element allowed', { allowed_parameters: { n: ['a', 'b'] } }, { n: ['a', 'b'] }, true],
    ['a list, one element not allowed', { allowed_parameters: { n: ['a', 'b'] } }, { n: ['a', 'c'] }, false],
    ['a list, one element denied', { denied_parameters: { n: ['c'] } }, { n: ['a', 'c'] }, false],
  ])('%s', (_name, rule, data, expected) => {
    expect(can(issue(rule), 'pki/issue/web', 'update', data)).toBe(expected);
  });

  it('are checked on reads too, never on lists or deletes', () => {
    const a = acl({ path: { 'x/*': { capabilities: ['read', 'list', 'delete'], required_parameters: ['q'] } } });
    expect(can(a, 'x/y', 'read')).toBe(false);
    expect(can(a, 'x/y', 'read', { q: '1' })).toBe(true);
    expect(can(a, 'x/', 'list')).toBe(true);
    expect(can(a, 'x/y', 'delete')).toBe(true);
  });

  it('merge across policies: values append, an empty list wins, required is a union', () => {
    const p = (rule: Record<string, unknown>) => ({ path: { 'a/b': { capabilities: ['update'], ...rule } } });
    const merged = acl(p({ allowed_parameters: { x: ['1'] } }), p({ allowed_parameters: { x: ['2'] } }));
    expect(can(merged, 'a/b', 'update', { x: '2' })).toBe(true);
    expect(can(merged, 'a/b', 'update', { x: '3' })).toBe(false);
    const open = acl(p({ allowed_parameters: { x: ['1'] } }), p({ allowed_parameters: { x: [] } }));
    expect(can(open, 'a/b', 'update', { x: '3' })).toBe(true);
    const req = acl(p({ required_parameters: ['x'] }), p({ required_parameters: ['y'] }));
    expect(can(req, 'a/b', 'update', { x: '1' })).toBe(false);
    expect(can(req, 'a/b', 'update', { x: '1', y: '1' })).toBe(true);
  });
});

describe('grantsUnder: whether a token reaches a mount (sys/internal/ui/mounts)', () => {
  it.each([
    [{ 'secret/*': ['read'] }, 'secret/', true],
    [{ 'secret/data/app/db': ['read'] }, 'secret/', true],
    [{ 'secret/data/*': ['list'] }, 'secret/', true],
    [{ '+/data/*': ['read'] }, 'secret/', true],
    [{ 'sec*': ['read'] }, 'secret/', true],
    [{ '*': ['read'] }, 'secret/', true],
    [{ 'secretary/*': ['read'] }, 'secret/', false],
    [{ 'pki/*': ['read'] }, 'secret/', false],
    [{ 'secret/*': ['deny'] }, 'secret/', false],
    [{ 'pki/+/web': ['update'] }, 'secret/', false],
    [{ 'auth/token/lookup-self': ['read'] }, 'auth/token/', true],
  ])('%j reaches %s: %s', (rules, mount, expected) => {
    const doc = { path: Object.fromEntries(Object.entries(rules).map(([p, c]) => [p, { capabilities: c }])) };
    expect(acl(doc).grantsUnder(mount)).toBe(expected);
  });

  it('a grant below a denied mount path still reaches the mount, as Vault walks the rules under it', () => {
    expect(
      acl({ path: { 'secret/*': { capabilities: ['deny'] }, 'secret/data/x': { capabilities: ['read'] } } }).grantsUnder('secret/'),
    ).toBe(true);
  });
});
