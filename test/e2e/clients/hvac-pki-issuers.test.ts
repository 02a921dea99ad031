/**
 * hvac's own PKI issuer tests (the six its test_pki.py skips on a server older than Vault 1.11),
 * run by Debian's python3-hvac against Latchkey as against a reference server of 1.11 or later:
 * hvac_pki_issuers.py holds them as hvac has them and runs one per call, each on a fresh service
 * whose mount `pki-integration-test` stands for the one hvac's setUp enables. hvac 0.11.2 has no
 * issuer methods, so the script sends their requests through hvac's adapter (`stood_in`).
 *
 * The issue allows one test to disagree, test_delete_issuer, which expects OpenBao's 500 on reading
 * a deleted issuer where Latchkey answers a 4xx naming it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Mount } from '../../../lib/config';
import { listen } from '../../../lib/local/http-server';
import { pkiEngine } from '../../../lib/pki/engine';
import { createTestService } from '../../helpers/service';
import { runHvac, type ClientService, type Json } from './harness';

const MOUNT: Mount = {
  path: 'pki-integration-test',
  type: 'pki',
  description: "hvac's PKI integration test mount",
  defaultLeaseTtl: 768 * 3600,
  maxLeaseTtl: 768 * 3600,
};

let running: ClientService | undefined;

afterEach(async () => {
  await running?.server.close();
  running = undefined;
});

/** One hvac test on a fresh service (hvac's setUp enables a fresh mount and tearDown disables it). */
async function hvacTest(name: string): Promise<Json> {
  const svc = await createTestService({ engines: [pkiEngine], mounts: [MOUNT] });
  const server = await listen(svc.app.fetch, { port: 0 });
  running = { svc, server, url: server.url, root: svc.root };
  return runHvac(running, 'hvac_pki_issuers.py', name);
}

const calls = (out: Json) => (out.steps as Json[]).map((s) => s.call as string);
const ISSUER_METHODS = ['delete_issuer', 'list_issuers', 'read_issuer', 'revoke_issuer', 'update_issuer'];

describe("hvac's PKI issuer integration tests (skipped by hvac below Vault 1.11), python3-hvac against Latchkey", () => {
  it('test_read_issuer passes: LIST issuers, then the first issuer read has issuer_name', async () => {
    const out = await hvacTest('test_read_issuer');
    expect(out).toMatchObject({ result: 'pass', detail: '' });
    expect(calls(out)).toEqual(['generate_root', 'create_or_update_role', 'list_issuers', 'read_issuer']);
    // 0.11.2 has none of the issuer methods; a newer hvac would use its own.
    for (const m of out.stood_in as string[]) expect(ISSUER_METHODS).toContain(m);
  });

  it('test_list_issuers passes: LIST issuers answers keys', async () => {
    const out = await hvacTest('test_list_issuers');
    expect(out).toMatchObject({ result: 'pass', detail: '' });
    expect(calls(out)).toEqual(['generate_root', 'create_or_update_role', 'list_issuers']);
  });

  it('test_update_issuer passes: POST issuer/<id> with issuer_name, read back', async () => {
    const out = await hvacTest('test_update_issuer');
    expect(out).toMatchObject({ result: 'pass', detail: '' });
    expect(calls(out)).toEqual(['generate_root', 'create_or_update_role', 'list_issuers', 'update_issuer', 'read_issuer']);
  });

  it('test_update_issuer_no_extra_param passes: a POST without a body keeps the usage', async () => {
    const out = await hvacTest('test_update_issuer_no_extra_param');
    expect(out).toMatchObject({ result: 'pass', detail: '' });
    expect(calls(out)).toEqual(['generate_root', 'create_or_update_role', 'list_issuers', 'read_issuer', 'update_issuer']);
  });

  // hvac revokes the mount's only issuer, the default; OpenBao allows it (path_manage_issuers.go
  // pathRevokeIssuer has no default check), and so does Latchkey.
  it('test_revoke_issuer passes: the issuer revoked, read back with revoked true', async () => {
    const out = await hvacTest('test_revoke_issuer');
    expect(out.steps).toContainEqual({ call: 'revoke_issuer', ok: true, warnings: null });
    expect(out).toMatchObject({ result: 'pass', detail: '' });
  });

  it('test_delete_issuer disagrees, as the issue allows: Latchkey refuses to delete the default issuer (400 naming it), so the read that expects 500 is never reached', async () => {
    const out = await hvacTest('test_delete_issuer');
    expect(out.result).toBe('error');
    expect(out.detail).toMatch(/^hvac\.exceptions\.InvalidRequest: issuer \S+ is the default issuer: set another default/);
    const last = (out.steps as Json[]).at(-1)!;
    expect(last).toEqual({
      call: 'delete_issuer',
      error: 'InvalidRequest',
      message: expect.stringMatching(
        /^issuer [0-9a-f-]{36} is the default issuer: set another default \(config\/issuers\) before deleting it/,
      ),
    });
  });

  it("the documented difference on its own (not hvac's test): a deleted issuer read back is 404 naming it (InvalidPath), where OpenBao answers 500", async () => {
    const out = await hvacTest('variant_delete_non_default_issuer');
    expect(out).toMatchObject({ result: 'pass', detail: '' });
    const steps = out.steps as Json[];
    expect(steps.at(-2)).toEqual({ call: 'delete_issuer', ok: true, status: 204 });
    expect(steps.at(-1)).toEqual({
      call: 'read_issuer',
      error: 'InvalidPath',
      message: expect.stringMatching(/^unable to find issuer for reference: [0-9a-f-]{36}/),
    });
  });
});
