import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { domainMetrics, mountOf, timedJob } from '../../lib/metrics/catalog';
import { Registry } from '../../lib/metrics/registry';
import { requestMetrics } from '../../lib/metrics/requests';

describe('the metrics catalog', () => {
  it('declares every CloudWatch dimension as a label, never an issuer, a role or a serial', () => {
    const r = new Registry();
    domainMetrics(r);
    for (const m of r.list()) {
      expect(m.name).toMatch(/^latchkey_/);
      for (const d of m.cloudwatch?.dimensions ?? []) expect(['mount', 'engine', 'method', 'result', 'operation', 'job']).toContain(d);
    }
    expect(new Set(r.list().map((m) => m.cloudwatch?.name)).size).toBe(r.list().length);
  });

  it('names the mount of a partition', () => {
    expect(mountOf('pki/pki_int')).toBe('pki_int');
    expect(mountOf('kv/team/a')).toBe('team/a');
    expect(mountOf('auth/approle')).toBe('auth/approle');
    expect(mountOf('sys')).toBe('sys');
  });

  it('times a job: a run, its items, and a failure when it throws', async () => {
    const m = domainMetrics(new Registry());
    expect(
      await timedJob(
        't',
        async () => ({ n: 3 }),
        (o) => o.n,
        m,
      ),
    ).toEqual({ n: 3 });
    await expect(timedJob('t', () => Promise.reject(new Error('x')), undefined, m)).rejects.toThrow('x');
    expect(m.jobs.runs.value({ job: 't' })).toBe(2);
    expect(m.jobs.failures.value({ job: 't' })).toBe(1);
    expect(m.jobs.items.value({ job: 't' })).toBe(3);
    expect(m.jobs.seconds.value({ job: 't' }).count).toBe(2);
  });
});

describe("README's metric table", () => {
  it('lists every metric with its type, labels and CloudWatch name, and nothing else', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const r = new Registry();
    requestMetrics(r);
    domainMetrics(r);
    const rows = new Map([...readme.matchAll(/^\| `(latchkey_[a-z_]+)` \| (\w+) \| ([^|]*) \| ([^|]*) \|/gm)].map((m) => [m[1], m]));
    expect([...rows.keys()].sort()).toEqual(r.list().map((m) => m.name));
    for (const m of r.list()) {
      const row = rows.get(m.name)!;
      expect(row[2]).toBe(m.type);
      expect(row[3]!.trim()).toBe(m.labelNames.map((l) => `\`${l}\``).join(', '));
      expect(row[4]).toContain(`\`${m.cloudwatch!.name}\``);
    }
  });
});
