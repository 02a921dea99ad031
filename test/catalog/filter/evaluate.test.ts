/**
 * The catalog filter grammar (`?filter`) as the reference catalog documents it: what each
 * expression selects, and every expression this catalog cannot evaluate refused with a 400
 * naming the problem.
 */
import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../../lib/catalog/filter/evaluate';
import { SERVICE_NODE, CHECK_SERVICE_NODE } from '../../../lib/catalog/filter/schema';
import { InvalidInput } from '../../../lib/domain-errors';
import { httpErrorOf } from '../../../lib/errors';

const SN = [
  {
    Node: 'n1',
    ServiceName: 'web',
    ServiceTags: ['blue', 'v1'],
    ServicePort: 80,
    ServiceMeta: { version: '1', 'my-key': 'x' },
    NodeMeta: { env: 'prod' },
    ServiceEnableTagOverride: true,
  },
  { Node: 'n2', ServiceName: 'web', ServiceTags: [], ServicePort: 8080, ServiceMeta: {}, NodeMeta: null, ServiceEnableTagOverride: false },
  {
    Node: 'db-1',
    ServiceName: 'db',
    ServiceTags: ['green'],
    ServicePort: 5432,
    ServiceMeta: { version: '2' },
    NodeMeta: { env: 'dev' },
    ServiceEnableTagOverride: false,
  },
];
const nodesOf = (expr: string, items: unknown[] = SN, schema = SERVICE_NODE) =>
  compileFilter(expr, schema, 'test')(items).map((x) => (x as { Node: string | { Node: string } }).Node);

function refusal(expr: string, schema = SERVICE_NODE): string {
  try {
    compileFilter(expr, schema, 'test')(SN);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidInput);
    expect(httpErrorOf(e).status).toBe(400);
    return (e as InvalidInput).message;
  }
  throw new Error(`accepted: ${expr}`);
}

describe('the filter grammar', () => {
  it.each([
    ['ServiceName == web', ['n1', 'n2']],
    ['ServiceName == "web"', ['n1', 'n2']],
    ['ServiceName != `web`', ['db-1']],
    ['ServicePort == 8080', ['n2']],
    ['ServiceEnableTagOverride == true', ['n1']],
    ['blue in ServiceTags', ['n1']],
    ['"blue" not in ServiceTags', ['n2', 'db-1']],
    ['ServiceTags contains green', ['db-1']],
    ['ServiceTags not contains green', ['n1', 'n2']],
    ['ServiceTags is empty', ['n2']],
    ['ServiceTags is not empty', ['n1', 'db-1']],
    ['ServiceMeta is empty', ['n2']],
    ['Node matches "^n[0-9]$"', ['n1', 'n2']],
    ['Node not matches "^n"', ['db-1']],
    ['Node matches "(?i)^DB"', ['db-1']],
    ['Node contains "-"', ['db-1']],
    ['"b-" in Node', ['db-1']],
    ['ServiceMeta.version == 1', ['n1']],
    ['ServiceMeta.version != 1', ['n2', 'db-1']],
    ['ServiceMeta["my-key"] == x', ['n1']],
    ['"/ServiceMeta/version" == 2', ['db-1']],
    ['version in ServiceMeta', ['n1', 'db-1']],
    ['NodeMeta.env is empty', ['n2']],
    ['NodeMeta.env is not empty', ['n1', 'db-1']],
    ['NodeMeta is nil', ['n2']],
    ['ServiceName == web and not (ServicePort == 80)', ['n2']],
    ['ServiceName == db or ServicePort == 80 and ServiceTags contains blue', ['n1', 'db-1']],
    ['(ServiceName == db or ServicePort == 80) and ServiceTags contains blue', ['n1']],
    ['not not ServiceName == db', ['db-1']],
    ['  ( ServiceName==web )  ', ['n1', 'n2']],
    ['ServiceMeta.constructor == x or ServiceMeta["__proto__"] is not empty or toString in ServiceMeta', []],
  ])('%s', (expr, want) => {
    expect(nodesOf(expr)).toEqual(want);
  });

  it('selects through lists of objects: any element, or the numbered one', () => {
    const items = [
      { Node: { Node: 'a' }, Service: { Service: 'web', Tags: [] }, Checks: [{ Status: 'passing' }, { Status: 'critical' }] },
      { Node: { Node: 'b' }, Service: { Service: 'web', Tags: [] }, Checks: [{ Status: 'passing' }] },
    ];
    const names = (e: string) => compileFilter(e, CHECK_SERVICE_NODE, 't')(items).map((x) => x.Node.Node);
    expect(names('Checks.Status == critical')).toEqual(['a']);
    expect(names('Checks.0.Status == passing')).toEqual(['a', 'b']);
    expect(names('Checks.1.Status == critical')).toEqual(['a']);
    expect(names('Node.Node == b and Service.Service == web')).toEqual(['b']);
  });

  it.each([
    ['Nope == 1', 'Selector "Nope" is not valid'],
    ['ServiceMeta.version.deeper == 1', 'Selector "ServiceMeta.version.deeper" is not valid'],
    ['ServicePort == eighty', 'is not an integer'],
    ['ServiceEnableTagOverride == maybe', 'is not a boolean'],
    ['ServicePort contains 8', 'cannot perform in/contains operations on type int'],
    ['ServiceTags == blue', 'cannot perform equality operations on type list'],
    ['ServicePort is empty', 'cannot perform is-empty'],
    ['ServiceTags matches "a"', 'cannot perform matches'],
    ['Node matches "(?=a)"', 'lookaround is not RE2 syntax'],
    ['Node matches "(a)\\\\1"', 'back-references are not RE2 syntax'],
    ['Node matches "["', 'failed to compile regular expression'],
    ['any ServiceTags as t { t == "a" }', 'collection expressions'],
    ['ServiceName == "web', 'unterminated string literal'],
    ['ServiceName ==', 'expected a selector or a value'],
    ['ServiceName', 'expected an operator'],
    ['(ServiceName == web', 'unmatched parentheses'],
    ['ServiceName == web )', 'unexpected'],
    ['ServiceName == web xor Node == a', 'unexpected'],
    ['ServiceName = web', 'expected an operator'],
    ['"a" in 3', 'invalid selector'],
    ['ServiceMeta[version] == 1', 'invalid index'],
    ['ServiceName == "\\q"', 'invalid escape'],
    ['   ', 'the expression is empty'],
  ])('refuses %s', (expr, message) => {
    expect(refusal(expr)).toContain(message);
  });

  it('refuses expressions over 4096 characters or nested over 256 deep', () => {
    expect(refusal('x'.repeat(5000))).toContain('longer than 4096');
    expect(refusal('('.repeat(300))).toContain('nested expressions');
  });

  it('a catastrophic regular expression runs in linear time (RE2): no stop, the right answer', () => {
    const items = [SN[0], { ...SN[1], Node: `${'a'.repeat(5000)}!` }];
    expect(nodesOf('Node matches "^(a+)+$"', items)).toEqual([]);
    expect(nodesOf('Node not matches "^(a|a)*$"', items)).toEqual(['n1', `${'a'.repeat(5000)}!`]);
  });

  it('bounds the matching work of one answer with a 400, counted again for each answer', () => {
    const items = Array.from({ length: 400 }, (_, i) => ({ ...SN[0], Node: `${'a'.repeat(500)}${i}` }));
    const filter = compileFilter('Node matches "b"', SERVICE_NODE, 't');
    expect(filter(items.slice(0, 100))).toEqual([]);
    expect(() => filter(items)).toThrow(/more than \d+ steps/);
    expect(filter(items.slice(0, 100))).toEqual([]);
  });
});
