/**
 * The approle method on the local service (the embedded store, real HTTP): a single-use secret id
 * raced by 50 concurrent logins gives exactly one token, a five-use one exactly five; no secret
 * id appears in a log line or in clear in the mount's partition.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setLogLevel } from '../../../lib/log';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { captureLogs } from '../../helpers/capture-logs';

let local: LocalService;
let root: string;
let logs: string[];
const secrets: string[] = [];

async function req(method: string, path: string, body?: unknown, token: string | undefined = root) {
  const res = await fetch(`${local.url}/v1/${path}`, {
    method,
    headers: { ...(token ? { 'x-vault-token': token } : {}), 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, any>) : undefined }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function secretId(role: string, body: Record<string, unknown> = {}): Promise<string> {
  const r = await req('POST', `auth/approle/role/${role}/secret-id`, body);
  expect(r.status).toBe(200);
  const s = r.json!.data.secret_id as string;
  secrets.push(s);
  return s;
}

/** Fires `n` logins at once; answers the statuses. */
async function race(roleId: string, secret: string, n: number): Promise<number[]> {
  const all = await Promise.all(
    Array.from({ length: n }, () => req('POST', 'auth/approle/login', { role_id: roleId, secret_id: secret }, undefined)),
  );
  for (const r of all) if (r.status !== 200) expect(r.json!.errors).toEqual(['invalid role or secret ID']);
  return all.map((r) => r.status);
}

beforeAll(async () => {
  logs = captureLogs();
  local = await startLocal({ dataDir: mkdtempSync(join(tmpdir(), 'latchkey-approle-')), port: 0, quiet: true });
  root = local.rootToken!;
  expect((await req('POST', 'auth/approle/role/race', { token_policies: 'p' })).status).toBe(204);
});

afterAll(async () => {
  await local.close();
  setLogLevel('silent');
  vi.restoreAllMocks();
});

describe('approle on the local service', () => {
  it('a single-use secret id raced by 50 logins gives exactly one token (three rounds)', async () => {
    const roleId = (await req('GET', 'auth/approle/role/race/role-id')).json!.data.role_id as string;
    for (let round = 0; round < 3; round++) {
      const statuses = await race(roleId, await secretId('race', { num_uses: 1 }), 50);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 400)).toHaveLength(49);
    }
  });

  it('a five-use secret id raced by 50 logins gives exactly five tokens', async () => {
    const roleId = (await req('GET', 'auth/approle/role/race/role-id')).json!.data.role_id as string;
    const statuses = await race(roleId, await secretId('race', { num_uses: 5 }), 50);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
  });

  it('no secret id in a log line or in clear in the partition; the HMAC key is sealed', async () => {
    const unlimited = await secretId('race', { metadata: '{"app":"x"}' });
    const roleId = (await req('GET', 'auth/approle/role/race/role-id')).json!.data.role_id as string;
    expect((await req('POST', 'auth/approle/login', { role_id: roleId, secret_id: unlimited }, undefined)).status).toBe(200);
    expect((await req('POST', 'auth/approle/login', { role_id: roleId, secret_id: unlimited + 'x' }, undefined)).status).toBe(400);
    const items = [];
    let cursor: string | undefined;
    const part = local.deps.store.partition('auth/approle');
    do {
      const page = await part.list('', { limit: 500, ...(cursor ? { cursor } : {}) });
      items.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    const raw = JSON.stringify(items);
    expect(items.some((i) => i.key.startsWith('secret-id/'))).toBe(true);
    expect(items.find((i) => i.key === 'config/hmac-key')?.value).toMatchObject({ $sealed: 1 });
    const text = logs.join('');
    expect(text).toContain('auth/approle/login');
    for (const s of secrets) {
      expect(raw).not.toContain(s);
      expect(text).not.toContain(s);
    }
  });
});
