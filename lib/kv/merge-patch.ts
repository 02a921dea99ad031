/**
 * JSON Merge Patch (RFC 7386), as Vault applies a KV patch: an object merges key by key, a null
 * removes the key, anything else replaces the value.
 */
export function mergePatch(target: unknown, patch: unknown): Record<string, unknown> {
  return apply(target, patch) as Record<string, unknown>;
}

function apply(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = apply(out[k], v);
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
