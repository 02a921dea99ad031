/**
 * Crash during revocation: a parent token with 300 children, each holding a leased certificate,
 * is revoked; the local service is killed with SIGKILL at a moment of the revocation and
 * restarted. Whatever the moment, no child may answer as live while its parent is revoked, and
 * retrying the same call (or the sweeper) finishes the job: every child dead, every lease gone,
 * every certificate on the revoked list.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, killChild as kill, killLocalChildren, startLocalChild } from '../../helpers/local-child';

const CHILDREN = 300;

const start = (dataDir: string, port: number, sweepMs = 3_600_000) =>
  startLocalChild({
    dataDir,
    port,
    env: { LOG_LEVEL: process.env.CRASH_LOG ?? 'silent', SWEEP_INTERVAL_MS: String(sweepMs), AUTH_CACHE_MS: '0' },
    stdio: process.env.CRASH_LOG ? 'inherit' : 'ignore',
  });

afterAll(killLocalChildren);

type Api = (method: string, path: string, token: string, body?: unknown) => Promise<{ status: number; json: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any

const api =
  (port: number): Api =>
  async (method, path, token, body) => {
    const res = await fetch(`http://127.0.0.1:${port}/v1/${path}`, {
      method,
      headers: { 'x-svc-token': token, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };

async function inBatches<T, R>(items: T[], size: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

interface Tree {
  parent: string;
  accessor: string;
  children: string[];
  leases: string[];
  serials: string[];
}

async function makeTree(call: Api, root: string): Promise<Tree> {
  const p = await call('POST', 'auth/token/create', root, { policies: ['maker'], ttl: '2h' });
  const parent = p.json.auth.client_token as string;
  const made = await inBatches([...Array(CHILDREN).keys()], 16, async (i) => {
    const c = await call('POST', 'auth/token/create', parent, { policies: ['maker'], ttl: '1h' });
    const child = c.json.auth.client_token as string;
    const issued = await call('POST', 'pki/issue/leased', child, { common_name: `c${i}.example.com` });
    expect(issued.status).toBe(200);
    return { child, lease: issued.json.lease_id as string, serial: issued.json.data.serial_number as string };
  });
  return {
    parent,
    accessor: p.json.auth.accessor,
    children: made.map((m) => m.child),
    leases: made.map((m) => m.lease),
    serials: made.map((m) => m.serial),
  };
}

async function liveChildren(call: Api, t: Tree): Promise<number> {
  const statuses = await inBatches(t.children, 32, async (c) => (await call('GET', 'auth/token/lookup-self', c)).status);
  return statuses.filter((s) => s === 200).length;
}

async function assertFinished(call: Api, root: string, t: Tree): Promise<void> {
  expect(await liveChildren(call, t)).toBe(0);
  expect((await call('GET', 'auth/token/lookup-self', t.parent)).status).toBe(403);
  expect((await call('POST', 'auth/token/lookup-accessor', root, { accessor: t.accessor })).status).toBe(400);
  const leaseStatuses = await inBatches(
    t.leases,
    32,
    async (id) => (await call('PUT', 'sys/leases/lookup', root, { lease_id: id })).status,
  );
  expect(leaseStatuses.filter((s) => s === 200)).toEqual([]);
  const revoked = await call('LIST', 'pki/certs/revoked', root).catch(() => undefined);
  const listed = revoked?.json?.data?.keys ?? (await call('GET', 'pki/certs/revoked?list=true', root)).json.data.keys;
  expect(t.serials.filter((s) => !listed.includes(s))).toEqual([]);
}

const unfinished = async (call: Api, root: string, t: Tree) =>
  (await call('POST', 'auth/token/lookup-accessor', root, { accessor: t.accessor })).status === 200;

describe('a crash in the middle of revoking a token', () => {
  it('never leaves a child usable, and a retry or the sweeper finishes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-crash-'));
    const port = await freePort();
    let server = await start(dataDir, port);
    const call = api(port);
    const root = readFileSync(join(dataDir, 'root-token'), 'utf8').trim();
    const maker = {
      path: { 'auth/token/create': { capabilities: ['create', 'update'] }, 'pki/issue/leased': { capabilities: ['update'] } },
    };
    expect((await call('PUT', 'sys/policy/maker', root, { policy: JSON.stringify(maker) })).status).toBe(204);
    expect(
      (await call('POST', 'pki/root/generate/internal', root, { common_name: 'Crash Root', ttl: '8760h', key_type: 'ec' })).status,
    ).toBe(200);
    expect(
      (await call('POST', 'pki/roles/leased', root, { allow_any_name: true, key_type: 'ec', ttl: '1h', generate_lease: true })).status,
    ).toBe(200);

    // Rounds: the moment of the kill, and how the revocation is finished after the restart.
    const rounds: { delayMs: number; finish: 'retry' | 'accessor' | 'sweeper' }[] = [
      { delayMs: 250, finish: 'retry' },
      { delayMs: 20 + Math.floor(Math.random() * 600), finish: 'accessor' },
      { delayMs: 5 + Math.floor(Math.random() * 100), finish: 'sweeper' },
    ];
    for (const round of rounds) {
      const tree = await makeTree(call, root);
      const pending = call('POST', 'auth/token/revoke', root, { token: tree.parent }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, round.delayMs));
      await kill(server);
      await pending;
      server = await start(dataDir, port, round.finish === 'sweeper' ? 300 : 3_600_000);

      const parentLive = (await call('GET', 'auth/token/lookup-self', tree.parent)).status === 200;
      const live = await liveChildren(call, tree);
      // Either the revocation had not begun (everything live) or no child is usable.
      expect({ round, parentLive, live }).toEqual({ round, parentLive, live: parentLive ? CHILDREN : 0 });
      if (!parentLive) {
        // The parent's accessor still names the unfinished revocation.
        const byAccessor = await call('POST', 'auth/token/lookup-accessor', root, { accessor: tree.accessor });
        if (byAccessor.status === 400) await assertFinished(call, root, tree);
      }

      if (round.finish === 'retry') {
        // A revocation that runs past its time budget answers and leaves the rest for the next call or the sweeper.
        for (let i = 0; i < 5 && (await unfinished(call, root, tree)); i++) {
          expect((await call('POST', 'auth/token/revoke', root, { token: tree.parent })).status).toBe(204);
        }
      } else if (round.finish === 'accessor') {
        for (let i = 0; i < 5 && (await unfinished(call, root, tree)); i++) {
          expect((await call('POST', 'auth/token/revoke-accessor', root, { accessor: tree.accessor })).status).toBe(204);
        }
      } else {
        if (parentLive) expect((await call('POST', 'auth/token/revoke-self', tree.parent)).status).toBe(204);
        // The sweeper (every 300 ms here) finishes whatever is left.
        for (let i = 0; i < 200; i++) {
          if ((await call('POST', 'auth/token/lookup-accessor', root, { accessor: tree.accessor })).status === 400) break;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      await assertFinished(call, root, tree);
      if (round.finish === 'sweeper') {
        await kill(server);
        server = await start(dataDir, port);
      }
    }
    await kill(server);
  }, 240_000);
});
