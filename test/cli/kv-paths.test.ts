/** The KV paths the preflight gives: version 2's API segment after the mount, version 1 as given. */
import { describe, expect, it } from 'vitest';
import { kvPath } from '../../lib/cli/kv-paths';

describe('kvPath', () => {
  it.each([
    ['secret/', 'secret/foo', 'data', 'secret/data/foo'],
    ['secret/', 'secret/a/b', 'metadata', 'secret/metadata/a/b'],
    ['secret/', 'secret', 'metadata', 'secret/metadata'],
    ['team/kv/', 'team/kv/x', 'data', 'team/kv/data/x'],
  ])('v2 %s %s %s', (mount, path, seg, out) => expect(kvPath({ mount, version: 2 }, path, seg)).toBe(out));

  it('v1 leaves the path alone', () => expect(kvPath({ mount: 'kv/', version: 1 }, 'kv/foo', 'data')).toBe('kv/foo'));
});
