/** Secrets stay secret: not in the raw table, not in log lines, not in error messages. */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setLogLevel } from '../../../lib/log';
import { cat, catalogService, tokenFor, type CatalogService } from './helpers';

let svc: CatalogService;
let token: string;
beforeAll(async () => {
  svc = await catalogService({ acl: { enabled: true, default_policy: 'deny' } });
  token = await tokenFor(svc, 'kv-rw', { 'catalog/kv/*': ['create', 'update', 'read', 'delete', 'list'] });
});
afterEach(() => {
  setLogLevel('silent');
  vi.restoreAllMocks();
});

const VALUE = 'db-password=correct-horse-battery-staple-7f3a9c';
const BIG = `BIG-SECRET-${'q'.repeat(400 * 1024)}`;

async function rawTable(): Promise<string> {
  const items: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await svc.client.send(new ScanCommand({ TableName: svc.table, ...(start ? { ExclusiveStartKey: start as never } : {}) }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return JSON.stringify(items, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
}

describe('catalog secrets', () => {
  it('KV values are sealed in the table, small and chunked alike, and read back intact', async () => {
    expect((await cat(svc, 'PUT', '/v1/kv/secret/db', { raw: VALUE, catalogToken: token })).text).toBe('true');
    expect((await cat(svc, 'PUT', '/v1/kv/secret/big', { raw: BIG, catalogToken: token })).text).toBe('true');
    const table = await rawTable();
    expect(table).toContain('secret/db');
    for (const s of [VALUE, Buffer.from(VALUE).toString('base64'), 'correct-horse', 'BIG-SECRET', 'qqqqqqqqqqqqqqqq', token, svc.root]) {
      expect(table).not.toContain(s);
    }
    expect((await cat(svc, 'GET', '/v1/kv/secret/db?raw', { catalogToken: token })).text).toBe(VALUE);
    expect((await cat(svc, 'GET', '/v1/kv/secret/big?raw', { catalogToken: token })).text).toBe(BIG);
  });

  it('never logs a token (header or ?token=), a key or a value; errors do not echo them', async () => {
    const lines: string[] = [];
    const grab = (chunk: unknown) => (lines.push(String(chunk)), true);
    vi.spyOn(process.stdout, 'write').mockImplementation(grab);
    vi.spyOn(process.stderr, 'write').mockImplementation(grab);
    setLogLevel('info');
    await cat(svc, 'PUT', `/v1/kv/secret/logged-key-name?token=${encodeURIComponent(token)}`, { raw: VALUE });
    await cat(svc, 'GET', '/v1/kv/secret/logged-key-name', { headers: { authorization: `Bearer ${token}` } });
    const denied = await cat(svc, 'GET', '/v1/kv/secret/logged-key-name?token=lk.query-token-that-is-wrong');
    setLogLevel('silent');
    expect(denied.text).toBe('ACL not found');
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({ event: 'request', function: 'catalog', method: 'PUT', path: 'kv/{key}', status: 200 });
    const all = lines.join('\n');
    for (const s of [token, 'lk.query-token-that-is-wrong', VALUE, 'logged-key-name', 'correct-horse']) expect(all).not.toContain(s);
  });
});
