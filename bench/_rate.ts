/** Shared by the benchmarks: operations per second of `n` calls over `concurrency` loops. */
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
  let n = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await one();
        n++;
      }
    }),
  );
  return n / ((performance.now() - started) / 1000);
}
