/**
 * The renewal schedule with a controlled clock: renewals at 2/3 of the lifetime ± 10%, back-off
 * doubling to its cap while the service fails (the files untouched), reset by a success; a stop
 * during a call abandons it with nothing written.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LatchkeyClient } from '../../lib/client/client';
import type { Fetched, Job, Validity } from '../../lib/agent/job';
import { AgentLog } from '../../lib/agent/log';
import { backoffDelay, keep, renewalDelay, type Clock, type LoopDeps } from '../../lib/agent/renew';
import { Session } from '../../lib/agent/session';

describe('renewalDelay', () => {
  const v: Validity = { start: 1_000_000, end: 1_000_000 + 9000, serial: '1' };
  it('is two thirds of the lifetime at the middle of the jitter, 60% and 73.3% at its ends', () => {
    expect(renewalDelay(v, v.start, () => 0.5)).toBe(6000);
    expect(renewalDelay(v, v.start, () => 0)).toBe(5400);
    expect(renewalDelay(v, v.start, () => 0.999999)).toBe(6600);
  });
  it('counts from now, and is 0 once due or past the end', () => {
    expect(renewalDelay(v, v.start + 2000, () => 0.5)).toBe(4000);
    expect(renewalDelay(v, v.start + 7000, () => 0.5)).toBe(0);
    expect(renewalDelay(v, v.end + 1, () => 0.5)).toBe(0);
  });
});

describe('backoffDelay', () => {
  const b = { baseMs: 1000, capMs: 60_000 };
  it('doubles from the base to the cap, ±20%', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 40].map((n) => backoffDelay(n, () => 0.5, b))).toEqual([
      1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000,
    ]);
    expect(backoffDelay(3, () => 0, b)).toBe(3200);
    expect(backoffDelay(3, () => 0.999999, b)).toBe(4800);
    expect(backoffDelay(7, () => 0.999999, b)).toBe(60000);
  });
});

/** A clock whose sleeps return at once, moving time on by what was asked. */
function fakeClock(start = 1_000_000): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

interface Script {
  /** Per call: 'ok' issues a 9 s credential, 'down' fails as an unreachable service. */
  steps: ('ok' | 'down')[];
}

function setup(script: Script, o: { current?: Validity } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-agent-renew-'));
  const file = join(dir, 'cert.pem');
  writeFileSync(file, 'first');
  const clock = fakeClock();
  const stop = new AbortController();
  const lines: Record<string, unknown>[] = [];
  const log = new AgentLog({ write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) }, clock.now);
  let calls = 0;
  const job: Job = {
    label: { kind: 'test' },
    command: 'reload',
    current: () => o.current,
    fetch: async (): Promise<Fetched> => {
      const step = script.steps[calls++];
      if (step === undefined) {
        stop.abort();
        throw new Error('script done');
      }
      if (step === 'down') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8200'), { code: 'ECONNREFUSED' });
      return {
        writes: [{ path: file, content: `cert ${calls}`, mode: 0o644 }],
        validity: { start: clock.now(), end: clock.now() + 9000, serial: String(calls) },
      };
    },
  };
  const client = new LatchkeyClient({ address: 'http://127.0.0.1:1', token: 'a-token-from-the-cli' });
  const commands: string[] = [];
  const deps: LoopDeps = {
    client,
    session: new Session(client, undefined, () => 'a-token-from-the-cli', log, clock.now),
    log,
    clock,
    random: () => 0.5,
    backoff: { baseMs: 1000, capMs: 5000 },
    run: async (c) => {
      commands.push(c);
      return { exit_code: 0 };
    },
  };
  return { deps, job, clock, stop, lines, file, commands, written: () => readFileSync(file, 'utf8') };
}

describe('keep', () => {
  it('renews at 2/3 of each lifetime, backs off (capped) while the service is down without touching the file, recovers', async () => {
    const t = setup({ steps: ['ok', 'ok', 'down', 'down', 'down', 'down', 'down', 'ok', 'ok'] });
    const seen: string[] = [];
    const run = t.deps.run!;
    t.deps.run = async (c) => {
      seen.push(t.written());
      return run(c);
    };
    await keep(t.job, t.deps, t.stop.signal);
    // Issue at once (no current files), 6 s (2/3 of 9 s) after each, 1-2-4-5(cap)-5 s of back-off.
    expect(t.clock.sleeps).toEqual([6000, 6000, 1000, 2000, 4000, 5000, 5000, 6000, 6000]);
    const events = t.lines.map((l) => l.event);
    expect(events).toEqual([
      ...['renewed', 'command', 'renewed', 'command'],
      ...['backoff', 'backoff', 'backoff', 'backoff', 'backoff'],
      ...['renewed', 'command', 'renewed', 'command', 'abandoned'],
    ]);
    expect(t.lines.filter((l) => l.event === 'backoff').map((l) => l.failures)).toEqual([1, 2, 3, 4, 5]);
    // The file each command saw: the new one; during the outage it stayed 'cert 2'.
    expect(seen).toEqual(['cert 1', 'cert 2', 'cert 8', 'cert 9']);
    // The second certificate (issued at 6 s, 9 s long) is still valid at the first failure (12 s), not at 15 s.
    expect(t.lines[4]).toMatchObject({
      event: 'backoff',
      current_expired: false,
      retry_in_ms: 1000,
      error: 'connect ECONNREFUSED 127.0.0.1:8200',
    });
    expect(t.lines[6]).toMatchObject({ event: 'backoff', current_expired: true, retry_in_ms: 4000 });
    expect(t.commands).toHaveLength(4);
  });

  it('keeps current files until their renewal time, renews at once the ones past it', async () => {
    const t = setup({ steps: ['ok'] }, { current: { start: 1_000_000 - 3000, end: 1_000_000 + 6000, serial: 'old' } });
    await keep(t.job, t.deps, t.stop.signal);
    expect(t.clock.sleeps[0]).toBe(3000);
    expect(t.lines[0]).toMatchObject({ event: 'current', serial: 'old' });

    const late = setup({ steps: ['ok'] }, { current: { start: 1_000_000 - 8000, end: 1_000_000 + 1000, serial: 'old' } });
    await keep(late.job, late.deps, late.stop.signal);
    expect(late.lines.map((l) => l.event).slice(0, 2)).toEqual(['current', 'renewed']);
    expect(late.clock.sleeps[0]).toBe(6000);
  });

  it('a stop during a call abandons it: nothing written, no command', async () => {
    const t = setup({ steps: [] });
    let release!: () => void;
    t.job.fetch = () =>
      new Promise<Fetched>((res) => {
        release = () => res({ writes: [{ path: t.file, content: 'late', mode: 0o644 }], validity: { start: 0, end: 1, serial: 'x' } });
      });
    const done = keep(t.job, t.deps, t.stop.signal);
    await new Promise((r) => setTimeout(r, 10));
    t.stop.abort();
    await done;
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(t.written()).toBe('first');
    expect(t.commands).toEqual([]);
    expect(t.lines.map((l) => l.event)).toEqual(['abandoned']);
  });
});
