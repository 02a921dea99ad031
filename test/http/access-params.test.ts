/**
 * Parameter constraints see what the handler will use (lib/http/access-params.ts): the request
 * goes through the path's field coercion, then the policy decides on the coerced values. A
 * property test over spellings of a list: whatever the JSON array, comma string, spaces, empty
 * elements or duplicates, the decision follows the list the handler gets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accessParams } from '../../lib/http/access-params';
import { f, type Fields } from '../../lib/http/fields';
import { validateFields } from '../../lib/http/input';
import { parametersAllowed } from '../../lib/sys/acl-params';
import { parsePolicy, type Permissions } from '../../lib/sys/policy-rules';

const fields: Fields = {
  valid_principals: f.list({ default: [] }),
  policies: f.list({ foldCase: true, aliasOf: 'token_policies' }),
  token_policies: f.list({ foldCase: true }),
  ttl: f.duration(),
  common_name: f.string({ compareAs: 'lower-case' }),
};

function rule(constraints: Record<string, unknown>): Permissions {
  return parsePolicy({ path: { x: { capabilities: ['update'], ...constraints } } }).rules[0]!;
}

/** The decision, and the values the handler would get. */
function decide(perms: Permissions, input: Record<string, unknown>) {
  const { data } = validateFields(fields, input, {}, true);
  return { allowed: parametersAllowed(perms, accessParams(fields, input, data)), data };
}

const principal = fc.constantFrom('root', 'deploy-a', 'deploy-b', 'admin', 'deploy-', 'Root');
/** A list sent as a JSON array, or as a comma string with spaces and empty elements. */
const spelled = fc.array(principal, { maxLength: 5 }).chain((items) =>
  fc.oneof(
    fc.constant<unknown>(items),
    fc.array(fc.constantFrom('', ' ', '  ', '\t'), { minLength: items.length * 2 + 2, maxLength: items.length * 2 + 2 }).chain((pads) =>
      fc.array(fc.constantFrom(',', ',,', ', ,'), { minLength: items.length + 1, maxLength: items.length + 1 }).map((seps) => {
        let s = seps[0] === ',' ? '' : seps[0]!;
        items.forEach((it, i) => (s += `${pads[2 * i]}${it}${pads[2 * i + 1]}${seps[i + 1]}`));
        return s as unknown;
      }),
    ),
  ),
);

describe('parameter constraints on coerced lists (property)', () => {
  it('a denied element is refused under every spelling; the decision follows the list the handler gets', () => {
    const perms = rule({ denied_parameters: { valid_principals: ['root'] } });
    fc.assert(
      fc.property(spelled, (sent) => {
        const { allowed, data } = decide(perms, { valid_principals: sent });
        expect(allowed).toBe(!(data.valid_principals as string[]).includes('root'));
      }),
      { numRuns: 2000 },
    );
  });

  it('an allowed glob holds on every element under every spelling', () => {
    const perms = rule({ allowed_parameters: { valid_principals: ['deploy-*'] } });
    fc.assert(
      fc.property(spelled, (sent) => {
        const { allowed, data } = decide(perms, { valid_principals: sent });
        const used = data.valid_principals as string[];
        expect(allowed).toBe((used.length ? used : ['']).every((p) => p.startsWith('deploy-')));
      }),
      { numRuns: 2000 },
    );
  });

  it('folded fields compare in lower case and through their alias', () => {
    const perms = rule({ denied_parameters: { token_policies: ['admin'] } });
    fc.assert(
      fc.property(fc.constantFrom('admin', 'ADMIN', 'Admin', ' admin', 'dev,Admin', 'dev, ADMIN ,'), fc.boolean(), (sent, alias) => {
        expect(decide(perms, { [alias ? 'policies' : 'token_policies']: sent }).allowed).toBe(false);
      }),
    );
  });
});

describe('the seen bypasses (issue 23, item 2)', () => {
  const denyRoot = rule({ denied_parameters: { valid_principals: ['root'] } });
  const deployOnly = rule({ allowed_parameters: { valid_principals: ['deploy-*'] } });

  it.each([[['root']], [' root'], ['root,'], [',root'], ['deploy, root'], [['deploy', ' root ']]])('denied root, %j is refused', (sent) =>
    expect(decide(denyRoot, { valid_principals: sent }).allowed).toBe(false),
  );

  it.each([['deploy-a,root'], [['deploy-a', 'root']], ['deploy-a, root']])('allowed deploy-*, %j is refused', (sent) =>
    expect(decide(deployOnly, { valid_principals: sent }).allowed).toBe(false),
  );

  it('a duration denied as "1h" holds against 3600 and "60m"', () => {
    const perms = rule({ denied_parameters: { ttl: ['1h'] } });
    for (const ttl of [3600, '3600', '60m', '1h0m', '3600s']) expect(decide(perms, { ttl }).allowed, String(ttl)).toBe(false);
    expect(decide(perms, { ttl: '2h' }).allowed).toBe(true);
  });

  it('a DNS name denied in lower case holds in any case', () => {
    const perms = rule({ denied_parameters: { common_name: ['prod.example.com'] } });
    expect(decide(perms, { common_name: 'PROD.Example.com' }).allowed).toBe(false);
  });
});
