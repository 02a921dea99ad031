/**
 * kill -9 during the PKI storage migration of a version-1 store (fixtures/pki-v1/, made by the
 * previous release), on the embedded store and on the DynamoDB store (dynalite, served by this
 * process so that it outlives the killed one, as DynamoDB outlives a Lambda instance):
 *
 * - at every write: a child (migration-child.ts) migrates `pki` then `pki_int` and kills itself
 *   once its n-th write is acknowledged, or 0-2 ms after starting it, for every n;
 * - at a random moment: the local service (functions/local.ts) is started on a copy, warmed up by
 *   a request that does not migrate, then killed 0-1.5x a clean migration's time after the
 *   requests that migrate both mounts were sent (the embedded store).
 *
 * After each kill the store is opened as the next start opens it and migrated: it must be in the
 * state a clean migration leaves (one issuer per mount, the default, its key opening and signing,
 * the waiting key of pki_int, every old certificate and revocation attributed, the CRL carried
 * over), with the same records as a clean run (ids derived, nothing duplicated; the issuers'
 * createdAt aside), and every record of version 1 as it was. Each run says where its kill
 * landed: before the first write, mid-way (some records, no marker) or after the marker.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Json } from '../../../lib/store/store';
import { freePort, killChild, killLocalChildren, startLocalChild } from '../../helpers/local-child';
import {
  copyFixture,
  depsOn,
  expectedState,
  manifestOf,
  migratedState,
  migrationProgress,
  openStore,
  pkiPart,
  snapshot,
  type OpenedStore,
  type StoreKind,
} from './migration-fixture';

const ROOT = resolve(import.meta.dirname, '../../..');
const CHILD = join(import.meta.dirname, 'migration-child.ts');
const MOUNTS = ['pki', 'pki_int'] as const;
const PARALLEL = 4;
const RANDOM_KILLS = 10;

afterAll(killLocalChildren);

type Snapshot = Record<string, Json>;
type Landed = 'before' | 'mid-way' | 'done';

/** Both mounts' records, the issuers' createdAt (the time of the migration run) left out. */
async function records(opened: OpenedStore, dataDir: string): Promise<Snapshot[]> {
  const deps = depsOn(opened.store, dataDir);
  return Promise.all(
    MOUNTS.map(async (mount) => {
      const all = await snapshot(pkiPart(deps, mount));
      for (const [key, value] of Object.entries(all)) {
        if (key.startsWith('issuer/') && value && typeof value === 'object' && !Array.isArray(value)) delete value.createdAt;
      }
      return all;
    }),
  );
}

/** Runs `fn` on a fresh copy of the fixture's store, opened; removes the copy after. */
async function onCopy<T>(kind: StoreKind, fn: (opened: OpenedStore, dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = copyFixture(kind);
  const opened = await openStore(dataDir, kind);
  try {
    return await fn(opened, dataDir);
  } finally {
    await opened.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Where a kill landed, over both mounts (migrated one after the other). */
async function landed(opened: OpenedStore): Promise<Landed> {
  const each = await Promise.all(MOUNTS.map((mount) => migrationProgress(pkiPart({ store: opened.store }, mount))));
  if (each.every((p) => p === 'before')) return 'before';
  return each.every((p) => p === 'done') ? 'done' : 'mid-way';
}

/** The next start: migrates, and answers the state and records it left. */
async function finish(opened: OpenedStore, dataDir: string, kind: StoreKind) {
  const deps = depsOn(opened.store, dataDir);
  const m = manifestOf(kind);
  const state = await Promise.all(MOUNTS.map((mount) => migratedState(deps, mount, m)));
  return { state, records: await records(opened, dataDir) };
}

interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

function runChild(args: string[]): Promise<ChildEnd> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', rej);
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal === null) rej(new Error(`the migration child exited with ${code}: ${err}`));
      else res({ code, signal, out });
    });
  });
}

/** The kill points of a migration of `writes` writes: during each, and after each but the last (the marker). */
function killPoints(writes: number): { mode: 'during' | 'after'; n: number }[] {
  return [
    ...Array.from({ length: writes }, (_, i) => ({ mode: 'during' as const, n: i + 1 })),
    ...Array.from({ length: writes - 1 }, (_, i) => ({ mode: 'after' as const, n: i + 1 })),
  ];
}

