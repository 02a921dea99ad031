/**
 * kill -9 of the local service (embedded store) at a random moment (0-700 ms after the first
 * write is acknowledged) while clients write concurrently: catalog KV writes (new keys, some of
 * 300 KB; hot keys overwritten with a rising sequence), stored PKI issues (a certificate and
 * its index entry in one write) and SSH signs (a lease, its index entry and its owner link in
 * one write). Several rounds on one data directory, with fsync (the default) and without
 * (LOCAL_STORE_SYNC=false). After each kill the store must pass its integrity check (no
 * half-written record, no index entry without its item or item without its entry) and every
 * lease must have its owner link, and after the restart every acknowledged write must read
 * back: a new key with its value, a hot key at its last acknowledged sequence or later (a write
 * in flight at the kill may have landed), every acknowledged certificate and lease.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLevelStore } from '../../../lib/store/level-check';
import { LevelStore } from '../../../lib/store/level-store';
import type { Partition } from '../../../lib/store/store';
import type { LeaseRecord } from '../../../lib/sys/leases';
import { freePort, killChild as kill, killLocalChildren, startLocalChild } from '../../helpers/local-child';

const KV_WRITERS = 8;
const HOT_WRITERS = 4;
const PKI_WRITERS = 2;
const SSH_WRITERS = 2;

const start = (dataDir: string, port: number, sync: boolean) =>
  startLocalChild({ dataDir, port, env: { LOCAL_STORE_SYNC: String(sync), LOCAL_STORE: undefined } });

afterAll(killLocalChildren);

const valueOf = (round: number, w: number, i: number) => {
  const head = `r${round} w${w} i${i} `;
  // Every 10th value is large (300 KB), the rest small.
  return i % 10 === 9 ? head + 'x'.repeat(300_000) : head + 'y'.repeat(i % 50);
};

interface Acked {
  /** New keys and the value acknowledged for each. */
  kv: Map<string, string>;
  /** Hot key -> last acknowledged sequence. */
  hot: Map<string, number>;
  serials: string[];
  leases: string[];
}

/**
 * Runs the writers until the server goes away; records what was acknowledged. Resolves with
 * the writers' failures other than the connection lost at the kill.
 */
async function writers(base: string, token: string, userKey: string, round: number, acked: Acked): Promise<string[]> {
  const put = (path: string, body: string) => fetch(`${base}/v1/kv/${path}`, { method: 'PUT', body });
  const loops: Promise<void>[] = [];
  for (let w = 0; w < KV_WRITERS; w++) {
    loops.push(
      (async () => {
        for (let i = 0; ; i++) {
          const key = `crash/r${round}/w${w}/${String(i).padStart(5, '0')}`;
          const value = valueOf(round, w, i);
          const r = await put(key, value);
          if (r.status !== 200 || (await r.text()) !== 'true') throw new Error(`kv put answered ${r.status}`);
          acked.kv.set(key, value);
        }
      })(),
    );
  }
  for (let w = 0; w < HOT_WRITERS; w++) {
    loops.push(
      (async () => {
        const key = `crash/hot/${w}`;
        for (let seq = (acked.hot.get(key) ?? 0) + 1; ; seq++) {
          const r = await put(key, String(seq));
          if (r.status !== 200) throw new Error(`kv put answered ${r.status}`);
          await r.text();
          acked.hot.set(key, seq);
        }
      })(),
    );
  }
  for (let w = 0; w < PKI_WRITERS; w++) {
    loops.push(
      (async () => {
        for (let i = 0; ; i++) {
          const r = await fetch(`${base}/v1/pki/issue/crash`, {
            method: 'POST',
            headers: { 'x-svc-token': token },
            body: JSON.stringify({ common_name: `r${round}-${w}-${i}.example.com` }),
          });
          if (r.status !== 200) throw new Error(`issue answered ${r.status}`);
          acked.serials.push(((await r.json()) as { data: { serial_number: string } }).data.serial_number);
        }
      })(),
    );
  }
  for (let w = 0; w < SSH_WRITERS; w++) {
    loops.push(
      (async () => {
        for (;;) {
          const r = await fetch(`${base}/v1/ssh/sign/crash`, {
            method: 'POST',
            headers: { 'x-svc-token': token },
            body: JSON.stringify({ public_key: userKey, valid_principals: 'alice' }),
          });
          if (r.status !== 200) throw new Error(`ssh sign answered ${r.status}`);
          acked.leases.push(((await r.json()) as { lease_id: string }).lease_id);
        }
      })(),
    );
  }
  const ends = await Promise.allSettled(loops);
  return ends.flatMap((e) => (e.status === 'rejected' && !/fetch failed/.test(String(e.reason)) ? [String(e.reason)] : []));
}

