import { describe, expect, it } from 'vitest';
import { metrics } from '../../lib/metrics/catalog';
import { startEmf, type EmfDocument } from '../../lib/metrics/emf';
import { withMetrics } from '../../lib/metrics/invocation';

/** A wrapped handler with EMF switched on (its lines captured), as on Lambda. */
function onLambda<R>(run: (event: string) => Promise<R>) {
  const lines: string[] = [];
  const state = { emf: startEmf({ functionName: 'sweeper', write: (l) => lines.push(l) }, true), invoked: false };
  const handler = withMetrics('sweeper', (event: string) => run(event), state);
  const flushed = () => {
    const docs = lines.splice(0).map((l) => JSON.parse(l) as EmfDocument);
    return { docs, cold: docs.reduce((n, d) => n + ((d.ColdStart as number | undefined) ?? 0), 0) };
  };
  return { handler, flushed };
}

describe('metrics around an invocation', () => {
  it('count the cold start once, on the first invocation, and flush after each one', async () => {
    const { handler, flushed } = onLambda(async (event) => {
      metrics.jobs.runs.inc({ job: event });
      return event.length;
    });
    expect(await handler('sweep', undefined)).toBe(5);
    const first = flushed();
    expect(first.cold).toBe(1);
    expect(first.docs.every((d) => d.function === 'sweeper')).toBe(true);
    expect(first.docs.find((d) => d.job === 'sweep')?.JobRuns).toBe(1);
    for (let i = 0; i < 3; i++) await handler('sweep', undefined);
    const later = flushed();
    expect(later.cold).toBe(0);
    expect(later.docs.filter((d) => d.job === 'sweep').map((d) => d.JobRuns)).toEqual([1, 1, 1]);
  });

  it('flush when the handler throws, and let its error through', async () => {
    const { handler, flushed } = onLambda(async (event) => {
      metrics.jobs.failures.inc({ job: event });
      throw new Error('boom');
    });
    await expect(handler('tidy', undefined)).rejects.toThrow('boom');
    const { docs, cold } = flushed();
    expect(cold).toBe(1);
    expect(docs.find((d) => d.job === 'tidy')?.JobFailures).toBe(1);
  });

  it('do nothing off Lambda: no cold start counted', async () => {
    const before = metrics.platform.coldStarts.value();
    const handler = withMetrics('sys', async () => 'ok', { emf: startEmf({ functionName: 'sys' }, false), invoked: false });
    expect(await handler(undefined, undefined)).toBe('ok');
    expect(metrics.platform.coldStarts.value()).toBe(before);
  });
});
