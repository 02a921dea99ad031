import { describe, expect, it } from 'vitest';
import { EMPTY_DIMENSION, EmfBuffer, startEmf, type EmfDocument } from '../../lib/metrics/emf';
import { Registry } from '../../lib/metrics/registry';
import { recordRequest, requestMetrics } from '../../lib/metrics/requests';
import { expectValidEmf } from '../helpers/emf-spec';

const NOW = 1_790_000_000_123;

/** A registry with EMF on (the explicit switch), its lines captured. */
function setup(o: { maxBuffered?: number } = {}) {
  const r = new Registry();
  const lines: string[] = [];
  const emf = startEmf({ functionName: 'pki', registry: r, write: (l) => lines.push(l), now: () => NOW, ...o }, true)!;
  const docs = () => lines.map((l) => JSON.parse(l) as EmfDocument);
  return { r, emf, lines, docs };
}

describe('EMF documents', () => {
  it('are off unless switched on', () => {
    expect(startEmf({ functionName: 'pki', registry: new Registry() }, false)).toBeUndefined();
    expect(startEmf({ functionName: 'pki', registry: new Registry() }, true)).toBeInstanceOf(EmfBuffer);
  });

  it('carry the namespace, the timestamp, the function and the rollup dimension set; counters as sums, gauges as the last value', () => {
    const { r, emf, docs } = setup();
    const issued = r.counter({
      name: 'x_issued_total',
      help: 'h',
      labels: ['mount', 'role'],
      cloudwatch: { name: 'CertificatesIssued', unit: 'Count', dimensions: ['mount'] },
    });
    const overdue = r.gauge({
      name: 'x_overdue',
      help: 'h',
      labels: ['mount'],
      cloudwatch: { name: 'CrlsOverdue', unit: 'Count', dimensions: ['mount'] },
    });
    issued.inc({ mount: 'pki', role: 'web' });
    issued.inc({ mount: 'pki', role: 'db' }, 2);
    overdue.set({ mount: 'pki' }, 3);
    overdue.set({ mount: 'pki' }, 1);
    emf.flush();
    expect(docs()).toEqual([
      {
        _aws: {
          Timestamp: NOW,
          CloudWatchMetrics: [
            {
              Namespace: 'Latchkey',
              Dimensions: [['function', 'mount'], []],
              Metrics: [
                { Name: 'CertificatesIssued', Unit: 'Count' },
                { Name: 'CrlsOverdue', Unit: 'Count' },
              ],
            },
          ],
        },
        function: 'pki',
        mount: 'pki',
        CertificatesIssued: 3,
        CrlsOverdue: 1,
      },
    ]);
    expectValidEmf(docs());
  });

  it('group values by dimension values, one document per group, metrics without dimensions together', () => {
    const { r, emf, docs } = setup();
    const m = requestMetrics(r);
    recordRequest({ function: 'pki', mount: 'pki', path: 'issue/:role', operation: 'update', status: 200, seconds: 0.01 }, m);
    recordRequest({ function: 'pki', mount: 'pki', path: 'issue/:role', operation: 'update', status: 200, seconds: 0.02 }, m);
    recordRequest({ function: 'pki', mount: 'pki', path: 'cert/:serial', operation: 'read', status: 404, seconds: 0.001 }, m);
    const plain = r.counter({
      name: 'x_tokens_total',
      help: 'h',
      labels: ['kind'],
      cloudwatch: { name: 'TokensCreated', unit: 'Count', dimensions: [] },
    });
    const cold = r.counter({ name: 'x_cold_total', help: 'h', cloudwatch: { name: 'ColdStart', unit: 'Count', dimensions: [] } });
    plain.inc({ kind: 'service' });
    cold.inc();
    emf.flush();
    const out = docs();
    expectValidEmf(out);
    expect(out.map((d) => [d.mount, d.operation, d.status_class, d.Requests, d.RequestDuration, d.TokensCreated, d.ColdStart])).toEqual([
      ['pki', 'update', '2xx', 2, [0.01, 0.02], undefined, undefined],
      ['pki', 'read', '4xx', 1, [0.001], undefined, undefined],
      [undefined, undefined, undefined, undefined, undefined, 1, 1],
    ]);
    expect(out[0]!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['function', 'mount', 'operation', 'status_class'], []]);
    expect(out[2]!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['function'], []]);
  });

  it('never carry a label that is not a declared dimension (paths, roles, issuers, the function label)', () => {
    const { r, emf, lines } = setup();
    const m = requestMetrics(r);
    const issued = r.counter({
      name: 'x_issued_total',
      help: 'h',
      labels: ['mount', 'issuer', 'role'],
      cloudwatch: { name: 'CertificatesIssued', unit: 'Count', dimensions: ['mount'] },
    });
    recordRequest({ function: 'elsewhere', mount: 'pki', path: 'cert/:serial', operation: 'read', status: 200, seconds: 0.1 }, m);
    issued.inc({ mount: 'pki', issuer: 'issuer-7f3a', role: 'secret-role-name' });
    emf.flush();
    const text = lines.join('\n');
    for (const leaked of ['cert/:serial', 'issuer-7f3a', 'secret-role-name', 'elsewhere', '"path"', '"role"', '"issuer"'])
      expect(text).not.toContain(leaked);
    expectValidEmf(lines.map((l) => JSON.parse(l) as EmfDocument));
  });

  it('publish an empty dimension value (a request no mount took) as a word CloudWatch accepts', () => {
    const { r, emf, docs } = setup();
    recordRequest({ function: 'pki', mount: '', path: '', operation: 'read', status: 404, seconds: 0.001 }, requestMetrics(r));
    emf.flush();
    expect(docs()[0]!.mount).toBe(EMPTY_DIMENSION);
    expectValidEmf(docs());
  });

  it('split a group past 100 metrics into documents of at most 100', () => {
    const { r, emf, docs } = setup();
    for (let i = 0; i < 250; i++) {
      r.counter({
        name: `x_m${i}_total`,
        help: 'h',
        labels: ['mount'],
        cloudwatch: { name: `M${i}`, unit: 'Count', dimensions: ['mount'] },
      }).inc({ mount: 'a' }, i);
    }
    emf.flush();
    const out = docs();
    expectValidEmf(out);
    expect(out.map((d) => d._aws.CloudWatchMetrics[0]!.Metrics.length)).toEqual([100, 100, 50]);
    const values = new Map(out.flatMap((d) => d._aws.CloudWatchMetrics[0]!.Metrics.map((m) => [m.Name, d[m.Name]] as const)));
    expect(values.size).toBe(250);
    for (let i = 0; i < 250; i++) expect(values.get(`M${i}`)).toBe(i);
  });

  it('split a histogram past 100 values into arrays of at most 100, none lost, the counter once', () => {
    const { r, emf, docs } = setup();
    const m = requestMetrics(r);
    for (let i = 0; i < 250; i++) recordRequest({ function: 'pki', mount: 'pki', operation: 'read', status: 200, seconds: i / 1000 }, m);
    emf.flush();
    const out = docs();
    expectValidEmf(out);
    expect(out.map((d) => (d.RequestDuration as number[]).length)).toEqual([100, 100, 50]);
    expect(out.flatMap((d) => d.RequestDuration as number[])).toEqual(Array.from({ length: 250 }, (_, i) => i / 1000));
    expect(out.map((d) => d.Requests)).toEqual([250, undefined, undefined]);
  });

  it('flush early, mid-invocation, once the buffer holds maxBuffered values', () => {
    const { r, lines } = setup({ maxBuffered: 10 });
    const c = r.counter({ name: 'x_total', help: 'h', cloudwatch: { name: 'Things', unit: 'Count', dimensions: [] } });
    for (let i = 0; i < 25; i++) c.inc();
    expect(lines.map((l) => (JSON.parse(l) as EmfDocument).Things)).toEqual([10, 10]);
  });

  it('empty the buffer on flush: a second flush writes nothing, later values start from zero', () => {
    const { r, emf, lines, docs } = setup();
    const c = r.counter({ name: 'x_total', help: 'h', cloudwatch: { name: 'Things', unit: 'Count', dimensions: [] } });
    c.inc({}, 4);
    emf.flush();
    emf.flush();
    expect(lines).toHaveLength(1);
    c.inc();
    emf.flush();
    expect(docs().map((d) => d.Things)).toEqual([4, 1]);
  });

  it('ignore metrics without CloudWatch metadata, and refuse ones that cannot make a valid document', () => {
    const { r, emf, docs } = setup();
    r.counter({ name: 'x_local_total', help: 'h' }).inc();
    const dims = Array.from({ length: 30 }, (_, i) => `d${i}`);
    r.counter({ name: 'x_wide_total', help: 'h', labels: dims, cloudwatch: { name: 'Wide', unit: 'Count', dimensions: dims } }).inc();
    r.counter({
      name: 'x_fn_total',
      help: 'h',
      labels: ['function'],
      cloudwatch: { name: 'Fn', unit: 'Count', dimensions: ['function'] },
    }).inc({ function: 'x' });
    r.counter({ name: 'x_ok_total', help: 'h', cloudwatch: { name: 'Ok', unit: 'Count', dimensions: [] } }).inc();
    emf.flush();
    expect(docs().map((d) => d._aws.CloudWatchMetrics[0]!.Metrics.map((m) => m.Name))).toEqual([['Ok']]);
  });
});
