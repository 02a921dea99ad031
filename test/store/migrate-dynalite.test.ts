/**
 * A data directory written by the dynalite store is copied once into the embedded store:
 * every item with its version, counter and index entry (chunked values whole), then marked, so
 * a later start copies nothing. A copy that cannot be made stops the start with a message.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocal } from '../../lib/local/service';
import { DynamoStore } from '../../lib/store/dynamo-store';
import { startEmbeddedDynamo } from '../../lib/store/embedded';
import { checkLevelStore } from '../../lib/store/level-check';
import { LevelStore } from '../../lib/store/level-store';
import { migrateFromDynalite, ORIGIN } from '../../lib/store/migrate-dynalite';
import { sdkDynamoApi } from '../../lib/store/sdk-api';
import { ensureTable } from '../../lib/store/setup';
import type { Json, Page, Partition, Store, StoredItem } from '../../lib/store/store';

const ROOT = resolve(import.meta.dirname, '../..');
const TABLE = 'latchkey';
const cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-migrate-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The dynalite store on `dbDir`, as LOCAL_STORE=dynalite runs it; `close` stops it. */
async function dynaliteStore(dbDir: string): Promise<{ store: DynamoStore; close: () => Promise<void> }> {
  const server = await startEmbeddedDynamo({ path: dbDir });
  const client = new DynamoDBClient({
    endpoint: server.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  await ensureTable(client, TABLE);
  return {
    store: new DynamoStore(sdkDynamoApi(client), TABLE),
    close: async () => {
      client.destroy();
      await server.close();
    },
  };
}

async function all<T>(fetch: (cursor?: string) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetch(cursor);
    out.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/** What a store holds in the partitions and indexes named: items and index order. */
async function contents(store: Store, partitions: string[], indexes: string[]) {
  const out: Record<string, { items: StoredItem<Json>[]; indexes: Record<string, string[]> }> = {};
  for (const name of partitions) {
    const p: Partition = store.partition(name);
    const items = await all((cursor) => p.list('', cursor ? { cursor } : {}));
    const ix: Record<string, string[]> = {};
    for (const i of indexes) ix[i] = (await all((cursor) => p.queryIndex(i, cursor ? { cursor } : {}))).map((x) => x.key);
    out[name] = { items, indexes: ix };
  }
  return out;
}

describe('copying a dynalite data directory into the embedded store', () => {
  it('copies every item once, with versions, counters, index entries and chunked values', async () => {
    const dir = await tempDir();
    const old = await dynaliteStore(join(dir, 'db'));
    const sys = old.store.partition('sys');
    const pki = old.store.partition('pki/pki');
    for (let i = 0; i < 40; i++)
      await sys.put(`token/${i}`, { i, n: 'x'.repeat(i) }, i % 3 ? {} : { index: { name: 'expiry', sort: String(1000 - i) } });
    await sys.put('token/1', { rewritten: true });
    await sys.put('token/1', { rewritten: 2 });
    await pki.increment('serial', 41);
    await pki.increment('serial');
    const big = { lines: Array.from({ length: 30_000 }, (_, i) => `line ${i} é😀`) };
    await pki.put('crl/big', big, { index: { name: 'expiry', sort: '5' } });
    await pki.batchPut([
      { key: 'cert/a', value: 'a', index: { name: 'expiry', sort: '3' } },
      { key: 'cert/b', value: 'b' },
    ]);
    const expected = await contents(old.store, ['sys', 'pki/pki'], ['expiry']);
    await old.close();

    const store = await LevelStore.open(join(dir, 'store'));
    cleanup.push(() => store.close());
    expect(await migrateFromDynalite(store, join(dir, 'db'), TABLE)).toBe(40 + 4);
    expect(await contents(store, ['sys', 'pki/pki'], ['expiry'])).toEqual(expected);
    expect((await store.partition('sys').get('token/1'))?.version).toBe(3);
    expect(await store.partition('pki/pki').get('serial')).toEqual({ key: 'serial', value: 42, version: 2 });
    expect(await store.partition('pki/pki').increment('serial')).toBe(43);
    expect((await store.partition('pki/pki').get('crl/big'))?.value).toEqual(big);
    expect(await checkLevelStore(store)).toMatchObject({ items: 44, indexEntries: 16, problems: [] });
    expect(JSON.parse(store.getMeta(ORIGIN)!)).toMatchObject({ from: 'dynalite', items: 44 });

    // Marked: a second start copies nothing, and what was written since stays.
    await store.partition('sys').delete('token/2');
    expect(await migrateFromDynalite(store, join(dir, 'db'), TABLE)).toBeUndefined();
    expect(await store.partition('sys').get('token/2')).toBeUndefined();
  });

  it('a new data directory is marked new, and a later DATA_DIR/db is not copied over it', async () => {
    const dir = await tempDir();
    const store = await LevelStore.open(join(dir, 'store'));
    cleanup.push(() => store.close());
    expect(await migrateFromDynalite(store, join(dir, 'db'), TABLE)).toBeUndefined();
    expect(JSON.parse(store.getMeta(ORIGIN)!)).toEqual({ from: 'new' });
    const old = await dynaliteStore(join(dir, 'db'));
    await old.store.partition('sys').put('stranger', 1);
    await old.close();
    expect(await migrateFromDynalite(store, join(dir, 'db'), TABLE)).toBeUndefined();
    expect(await store.partition('sys').get('stranger')).toBeUndefined();
  });

  it('npm start on a data directory of the dynalite store serves its data, the root token included', async () => {
    const dataDir = await tempDir();
    const first = await startLocal({ dataDir, port: 0, store: 'dynalite' });
    const root = first.rootToken!;
    const headers = { 'x-svc-token': root, 'content-type': 'application/json' };
    expect(
      (
        await fetch(`${first.url}/v1/sys/policy/kept`, {
          method: 'PUT',
          headers,
          body: JSON.stringify({ policy: '{"path":{"sys/mounts":{"capabilities":["read"]}}}' }),
        })
      ).status,
    ).toBe(204);
    expect((await fetch(`${first.url}/v1/kv/app/config?cas=0`, { method: 'PUT', headers, body: 'v1' })).status).toBe(200);
    await first.close();

    const second = await startLocal({ dataDir, port: 0 });
    try {
      expect(second.rootToken).toBeUndefined();
      expect(readFileSync(join(dataDir, 'root-token'), 'utf8').trim()).toBe(root);
      const policy = await fetch(`${second.url}/v1/sys/policy/kept`, { headers });
      expect(policy.status).toBe(200);
      const kv = await fetch(`${second.url}/v1/kv/app/config?raw`, { headers });
      expect(await kv.text()).toBe('v1');
      // The catalog's check-and-set index came along with the item's version.
      expect(await (await fetch(`${second.url}/v1/kv/app/config?cas=0`, { method: 'PUT', headers, body: 'v2' })).text()).toBe('false');
    } finally {
      await second.close();
    }
  });

  it('a copy that cannot be made stops the start, naming the directory and the way back', async () => {
    const dataDir = await tempDir();
    const old = await dynaliteStore(join(dataDir, 'db'));
    await old.store.partition('sys').put('x', 1);
    await old.close();
    // Another process (an older local service, say) still has the directory open.
    const script = `import('${join(ROOT, 'lib/store/embedded.ts')}').then((m) => m.startEmbeddedDynamo({ path: ${JSON.stringify(join(dataDir, 'db'))} })).then(() => console.log('ready'));`;
    const holder = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise<void>((ok, fail) => {
        holder.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && ok());
        holder.once('exit', () => fail(new Error('the holder exited')));
      });
      await expect(startLocal({ dataDir, port: 0 })).rejects.toThrow(
        /db holds data of the dynalite store and could not be copied into the embedded store \(it is in use by another process\)\. .*LOCAL_STORE=dynalite/,
      );
    } finally {
      await new Promise((r) => {
        holder.once('exit', r);
        holder.kill('SIGKILL');
      });
    }
    // Nothing was marked: the next start copies.
    const svc = await startLocal({ dataDir, port: 0 });
    expect((await svc.deps.store.partition('sys').get('x'))?.value).toBe(1);
    await svc.close();
  });
});
