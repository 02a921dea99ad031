/** A KV mount of either version, for tests that serve their own mounts. */
import type { Mount } from '../../../lib/config';

export const kvMount = (path: string, version: '1' | '2'): Mount => ({
  path,
  type: 'kv',
  description: `KV version ${version}`,
  defaultLeaseTtl: 768 * 3600,
  maxLeaseTtl: 768 * 3600,
  options: { version },
});