/** Leases (in the sys partition) whose owner link is missing: a token's revocation would not find them. */
async function leasesWithoutLink(sys: Partition): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await sys.list<LeaseRecord>('lease/', cursor ? { cursor } : {});
    for (const { value } of page.items) {
      if (value.owner && !(await sys.get(`owner/${value.owner}/${value.lease_id}`))) out.push(value.lease_id);
    }
    cursor = page.cursor;
  } while (cursor);
  return out;
}

async function inBatches<T>(items: T[], size: number, fn: (t: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

// fsynced batches (the default), and LOCAL_STORE_SYNC=false (written to the OS only: a kill -9
// of the process loses nothing either; a power cut could).
describe.each([
  { sync: true, rounds: 4 },
  { sync: false, rounds: 2 },
])('kill -9 of the local service during concurrent writes, sync $sync', ({ sync, rounds }) => {
  it('loses no acknowledged write and leaves no half-written record', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-store-crash-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let server = await start(dataDir, port, sync);
    const token = readFileSync(join(dataDir, 'root-token'), 'utf8').trim();
    const setup = async (path: string, body: unknown) => {
      const r = await fetch(`${base}/v1/${path}`, { method: 'POST', headers: { 'x-svc-token': token }, body: JSON.stringify(body) });
      expect(r.status, path).toBeLessThan(300);
    };
    await setup('pki/root/generate/internal', { common_name: 'Crash Root', key_type: 'ec', ttl: '8760h' });
    await setup('pki/roles/crash', { allow_any_name: true, key_type: 'ec', ttl: '1h' });
    await setup('ssh/config/ca', { key_type: 'ed25519' });
    await setup('ssh/roles/crash', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', ttl: '30m' });
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dataDir, 'user')]);
    const userKey = readFileSync(join(dataDir, 'user.pub'), 'utf8');

    const acked: Acked = { kv: new Map(), hot: new Map(), serials: [], leases: [] };
    for (let round = 0; round < rounds; round++) {
      const delayMs = Math.floor(Math.random() * 700);
      const count = () => acked.kv.size + acked.serials.length + acked.leases.length;
      const before = count();
      const writing = writers(base, token, userKey, round, acked);
      // The kill comes `delayMs` after the first acknowledged write (a loaded machine may take a while to answer one).
      for (let i = 0; i < 3000 && count() === before; i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, delayMs));
      await kill(server);
      const failures = await writing;
      const context = { round, delayMs, acknowledged: count() - before };
      expect({ ...context, failures }).toEqual({ ...context, failures: [] });
      expect(context.acknowledged, JSON.stringify(context)).toBeGreaterThan(0);

      // The store as the kill left it, before anything else opens it.
      const store = await LevelStore.open(join(dataDir, 'store'));
      const check = await checkLevelStore(store);
      const unlinked = await leasesWithoutLink(store.partition('sys'));
      await store.close();
      expect({ ...context, problems: check.problems, unlinked }).toEqual({ ...context, problems: [], unlinked: [] });

      server = await start(dataDir, port, sync);
      const kv = [...acked.kv.entries()];
      const missing: string[] = [];
      await inBatches(kv, 32, async ([key, value]) => {
        const r = await fetch(`${base}/v1/kv/${key}?raw`);
        if (r.status !== 200 || (await r.text()) !== value) missing.push(key);
      });
      for (const [key, seq] of acked.hot) {
        const r = await fetch(`${base}/v1/kv/${key}?raw`);
        const stored = Number(await r.text());
        if (!(stored >= seq)) missing.push(`${key}: ${stored} < ${seq}`);
      }
      await inBatches(acked.serials, 32, async (serial) => {
        const r = await fetch(`${base}/v1/pki/cert/${serial}`);
        if (r.status !== 200) missing.push(`certificate ${serial}`);
        else await r.arrayBuffer();
      });
      await inBatches(acked.leases, 32, async (id) => {
        const r = await fetch(`${base}/v1/sys/leases/lookup`, {
          method: 'PUT',
          headers: { 'x-svc-token': token },
          body: JSON.stringify({ lease_id: id }),
        });
        if (r.status !== 200) missing.push(`lease ${id}`);
        else await r.arrayBuffer();
      });
      expect({ ...context, missing }).toEqual({ ...context, missing: [] });
    }
    // Every kind of write was acknowledged in some round (each round checks what it got).
    expect({ serials: acked.serials.length > 0, leases: acked.leases.length > 0 }).toEqual({ serials: true, leases: true });
    await kill(server);
    rmSync(dataDir, { recursive: true, force: true });
  }, 240_000);
});
