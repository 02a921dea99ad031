/**
 * ssh2, loaded on its first use: only importing an OpenSSH-format key, checking an admin key
 * and running a dynamic role's install script need it, and evaluating it (with the Node
 * modules it pulls in: child_process, dgram, dns, zlib, assert) was the biggest part of the
 * SSH function's cold start. The bundle keeps it (esbuild turns this `import()` into a deferred
 * `require` of the bundled module); nothing of it runs until a request needs it.
 */
import type * as Ssh2 from 'ssh2';

type Ssh2Module = typeof Ssh2;
let loaded: Promise<Ssh2Module> | undefined;

export function loadSsh2(): Promise<Ssh2Module> {
  // ssh2 is CommonJS: its exports are the ES module's default.
  loaded ??= import('ssh2').then((m) => ((m as { default?: Ssh2Module }).default ?? m) as Ssh2Module);
  return loaded;
}

/** The first key of ssh2's parse of `text` (an Error when it does not parse). */
export async function parseSshKey(text: string): Promise<Ssh2.ParsedKey | Error | undefined> {
  const parsed = (await loadSsh2()).utils.parseKey(text);
  return Array.isArray(parsed) ? parsed[0] : parsed;
}
