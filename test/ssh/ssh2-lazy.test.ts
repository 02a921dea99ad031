/**
 * ssh2 stays out of the SSH function's cold start: loading the engine (everything
 * functions/ssh.ts imports) evaluates none of it; the first use loads it.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const cache = createRequire(import.meta.url).cache;
const ssh2Loaded = () => Object.keys(cache).some((file) => /[/\\]node_modules[/\\]ssh2[/\\]/.test(file));

describe('ssh2, loaded on first use', () => {
  it('is not evaluated by loading the SSH engine and its Lambda entry', async () => {
    await import('../../lib/ssh/engine');
    await import('../../lib/lambda');
    await import('../../lib/composition');
    expect(ssh2Loaded()).toBe(false);
  });

  it('is loaded by the first use, once', async () => {
    const { loadSsh2, parseSshKey } = await import('../../lib/ssh/ssh2-lazy');
    const first = await loadSsh2();
    expect(ssh2Loaded()).toBe(true);
    expect(await loadSsh2()).toBe(first);
    expect(typeof first.Client).toBe('function');
    expect(await parseSshKey('not a key')).toBeInstanceOf(Error);
  });
});