async function inPool<T, R>(items: T[], size: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

const tally = (runs: { landed: Landed }[]) =>
  Object.fromEntries((['before', 'mid-way', 'done'] as const).map((l) => [l, runs.filter((r) => r.landed === l).length]));

describe.each(['level', 'dynalite'] as const)('kill -9 at every write of the PKI migration (%s store)', (kind: StoreKind) => {
  it('leaves a store the next start finishes migrating, to the records of a clean run, losing nothing of version 1', async () => {
    const m = manifestOf(kind);
    const expected = MOUNTS.map((mount) => expectedState(mount, m));
    const pristine = await onCopy(kind, records);
    const clean = await onCopy(kind, (opened, dataDir) => finish(opened, dataDir, kind));
    expect(clean.state).toEqual(expected);
    // Every record of version 1 is still there, as it was.
    for (const [i, before] of pristine.entries()) expect(clean.records[i]).toMatchObject(before);

    // How many writes a whole migration makes, counted by the child itself.
    const whole = await onCopy(kind, async (opened, dataDir) => {
      if (kind === 'level') await opened.close();
      const end = await runChild([dataDir, kind === 'level' ? 'level' : `dynalite:${opened.endpoint!}`, 'none']);
      return Number(/done (\d+)/.exec(end.out)?.[1]);
    });
    expect(whole).toBeGreaterThan(MOUNTS.length);

    const runs = await inPool(killPoints(whole), PARALLEL, async ({ mode, n }) => {
      const dataDir = copyFixture(kind);
      let opened = kind === 'dynalite' ? await openStore(dataDir, kind) : undefined;
      try {
        const where = opened?.endpoint ? `dynalite:${opened.endpoint}` : 'level';
        const end = await runChild([dataDir, where, mode, String(n)]);
        opened ??= await openStore(dataDir, kind);
        const point = { mode, n, signal: end.signal, landed: await landed(opened) };
        const after = await finish(opened, dataDir, kind);
        expect({ ...point, state: after.state }).toEqual({ ...point, signal: 'SIGKILL', state: expected });
        expect(after.records, JSON.stringify(point)).toEqual(clean.records);
        return point;
      } finally {
        await opened?.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
    console.log(`${kind}: ${runs.length} kills over ${whole} writes: ${JSON.stringify(tally(runs))}`);
    expect(runs.filter((r) => r.landed === 'mid-way').length).toBeGreaterThan(0);
  }, 300_000);
});

describe('kill -9 of the local service at a random moment of its first PKI requests (embedded store)', () => {
  it('leaves a store the next start finishes migrating, to the records of a clean run', async () => {
    const kind = 'level';
    const m = manifestOf(kind);
    const expected = MOUNTS.map((mount) => expectedState(mount, m));
    const clean = await onCopy(kind, (opened, dataDir) => finish(opened, dataDir, kind));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // The requests that migrate: both mounts' CA (read from the default issuer); the kill may cut them short.
    const migrate = () =>
      MOUNTS.map((mount) =>
        fetch(`${base}/v1/${mount}/ca/pem`)
          .then((r) => r.arrayBuffer())
          .catch((e: unknown) => e),
      );
    // A request that loads the PKI engine without reading an issuer (listing roles migrates nothing).
    const warmUp = async () => {
      const r = await fetch(`${base}/v1/pki/roles?list=true`, { headers: { 'x-svc-token': m.rootToken } });
      expect(r.status).toBe(200);
      await r.arrayBuffer();
    };

    // A clean run's time, from the requests to both answers.
    let budgetMs: number;
    {
      const dataDir = copyFixture(kind);
      const server = await startLocalChild({ dataDir, port, env: { LOCAL_STORE: undefined } });
      await warmUp();
      const t0 = performance.now();
      await Promise.all(migrate());
      budgetMs = (performance.now() - t0) * 1.5;
      await killChild(server);
      rmSync(dataDir, { recursive: true, force: true });
    }

    const runs: { delayMs: number; landed: Landed }[] = [];
    for (let i = 0; i < RANDOM_KILLS; i++) {
      const dataDir = copyFixture(kind);
      try {
        const server = await startLocalChild({ dataDir, port, env: { LOCAL_STORE: undefined } });
        await warmUp();
        const delayMs = Math.random() * budgetMs;
        const answers = Promise.all(migrate());
        await new Promise((r) => setTimeout(r, delayMs));
        await killChild(server);
        await answers;
        const opened = await openStore(dataDir, kind);
        try {
          const point = { delayMs: Math.round(delayMs * 10) / 10, landed: await landed(opened) };
          runs.push(point);
          const after = await finish(opened, dataDir, kind);
          expect({ ...point, state: after.state }).toEqual({ ...point, state: expected });
          expect(after.records, JSON.stringify(point)).toEqual(clean.records);
        } finally {
          await opened.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    console.log(
      `local service, ${RANDOM_KILLS} kills 0-${Math.round(budgetMs)} ms after the first PKI requests: ${JSON.stringify(tally(runs))}`,
    );
  }, 300_000);
});
