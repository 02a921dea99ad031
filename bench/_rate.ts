/** Shared by the benchmarks: operations per second of `n` calls over `concurrency` loops. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export async function rate(n: number, concurrency: number, one: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) await one();
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

/** Requests per second of `concurrency` loops calling `one` for `seconds` (wall clock). */
export async function rateFor(seconds: number, concurrency: number, one: () => Promise<unknown>): Promise<number> {
  const { calls, elapsed } = await callsFor(seconds, concurrency, one);
  return calls / elapsed;
}

/**
 * rateFor, and the CPU time the server process `pid` spent per call meanwhile (µs, all its
 * threads, user + system; undefined where /proc is not readable) and the cores it kept busy
 * (CPU seconds per second). Per call, not per second: a server's cost that the client and the
 * neighbours sharing the cores change far less than its rate.
 */
export async function rateAndCpu(
  seconds: number,
  concurrency: number,
  one: () => Promise<unknown>,
  pid: number | undefined,
): Promise<{ rate: number; cpuUs: number | undefined; cores: number | undefined }> {
  const before = cpuSeconds(pid);
  const { calls, elapsed } = await callsFor(seconds, concurrency, one);
  const after = cpuSeconds(pid);
  const cpu = before === undefined || after === undefined ? undefined : after - before;
  return {
    rate: calls / elapsed,
    cpuUs: cpu === undefined ? undefined : (1e6 * cpu) / calls,
    cores: cpu === undefined ? undefined : cpu / elapsed,
  };
}

async function callsFor(seconds: number, concurrency: number, one: () => Promise<unknown>): Promise<{ calls: number; elapsed: number }> {
  let calls = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await one();
        calls++;
      }
    }),
  );
  return { calls, elapsed: (performance.now() - started) / 1000 };
}

let ticks: number | undefined;

/** CPU seconds (user + system, every thread) process `pid` has used so far, from /proc; undefined where there is none. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    ticks ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    return (Number(fields[11]) + Number(fields[12])) / ticks;
  } catch {
    return undefined;
  }
}
