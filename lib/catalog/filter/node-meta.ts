/**
 * `?node-meta=key:value` (repeatable): only nodes whose metadata has every pair. A pair without
 * `:` asks for the key with an empty value, as the reference reads it.
 */
import { InvalidInput } from '../../domain-errors';
import type { StringMap } from '../records';

export type NodeMetaTest = (meta: StringMap | null) => boolean;

export function nodeMetaFilter(q: URLSearchParams, supported: boolean, where: string): NodeMetaTest {
  const raw = q.getAll('node-meta');
  if (!raw.length) return () => true;
  if (!supported) throw new InvalidInput(`node-meta is not supported on ${where}`);
  if (raw.length > 64) throw new InvalidInput('Invalid node-meta: more than 64 pairs');
  const pairs = raw.map((p): [string, string] => {
    const at = p.indexOf(':');
    const key = at === -1 ? p : p.slice(0, at);
    if (key === '') throw new InvalidInput(`Invalid node-meta ${JSON.stringify(p.slice(0, 64))}: expected key:value`);
    return [key, at === -1 ? '' : p.slice(at + 1)];
  });
  return (meta) => pairs.every(([k, v]) => meta !== null && Object.hasOwn(meta, k) && meta[k] === v);
}
