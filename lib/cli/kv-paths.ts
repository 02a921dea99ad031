/**
 * The KV preflight as the vault CLI makes it: `sys/internal/ui/mounts/<path>` names the mount and
 * its version; a version 2 path gets the API's segment after the mount (`secret/foo` →
 * `secret/data/foo`). A 404 (a server without the call) means version 1, the path as given.
 */
import type { LatchkeyClient } from '../client/client';

export interface KvMount {
  /** The mount, with its trailing slash (`secret/`), or '' when unknown. */
  mount: string;
  version: 1 | 2;
}

export async function kvPreflight(client: LatchkeyClient, path: string): Promise<KvMount> {
  const r = await client.request('GET', `sys/internal/ui/mounts/${path}`, { anyStatus: true });
  if (r.status === 404) return { mount: '', version: 1 };
  if (r.status >= 400) {
    const { ClientError } = await import('../client/client');
    throw new ClientError('GET', `sys/internal/ui/mounts/${path}`, r.status, Array.isArray(r.json?.errors) ? r.json.errors : [r.text], r);
  }
  const d = r.json?.data ?? {};
  return { mount: String(d.path ?? ''), version: String(d.options?.version ?? '1') === '2' ? 2 : 1 };
}

/** `secret/foo` with segment `data` → `secret/data/foo` (a version 1 path is left alone). */
export function kvPath(m: KvMount, path: string, segment: string): string {
  if (m.version === 1) return path;
  const clean = path.replace(/^\/+/, '');
  const mount = m.mount.replace(/\/+$/, '');
  const rest = clean === mount ? '' : clean.startsWith(`${mount}/`) ? clean.slice(mount.length + 1) : clean;
  return `${mount}/${segment}${rest ? `/${rest}` : ''}`;
}
