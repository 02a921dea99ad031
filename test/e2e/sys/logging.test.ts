import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setLogLevel } from '../../../lib/log';
import { call, createTestService, type TestService } from '../../helpers/service';
import { captureLogs } from '../../helpers/capture-logs';

let svc: TestService;
beforeAll(async () => {
  // The stdout audit device, beside the operational log (vitest.config.ts sets none).
  process.env.AUDIT_DEVICES = 'stdout';
  svc = await createTestService();
});
afterEach(() => {
  setLogLevel('silent');
  vi.restoreAllMocks();
});

describe('request logs', () => {
  it('write one JSON line per request with the safe fields only', async () => {
    const lines = captureLogs();
    const secretPolicy = 'policy-body-that-must-not-be-logged';
    const created = await call(svc.app, 'POST', '/v1/auth/token/create?token=query-secret', {
      token: svc.root,
      body: { policies: ['x'], meta: { note: secretPolicy } },
    });
    await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: created.json!.auth.client_token });
    await call(svc.app, 'GET', '/v1/sys/mounts', { token: 'lk.wrong-token-value' });
    setLogLevel('silent');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    // The audit device (stdout) writes beside the operational log, told apart by `type` and no `event`.
    const entries = parsed.filter((e) => 'event' in e);
    expect(entries).toHaveLength(3);
    expect(parsed.filter((e) => !('event' in e)).map((e) => e.type)).toEqual([
      'request',
      'response',
      'request',
      'response',
      'request',
      'response',
    ]);
    expect(entries[0]).toMatchObject({
      event: 'request',
      function: 'sys',
      mount: 'auth/token',
      path: 'auth/token/create',
      method: 'POST',
      status: 200,
    });
    expect(entries[0]).toHaveProperty('request_id');
    expect(entries[0]).toHaveProperty('duration_ms');
    expect(entries[2]).toMatchObject({ path: 'sys/mounts', status: 403 });
    const operational = entries.map((e) => JSON.stringify(e)).join('\n');
    for (const secret of [svc.root, created.json!.auth.client_token, secretPolicy, 'query-secret', 'lk.wrong-token-value']) {
      expect(operational).not.toContain(secret);
    }
    // The audit records hold tokens and request values only as HMACs (token metadata stays readable, as the reference records it).
    const audit = lines.filter((l) => !l.includes('"event"')).join('\n');
    for (const secret of [svc.root, created.json!.auth.client_token, 'query-secret', 'lk.wrong-token-value']) {
      expect(audit).not.toContain(secret);
    }
  });

  it('log a fault with its cause, and answer the client with a generic message', async () => {
    const lines = captureLogs();
    const policies: typeof svc.deps.policies = Object.create(svc.deps.policies);
    policies.list = () => Promise.reject(new Error('disk on fire'));
    const { sysFunctionApp } = await import('../../../lib/sys-function');
    const r = await call(sysFunctionApp({ ...svc.deps, policies }), 'LIST', '/v1/sys/policy', { token: svc.root });
    setLogLevel('silent');
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ errors: ['internal error'] });
    expect(lines.join('\n')).toContain('disk on fire');
  });
});
