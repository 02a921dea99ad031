/** A token's capabilities on paths (sys/capabilities*): root, grants, deny, no rule, input limits; token and accessor lookups. */
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../lib/deps';
import { InvalidInput } from '../../lib/domain-errors';
import { mergeRules } from '../../lib/sys/acl';
import { capabilitiesAnswer, capabilitiesOf, MAX_PATHS, policiesOfAccessor, policiesOfToken } from '../../lib/sys/capabilities';
import { parsePolicy } from '../../lib/sys/policy-rules';

const DOC = {
  path: {
    'secret/data/app/*': { capabilities: ['update', 'read', 'create'] },
    'secret/data/app/locked': { capabilities: ['deny'] },
    'pki/+/web': { capabilities: ['list'] },
  },
};
const deps = { policies: { rules: async () => mergeRules([parsePolicy(DOC)]) } } as unknown as Pick<Deps, 'policies'>;

describe('capabilitiesOf', () => {
  it('answers each path sorted, deny where nothing or a deny applies, root everywhere for root', async () => {
    const paths = ['secret/data/app/db', '/secret/data/app/locked', 'pki/roles/web', 'ssh/sign/x'];
    expect(await capabilitiesOf(deps, ['app'], paths)).toEqual({
      'secret/data/app/db': ['create', 'read', 'update'],
      '/secret/data/app/locked': ['deny'],
      'pki/roles/web': ['list'],
      'ssh/sign/x': ['deny'],
    });
    expect(await capabilitiesOf(deps, ['root'], ['x', 'y'])).toEqual({ x: ['root'], y: ['root'] });
  });

  it('keeps a path named like an object property as a key of its own', async () => {
    const out = await capabilitiesOf(deps, ['app'], ['__proto__', 'constructor']);
    expect(Object.keys(out)).toEqual(['__proto__', 'constructor']);
    expect(out['__proto__']).toEqual(['deny']);
  });

  it('refuses no paths, an empty path, and more than MAX_PATHS', async () => {
    await expect(capabilitiesOf(deps, ['app'], [])).rejects.toThrow(InvalidInput);
    await expect(capabilitiesOf(deps, ['app'], [''])).rejects.toThrow(/missing path/);
    await expect(
      capabilitiesOf(
        deps,
        ['app'],
        Array.from({ length: MAX_PATHS + 1 }, (_, i) => `p${i}`),
      ),
    ).rejects.toThrow(/at most/);
  });

  it('adds `capabilities` only when one path was asked', () => {
    expect(capabilitiesAnswer({ a: ['read'] }, ['a'])).toEqual({ a: ['read'], capabilities: ['read'] });
    expect(capabilitiesAnswer({ a: ['read'], b: ['deny'] }, ['a', 'b'])).toEqual({ a: ['read'], b: ['deny'] });
  });
});

describe('token and accessor lookups', () => {
  const record = { accessor: 'acc1', policies: ['app'] };
  const tokens = {
    lookup: async (t: string) => (t === 'hvs.live' ? { record, version: 1 } : undefined),
    byAccessor: async (a: string) => (a === 'acc1' || a === 'acc-revoked' ? { ...record, accessor: a } : undefined),
    accessorLive: async (a: string) => a === 'acc1',
  };
  const d = { tokens } as unknown as Pick<Deps, 'tokens'>;

  it('answers the live token’s policies; missing, unknown and revoked are invalid input', async () => {
    expect(await policiesOfToken(d, 'hvs.live')).toEqual(['app']);
    await expect(policiesOfToken(d, '')).rejects.toThrow(/missing token/);
    await expect(policiesOfToken(d, 'hvs.dead')).rejects.toThrow(/invalid token/);
    expect(await policiesOfAccessor(d, 'acc1')).toEqual(['app']);
    await expect(policiesOfAccessor(d, '')).rejects.toThrow(/missing accessor/);
    await expect(policiesOfAccessor(d, 'nope')).rejects.toThrow(/invalid accessor/);
    await expect(policiesOfAccessor(d, 'acc-revoked')).rejects.toThrow(/invalid accessor/);
  });
});
