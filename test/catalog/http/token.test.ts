/** Table tests: where a catalog request's token comes from. */
import { describe, expect, it } from 'vitest';
import { catalogToken } from '../../../lib/catalog/http/token';

describe('token sources', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  it.each([
    [{ 'x-catalog-token': 'a', 'x-consul-token': 'b', authorization: 'Bearer c' }, 'token=d', 'a'],
    [{ 'x-consul-token': 'b', authorization: 'Bearer c' }, 'token=d', 'b'],
    [{ authorization: 'bearer c' }, 'token=d', 'c'],
    [{ authorization: 'Basic Zm9v' }, 'token=d', 'd'],
    [{}, 'token=d', 'd'],
    [{}, '', undefined],
    [{ 'x-catalog-token': '' }, 'token=', undefined],
  ])('%j %j -> %j', (headers, query, want) => expect(catalogToken(h(headers), new URLSearchParams(query))).toBe(want));
});
