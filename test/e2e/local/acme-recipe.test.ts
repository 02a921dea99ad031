/**
 * The README's local ACME recipe (issue 27), run as written with `sh`: a name for 127.0.0.1 in
 * /etc/hosts (as root), then, against a local server started with ACME_HTTP_PORT, a CA, the
 * cluster path, ACME on, and lego (Debian's, unmodified, as `nobody` when the tests run as root)
 * with --http on that port. The /etc/hosts line runs on a private copy (a mount namespace of its
 * own, `unshare -m`, in which the server runs too), so the machine's file is never touched. The
 * certificate lego writes must pass openssl verify against the mount's CA.
 * The recipe's text here is the README's (/tmp/readme-newcomer.md gives it to the lead); the
 * README examples test runs the README's own copy once it is marked.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkIssued } from '../../helpers/acme';
import { freePort } from '../../helpers/local-child';

/** As root, once: the name the http-01 check resolves. */
export const ACME_RECIPE_ROOT = `echo '127.0.0.1 web.dev.test' >> /etc/hosts`;

/** With ADDR and TOKEN set, against a server started with ACME_HTTP_PORT=5002 (or the port in ACME_HTTP_PORT). */
export const ACME_RECIPE = `curl -s -H "X-Svc-Token: $TOKEN" -X POST $ADDR/v1/pki/root/generate/internal -d '{"common_name": "Dev Root", "key_type": "ec"}'
curl -s -H "X-Svc-Token: $TOKEN" -X POST $ADDR/v1/pki/config/cluster -d "{\\"path\\": \\"$ADDR/v1/pki\\"}"
curl -s -H "X-Svc-Token: $TOKEN" -X POST $ADDR/v1/pki/config/acme -d '{"enabled": true}'
lego --server $ADDR/v1/pki/acme/directory --accept-tos --email dev@example.com --path ./lego \\
  --domains web.dev.test --http --http.port 127.0.0.1:\${ACME_HTTP_PORT:-5002} run
`;

const ROOT = join(import.meta.dirname, '..', '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'latchkey-acme-recipe-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const AS_NOBODY = process.getuid?.() === 0;

describe('the local ACME recipe', () => {
  it('gets lego a certificate from the local server on loopback, as written', async () => {
    chmodSync(tmp, 0o755);
    const work = join(tmp, 'work');
    mkdirSync(work);
    if (AS_NOBODY) chownSync(work, 65534, 65534);
    writeFileSync(join(tmp, 'root.sh'), ACME_RECIPE_ROOT + '\n');
    writeFileSync(join(tmp, 'recipe.sh'), ACME_RECIPE);
    const [port, httpPort] = [await freePort(), await freePort()];
    const dataDir = join(tmp, 'data');
    const asUser = AS_NOBODY ? 'setpriv --reuid=65534 --regid=65534 --clear-groups' : '';
    // One shell in a mount namespace of its own: a private /etc/hosts, the server, the recipe.
    const script = `set -e
cp /etc/hosts "$T/hosts" && mount --bind "$T/hosts" /etc/hosts
node --import tsx functions/local.ts > "$T/server.log" 2>&1 &
server=$!
trap 'kill $server; wait $server' EXIT
i=0; until curl -sf "$ADDR/v1/sys/health" > /dev/null; do i=$((i+1)); [ $i -lt 300 ] || exit 9; sleep 0.1; done
export TOKEN=$(cat "$DATA_DIR/root-token")
sh "$T/root.sh"
(cd "$T/work" && ${asUser} env HOME="$T/work" sh "$T/recipe.sh")
curl -sf "$ADDR/v1/pki/ca/pem" > "$T/ca.pem"
`;
    const env = {
      ...process.env,
      T: tmp,
      DATA_DIR: dataDir,
      PORT: String(port),
      ADDR: `http://127.0.0.1:${port}`,
      ACME_HTTP_PORT: String(httpPort),
      LOG_LEVEL: 'silent',
    };
    const run = await new Promise<{ code: number | null; out: string }>((done) => {
      const child = spawn('unshare', ['-m', 'sh', '-c', script], { cwd: ROOT, env });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) => done({ code, out }));
    });
    expect(run.code, run.out).toBe(0);
    const chain = readFileSync(join(tmp, 'work', 'lego', 'certificates', 'web.dev.test.crt'), 'utf8');
    const ca = readFileSync(join(tmp, 'ca.pem'), 'utf8');
    const issued = checkIssued(chain, ca);
    expect(issued.verify).toMatchObject({ ok: true });
    expect(issued.sans).toEqual(['DNS:web.dev.test']);
    // The machine's /etc/hosts was never touched.
    expect(readFileSync('/etc/hosts', 'utf8')).not.toContain('web.dev.test');
  }, 120_000);
});
