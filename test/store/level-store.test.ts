/**
 * The embedded store beyond the shared contract (test/store/store-contract.test.ts): one
 * process per directory, data kept across a reopen, concurrent writes committed together
 * without losing their conditions, the integrity check, and transactions whole or absent across
 * kill -9.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, ExistsError } from '../../lib/domain-errors';
import { startLocal } from '../../lib/local/service';
import { checkLevelStore } from '../../lib/store/level-check';
import { headBase, headKey, indexBase, indexKey } from '../../lib/store/level-keys';
import { LevelStore } from '../../lib/store/level-store';

const ROOT = resolve(import.meta.dirname, '../..');
const cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-level-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function open(dir: string): Promise<LevelStore> {
  const store = await LevelStore.open(dir);
  let closed = false;
  cleanup.push(async () => {
    if (!closed) await store.close();
  });
  const close = store.close.bind(store);
  store.close = async () => {
    closed = true;
    await close();
  };
  return store;
}

describe('the embedded store', () => {
  it('is owned by one process: a second process, or a second open, is refused with a clear message', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.partition('p').put('k', 'v');
    await expect(LevelStore.open(dir)).rejects.toThrow(/the store at .* is already open in this process/);

    const script = `import('${join(ROOT, 'lib/store/level-store.ts')}').then(({ LevelStore }) => LevelStore.open(${JSON.stringify(dir)})).then(() => console.log('opened'), (e) => { console.log(e.message); process.exit(3); });`;
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT });
    const failed = await run.then(
      () => undefined,
      (e: { code: number; stdout: string }) => e,
    );
    expect(failed?.code).toBe(3);
    expect(failed?.stdout).toMatch(/the store at .* is in use by another process \(its LOCK is held\)/);

    await store.close();
    const again = await open(dir);
    expect((await again.partition('p').get('k'))?.value).toBe('v');
  });

  it('keeps items, versions, counters and index entries across a reopen', async () => {
    const dir = await tempDir();
    const first = await open(dir);
    const p = first.partition('pki/pki');
    await p.put('cert/1', { pem: 'x' }, { index: { name: 'expiry', sort: '2030' } });
    await p.put('cert/1', { pem: 'y' });
    await p.increment('serials', 5);
    await p.batchPut([{ key: 'b/1', value: 1, index: { name: 'expiry', sort: '2029' } }]);
    await first.close();

    const second = await open(dir);
    const q = second.partition('pki/pki');
    expect(await q.get('cert/1')).toEqual({ key: 'cert/1', value: { pem: 'y' }, version: 2 });
    expect(await q.increment('serials')).toBe(6);
    expect((await q.queryIndex('expiry')).items.map((i) => i.key)).toEqual(['b/1', 'cert/1']);
    expect(await checkLevelStore(second)).toEqual({ items: 3, indexEntries: 2, problems: [] });
  });

  it('commits concurrent writes together, each keeping its condition', async () => {
    const store = await open(await tempDir());
    const p = store.partition('p');
    const before = { ...store.writer.stats };
    const writes = Array.from({ length: 200 }, (_, i) =>
      p.put(`k/${String(i).padStart(3, '0')}`, { i }, { index: { name: 'i', sort: String(i % 7) } }),
    );
    const creates = Array.from({ length: 20 }, (_, i) => p.put('once', i, { ifAbsent: true }));
    const stale = p.put('k/000', 'stale', { ifVersion: 5 });
    const results = await Promise.allSettled([...writes, ...creates, stale]);
    expect(results.slice(0, 200).every((r) => r.status === 'fulfilled')).toBe(true);
    const created = results.slice(200, 220);
    expect(created.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(created.filter((r) => r.status === 'rejected' && r.reason instanceof ExistsError)).toHaveLength(19);
    expect(results[220]).toMatchObject({ status: 'rejected', reason: expect.any(ConflictError) });

    const batches = store.writer.stats.batches - before.batches;
    expect(store.writer.stats.plans - before.plans).toBe(221);
    expect(batches).toBeLessThan(221);
    expect((await p.listKeys('k/')).items).toHaveLength(200);
    expect((await p.queryIndex('i', { from: '3', to: '3' })).items.map((i) => i.value)).toEqual(
      Array.from({ length: 200 }, (_, i) => i)
        .filter((i) => i % 7 === 3)
        .map((i) => ({ i })),
    );
    expect(await checkLevelStore(store)).toEqual({ items: 201, indexEntries: 200, problems: [] });
  });

  it('the integrity check finds a half-written record of each kind', async () => {
    const store = await open(await tempDir());
    const p = store.partition('p');
    await p.put('whole', 1, { index: { name: 'exp', sort: '1' } });
    await p.put('lost-entry', 2, { index: { name: 'exp', sort: '2' } });
    await p.put('broken', 3);
    expect((await checkLevelStore(store)).problems).toEqual([]);
    // Raw damage, as a write split in two and cut by a crash would leave it.
    await store.db.del(indexKey(indexBase('p', 'exp'), '2', 'lost-entry'));
    await store.db.put(indexKey(indexBase('p', 'exp'), '3', 'no-item'), Buffer.alloc(0));
    await store.db.put(headKey(headBase('p'), 'broken'), Buffer.from('{"ver":1}\n{"trunc'));
    await store.db.put(Buffer.from('zzz'), Buffer.from('?'));
    const { problems } = await checkLevelStore(store);
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/item "broken" in "p" does not decode/);
    expect(problems.join('\n')).toMatch(/unknown record "zzz"/);
    expect(problems.filter((x) => /no-item.*has no item that names it/.test(x))).toHaveLength(1);
    expect(problems.filter((x) => /lost-entry.* is missing/.test(x))).toHaveLength(1);
  });

  it('refuses an unknown LOCAL_STORE or LOCAL_STORE_SYNC setting by name', async () => {
    const cases = [
      { name: 'LOCAL_STORE', value: 'sqlite', message: /LOCAL_STORE=sqlite: expected level \(the default\) or dynalite/ },
      { name: 'LOCAL_STORE_SYNC', value: 'sometimes', message: /LOCAL_STORE_SYNC=sometimes: expected true \(the default\) or false/ },
    ];
    for (const { name, value, message } of cases) {
      const before = process.env[name];
      process.env[name] = value;
      try {
        await expect(startLocal({ dataDir: await tempDir(), port: 0 })).rejects.toThrow(message);
      } finally {
        if (before === undefined) delete process.env[name];
        else process.env[name] = before;
      }
    }
  });
});

describe('transactions across kill -9', () => {
  /** Every key of a partition, following cursors. */
  async function keysOf(store: LevelStore, partition: string, prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.partition(partition).listKeys(prefix, cursor ? { cursor } : {});
      keys.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    return keys;
  }

  /** Runs the writer child until it has acknowledged `acks` transactions, then kills it at a random moment. */
  async function runAndKill(dir: string, round: number, acks: number): Promise<Set<string>> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/store/level-transact-child.ts', dir, String(round)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acked = new Set<string>();
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let buffered = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const lines = (buffered + chunk.toString('utf8')).split('\n');
        buffered = lines.pop()!;
        for (const line of lines) if (line.startsWith('ack ')) acked.add(line.slice(4));
        if (acked.size >= acks) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the writer exited (${code}) after ${acked.size} transactions`)));
    });
    await new Promise((r) => setTimeout(r, Math.random() * 300));
    child.kill('SIGKILL');
    await exited;
    return acked;
  }

  it('every transaction is whole or absent after each kill, and every acknowledged one is there', async () => {
    const dir = await tempDir();
    for (let round = 0; round < 3; round++) {
      const acked = await runAndKill(dir, round, 40);
      const store = await open(dir);
      expect((await checkLevelStore(store)).problems).toEqual([]);
      const prefix = `r${round}/`;
      const a = await keysOf(store, 'a', prefix);
      expect(await keysOf(store, 'b', prefix)).toEqual(a);
      expect(await keysOf(store, 'c', prefix)).toEqual([]);
      const indexed = (await store.partition('b').queryIndex('by-writer', { from: prefix, to: `${prefix}\uffff` })).items.map((i) => i.key);
      expect(indexed).toEqual(a);
      for (const id of acked) expect(a).toContain(id);
      // The hot key moved in the same transactions: it holds the last landed one of its writer.
      for (let w = 0; w < 4; w++) {
        const mine = a.filter((id) => id.startsWith(`${prefix}${w}/`));
        const hot = await store.partition('h').get<number>(`hot/${w}`);
        if (mine.length) expect(hot?.value).toBe(Number(mine.at(-1)!.split('/')[2]));
      }
      await store.close();
    }
  }, 120_000);
});
