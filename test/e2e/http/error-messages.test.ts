/**
 * Every error names what was asked and what is missing (issue 27), on the local service as a
 * newcomer meets it: an unknown mount and an unknown path under a mount answer one way (a 404
 * naming the path asked), a 405 names the method, the path and the methods it takes, a read of
 * nothing names the path, and no answer or log line shows the router's patterns (`:name`,
 * `*key`): the log shows the documented template (`kv/{key}`), never the values.
 *
 * Kept empty on purpose, because clients depend on the exact shape:
 * - a LIST with no keys: Vault and OpenBao answer 404 `{"errors":[]}`, which the vault CLI
 *   (`No value found at …`), hvac and node-vault read as "no keys";
 * - the catalog's `kv/<key>` 404 for a key that does not exist: an empty body, by Consul's KV API
 *   (0-contract.md), which Consul's clients read as "no such key".
 * Vault's two phrases stay apart: "no handler for route" (no mount) and "unsupported path" (a
 * mount without that path); OpenBao's CLI tells "mount does not exist" from "not a PKI mount" by
 * them (internal/command/pki_issue_intermediate.go).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { setLogLevel } from '../../../lib/log';
import { captureLogs } from '../../helpers/capture-logs';

let svc: LocalService;
let root: string;
const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-errors-'));

beforeAll(async () => {
  svc = await startLocal({ dataDir, port: 0 });
  root = svc.rootToken!;
});
afterAll(async () => {
  await svc.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function ask(method: string, path: string, token: string | undefined = root): Promise<{ status: number; text: string }> {
  const r = await fetch(`${svc.url}${path}`, { method, headers: token ? { 'x-svc-token': token } : {} });
  return { status: r.status, text: await r.text() };
}

const envelope = (message: string) => JSON.stringify({ errors: [message] });

describe('error messages', () => {
  it.each([
    // No mount there, and a mount without the path: one form, the path asked, what is missing.
    ['GET', '/v1/nomount/x', 404, envelope('no handler for route "nomount/x": no mount serves it')],
    ['GET', '/v1/auth/nope/login', 404, envelope('no handler for route "auth/nope/login": no mount serves it')],
    ['GET', '/v1/', 404, envelope('no handler for route "/v1/": no mount serves it')],
    ['GET', '/v1/pki/nope', 404, envelope('unsupported path "pki/nope": the pki/ mount has no such path')],
    ['GET', '/v1/pki/nope/deeper', 404, envelope('unsupported path "pki/nope/deeper": the pki/ mount has no such path')],
    ['GET', '/v1/sys/nope', 404, envelope('unsupported path "sys/nope": the sys/ mount has no such path')],
    ['GET', '/v1/auth/token/nope', 404, envelope('unsupported path "auth/token/nope": the auth/token/ mount has no such path')],
    // A method the path lacks: the path as asked (not `sys/audit-hash/*path`) and what it takes.
    ['DELETE', '/v1/sys/health', 405, envelope('unsupported operation: DELETE on "sys/health"; it takes GET')],
    ['GET', '/v1/sys/audit-hash/file', 405, envelope('unsupported operation: GET on "sys/audit-hash/file"; it takes POST/PUT')],
    ['PATCH', '/v1/sys/mounts', 405, envelope('unsupported operation: PATCH on "sys/mounts"; it takes GET')],
    // A read of nothing: was `{"errors":[]}`.
    ['GET', '/v1/pki/roles/nope', 404, envelope('nothing found at "pki/roles/nope"')],
    ['GET', '/v1/ssh/roles/nope', 404, envelope('nothing found at "ssh/roles/nope"')],
    ['GET', '/v1/sys/policy/nope', 404, envelope('nothing found at "sys/policy/nope"')],
    // Kept: a LIST with no keys (Vault's shape, read by clients as "empty"), both ways of asking.
    ['LIST', '/v1/pki/roles', 404, '{"errors":[]}'],
    ['GET', '/v1/pki/roles?list=true', 404, '{"errors":[]}'],
    ['LIST', '/v1/ssh/roles', 404, '{"errors":[]}'],
    // Kept: the catalog's missing key, an empty body by Consul's KV API.
    ['GET', '/v1/kv/missing', 404, ''],
    // The catalog names the path asked, not its route pattern `/v1/kv/*key`.
    [
      'GET',
      '/v1/kv/some/key?filter=a',
      400,
      'Failed to create boolean expression evaluator: filtering is not supported on /v1/kv/some/key',
    ],
    ['GET', '/v1/kv/some/key?node-meta=a:b', 400, 'node-meta is not supported on /v1/kv/some/key'],
  ])('%s %s answers %i %s', async (method, path, status, body) => {
    const r = await ask(method, path);
    expect(r).toEqual({ status, text: body });
  });

  it('no 4xx answer shows a route pattern', async () => {
    const asked = [
      ['GET', '/v1/sys/audit-hash/x'],
      ['GET', '/v1/sys/leases/lookup/x'],
      ['PATCH', '/v1/pki/roles/x'],
      ['GET', '/v1/kv/a?filter=x'],
      ['GET', '/v1/catalog/nope'],
      ['DELETE', '/v1/auth/token/lookup'],
    ];
    for (const [method, path] of asked) {
      const r = await ask(method!, path!);
      expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(r.text, `${method} ${path}`).not.toMatch(/\/[:*][A-Za-z_]/);
    }
  });

  it('the log line shows the documented template, not the pattern and not the values', async () => {
    const lines = captureLogs();
    try {
      await ask('POST', '/v1/sys/audit-hash/file');
      await ask('PUT', '/v1/kv/team/secret-name');
      await ask('GET', '/v1/pki/roles/web-role');
    } finally {
      setLogLevel('silent');
      vi.restoreAllMocks();
    }
    const logged = lines.map((l) => JSON.parse(l) as { path?: string });
    expect(logged.map((l) => l.path)).toEqual(['sys/audit-hash/{path}', 'kv/{key}', 'pki/roles/{name}']);
    expect(lines.join('\n')).not.toMatch(/secret-name|web-role|\*key|:name/);
  });
});
