/**
 * Managed keys: names (from the MANAGED_KEYS environment variable, a JSON object
 * `{"name": {"key_id": "<KMS key id or ARN>"}}`) resolved to asymmetric KMS keys.
 */
import { InvalidInput } from '../domain-errors';
import { KmsSigner } from '../keys/signer-kms';

export interface ManagedKey {
  name: string;
  keyId: string;
}

export function managedKeys(env: NodeJS.ProcessEnv = process.env): ManagedKey[] {
  const raw = env.MANAGED_KEYS;
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null) return [];
  return Object.entries(parsed as Record<string, { key_id?: unknown }>)
    .filter(([, v]) => typeof v?.key_id === 'string')
    .map(([name, v]) => ({ name, keyId: v.key_id as string }));
}

/** Finds the managed key by name or by key id; 400 when neither names a configured key. */
export function resolveManagedKey(name: string | undefined, id: string | undefined): ManagedKey {
  if (!name && !id) throw new InvalidInput('type kms needs managed_key_name or managed_key_id');
  const key = managedKeys().find((k) => (name ? k.name === name : k.keyId === id || k.keyId.endsWith(`/${id}`)));
  if (!key)
    throw new InvalidInput(`no managed key is configured as ${name ? `"${name.slice(0, 80)}"` : `id "${(id ?? '').slice(0, 80)}"`}`);
  return key;
}

export async function openManagedSigner(keyId: string, region: string, endpoint: string | undefined): Promise<KmsSigner> {
  try {
    return await KmsSigner.open({ keyId, region, ...(endpoint ? { endpoint } : {}) });
  } catch (e) {
    throw new InvalidInput(`the managed key is not usable: ${e instanceof Error ? e.message : 'unknown error'}`, { cause: e });
  }
}
