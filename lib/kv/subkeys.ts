/**
 * A version's subkeys, as Vault's subkeys endpoint answers them: the data's keys with every leaf
 * value (and empty object) replaced by null, down to `depth` levels (0: all of them).
 */
export function subkeys(data: Record<string, unknown>, depth: number): Record<string, unknown> {
  return walk(data, 1, depth);
}

function walk(data: Record<string, unknown>, level: number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    // An empty object is a leaf too, as Vault treats it.
    const nested = typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0;
    out[k] = nested && (depth === 0 || level < depth) ? walk(v as Record<string, unknown>, level + 1, depth) : null;
  }
  return out;
}
