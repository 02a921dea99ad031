/**
 * The README's shell examples that run against a local server, run as written (issue 27): each
 * fenced `sh` block marked just before its fence with
 *
 *   <!-- run-local -->                  a new script
 *   <!-- run-local B=$ADDR/v1 -->       a new script, with these variables exported first
 *   <!-- run-local continued -->        appended to the script before it (a later step of a walkthrough)
 *
 * is run with `sh` against a fresh local server listening on 127.0.0.1:8200, as the README's
 * examples assume, in a network namespace of its own (`unshare -n`), so the port is free whatever
 * runs on this machine. The working directory holds `data/` (the server's DATA_DIR), so
 * `cat data/root-token` works as written; ADDR (http://127.0.0.1:8200) and TOKEN (the root token)
 * are set too. A script passes when it exits 0 and no answer it printed is a Vault error envelope
 * with a message (`{"errors":["…`).
 * Until the markers are in the README this finds no script and passes; the first test checks the
 * extraction itself on a sample. README_EXAMPLES_FILE=<file> runs another file's examples.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'latchkey-readme-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

export interface Script {
  /** Where the first block starts (README line, 1-based). */
  line: number;
  text: string;
}

const MARKED =
  /^([ \t]*)<!--\s*run-local(?:\s+([^>]*?))?\s*-->[ \t]*\n(?:[ \t]*\n)*[ \t]*```(?:sh|bash|shell)[ \t]*\n([\s\S]*?)\n[ \t]*```/gm;

/** The marked blocks of a Markdown text, as scripts (a `continued` block joins the one before). */
export function markedScripts(markdown: string): Script[] {
  const scripts: Script[] = [];
  for (const m of markdown.matchAll(MARKED)) {
    const indent = m[1] ?? '';
    const args = (m[2] ?? '').split(/\s+/).filter(Boolean);
    const body = (m[3] ?? '')
      .split('\n')
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join('\n');
    const line = markdown.slice(0, m.index).split('\n').length;
    if (args[0] === 'continued') {
      const last = scripts.at(-1);
      if (!last) throw new Error(`README line ${line}: "run-local continued" follows no run-local block`);
      last.text += `\n${body}`;
      continue;
    }
    const exports = args.map((a) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) throw new Error(`README line ${line}: "${a}" is not NAME=value`);
      return `export ${a}\n`;
    });
    scripts.push({ line, text: exports.join('') + body });
  }
  return scripts;
}

/** Runs one script against a fresh local server on 127.0.0.1:8200 in its own network namespace. */
function runScript(script: Script, n: number): Promise<{ code: number | null; out: string }> {
  const dir = join(tmp, `s${n}`);
  mkdirSync(join(dir, 'work'), { recursive: true });
  writeFileSync(join(dir, 'snippet.sh'), script.text + '\n');
  const harness = `set -e
ip link set lo up
DATA_DIR="$D/work/data" PORT=8200 node --import tsx functions/local.ts > "$D/server.log" 2>&1 &
server=$!
trap 'kill $server; wait $server' EXIT
i=0; until curl -sf http://127.0.0.1:8200/v1/sys/health > /dev/null; do i=$((i+1)); [ $i -lt 300 ] || exit 9; sleep 0.1; done
export ADDR=http://127.0.0.1:8200 TOKEN=$(cat "$D/work/data/root-token")
cd "$D/work" && sh -e "$D/snippet.sh"
`;
  return new Promise((done) => {
    const child = spawn('unshare', ['-n', 'sh', '-c', harness], { cwd: ROOT, env: { ...process.env, D: dir, LOG_LEVEL: 'silent' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => done({ code, out }));
  });
}

describe('the README examples', () => {
  it('are extracted from their markers (a sample)', () => {
    const sample = [
      'text',
      '<!-- run-local -->',
      '```sh',
      'curl -s $ADDR/v1/sys/health',
      '```',
      '```sh',
      'not marked',
      '```',
      '1. **Step.**',
      '   <!-- run-local B=$ADDR/v1 -->',
      '   ```sh',
      '   curl -s $B/sys/health',
      '   ```',
      '2. **Next.**',
      '   <!-- run-local continued -->',
      '',
      '   ```sh',
      '   echo "$B"',
      '   ```',
    ].join('\n');
    expect(markedScripts(sample)).toEqual([
      { line: 2, text: 'curl -s $ADDR/v1/sys/health' },
      { line: 10, text: 'export B=$ADDR/v1\ncurl -s $B/sys/health\necho "$B"' },
    ]);
  });

  // README_EXAMPLES_FILE: another Markdown file (a README change, checked before it is merged).
  const scripts = markedScripts(readFileSync(process.env.README_EXAMPLES_FILE ?? join(ROOT, 'README.md'), 'utf8'));

  it(`finds the marked examples (${scripts.length} now; none until the markers are added)`, () => {
    expect(scripts.length).toBeGreaterThanOrEqual(0);
  });

  scripts.forEach((script, n) => {
    it(`README line ${script.line} runs as written`, async () => {
      const r = await runScript(script, n);
      const shown = `README line ${script.line}:\n${script.text}\n--- output:\n${r.out}`;
      expect(r.code, shown).toBe(0);
      expect(r.out, shown).not.toMatch(/\{"errors":\["/);
    }, 120_000);
  });
});
