import { describe, expect, it } from 'vitest';
import { escapeLabelValue, OVERFLOW, Registry, setRecording } from '../../lib/metrics/registry';
import { recordRequest, requestMetrics, statusClass } from '../../lib/metrics/requests';

describe('metrics registry', () => {
  it('counts exactly, per label set', () => {
    const r = new Registry();
    const c = r.counter({ name: 'latchkey_things_total', help: 'Things.', labels: ['kind'] });
    for (let i = 0; i < 37; i++) c.inc({ kind: 'a' });
    c.inc({ kind: 'b' }, 5);
    expect(c.value({ kind: 'a' })).toBe(37);
    expect(c.value({ kind: 'b' })).toBe(5);
    expect(c.value({ kind: 'c' })).toBe(0);
    expect(() => c.inc({ kind: 'a' }, -1)).toThrow(/cannot go up/);
    expect(() => c.inc({ other: 'x' })).toThrow(/no label "other"/);
  });

  it('writes the Prometheus text format', () => {
    const r = new Registry();
    const c = r.counter({ name: 'latchkey_requests_total', help: 'Requests\nanswered \\ here.', labels: ['function', 'status_class'] });
    c.inc({ function: 'sys', status_class: '2xx' });
    c.inc({ function: 'sys', status_class: '2xx' });
    c.inc({ function: 'pki', status_class: '4xx' });
    r.counter({ name: 'latchkey_a_total', help: 'Unlabelled.' }).inc();
    expect(r.prometheusText()).toBe(
      [
        '# HELP latchkey_a_total Unlabelled.',
        '# TYPE latchkey_a_total counter',
        'latchkey_a_total 1',
        '# HELP latchkey_requests_total Requests\\nanswered \\\\ here.',
        '# TYPE latchkey_requests_total counter',
        'latchkey_requests_total{function="sys",status_class="2xx"} 2',
        'latchkey_requests_total{function="pki",status_class="4xx"} 1',
        '',
      ].join('\n'),
    );
  });

  it('escapes label values (backslash, double quote, line feed)', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    const r = new Registry();
    r.counter({ name: 'x_total', help: 'x', labels: ['v'] }).inc({ v: 'say "hi"\\\n' });
    expect(r.prometheusText()).toContain('x_total{v="say \\"hi\\"\\\\\\n"} 1\n');
  });

  it('counts histogram observations into cumulative buckets, with +Inf, sum and count', () => {
    const r = new Registry();
    const h = r.histogram({ name: 'latchkey_d_seconds', help: 'd', labels: ['f'], buckets: [0.1, 1, 10] });
    for (const v of [0.05, 0.1, 0.5, 2, 20]) h.observe({ f: 'sys' }, v);
    expect(h.value({ f: 'sys' })).toEqual({ count: 5, sum: 22.65 });
    const text = r.prometheusText();
    expect(text).toContain('# TYPE latchkey_d_seconds histogram\n');
    expect(text).toContain(
      [
        'latchkey_d_seconds_bucket{f="sys",le="0.1"} 2',
        'latchkey_d_seconds_bucket{f="sys",le="1"} 3',
        'latchkey_d_seconds_bucket{f="sys",le="10"} 4',
        'latchkey_d_seconds_bucket{f="sys",le="+Inf"} 5',
        'latchkey_d_seconds_sum{f="sys"} 22.65',
        'latchkey_d_seconds_count{f="sys"} 5',
      ].join('\n'),
    );
    expect(() => r.histogram({ name: 'bad', help: 'b', buckets: [1, 1] })).toThrow(/strictly increasing/);
  });

  it('bounds the label sets: past maxSeries new ones fold into one _overflow series', () => {
    const r = new Registry();
    const c = r.counter({ name: 'c_total', help: 'c', labels: ['k'], maxSeries: 3 });
    for (let i = 0; i < 100; i++) c.inc({ k: `v${i}` });
    expect(c.all()).toHaveLength(4);
    expect(c.value({ k: OVERFLOW })).toBe(97);
    expect(c.value({ k: 'v0' })).toBe(1);
  });

  it('records through bound handles into the same series as labelled calls, listener included', () => {
    const r = new Registry();
    const c = r.counter({ name: 'calls_total', help: 'c', labels: ['operation', 'result'] });
    const h = r.histogram({ name: 'calls_seconds', help: 'h', labels: ['operation'], buckets: [0.01, 1] });
    const seen: unknown[] = [];
    r.listen((x) => seen.push([x.metric.name, x.labels, x.value]));
    const ok = c.bind({ operation: 'get', result: 'ok' });
    const get = h.bind({ operation: 'get' });
    expect(c.all()).toHaveLength(0); // nothing shown before a value is recorded
    ok.inc();
    ok.inc(2);
    c.inc({ operation: 'get', result: 'ok' });
    get.observe(0.5);
    get.observe(Number.NaN);
    expect(c.value({ operation: 'get', result: 'ok' })).toBe(4);
    expect(c.all()).toHaveLength(1);
    expect(h.value({ operation: 'get' })).toEqual({ count: 1, sum: 0.5 });
    expect(r.prometheusText()).toContain(
      'calls_seconds_bucket{operation="get",le="0.01"} 0\ncalls_seconds_bucket{operation="get",le="1"} 1',
    );
    expect(seen[0]).toEqual(['calls_total', { operation: 'get', result: 'ok' }, 1]);
    expect(() => ok.inc(-1)).toThrow(/cannot go up/);
    expect(() => c.bind({ nope: 'x' }).inc()).toThrow(/no label "nope"/);
  });

  it("answers the reference server's JSON shape", () => {
    let t = 0;
    const r = new Registry(() => t);
    const c = r.counter({ name: 'latchkey_c_total', help: 'c', labels: ['k'] });
    c.inc({ k: 'a' });
    c.inc({ k: 'a' });
    r.histogram({ name: 'latchkey_h_seconds', help: 'h' }).observe({}, 2);
    t = 2000;
    const j = r.json();
    expect(j.Timestamp).toBe('1970-01-01T00:00:02.000Z');
    expect(j.Gauges).toEqual([]);
    expect(j.Counters).toEqual([
      { Name: 'latchkey_c_total', Count: 2, Rate: 1, Sum: 2, Min: 1, Max: 1, Mean: 1, Stddev: 0, Labels: { k: 'a' } },
    ]);
    expect(j.Samples).toEqual([{ Name: 'latchkey_h_seconds', Count: 1, Rate: 1, Sum: 2, Min: 2, Max: 2, Mean: 2, Stddev: 0, Labels: {} }]);
  });

  it('records a request with bounded labels: status class, known operations only', () => {
    const r = new Registry();
    const m = requestMetrics(r);
    recordRequest({ function: 'pki', mount: 'pki', path: 'pki/issue/:name', operation: 'update', status: 200, seconds: 0.01 }, m);
    recordRequest({ function: 'pki', mount: 'pki', path: 'pki/issue/:name', operation: 'frobnicate', status: 403, seconds: 0.01 }, m);
    recordRequest({ function: 'sys', status: 404, seconds: 0.001 }, m);
    const base = { function: 'pki', mount: 'pki', path: 'pki/issue/:name' };
    expect(m.requests.value({ ...base, operation: 'update', status_class: '2xx' })).toBe(1);
    expect(m.requests.value({ ...base, operation: 'other', status_class: '4xx' })).toBe(1);
    expect(m.requests.value({ function: 'sys', mount: '', path: '', operation: 'other', status_class: '4xx' })).toBe(1);
    expect(m.duration.value({ function: 'pki', mount: 'pki', operation: 'update', status_class: '2xx' }).count).toBe(1);
    expect([statusClass(204), statusClass(429), statusClass(503), statusClass(0)]).toEqual(['2xx', '4xx', '5xx', '5xx']);
  });
});

describe('recording off (METRICS=off)', () => {
  it('records nothing while off, and again once on', () => {
    const r = new Registry();
    const c = r.counter({ name: 'x_total', help: 'x' });
    const h = r.histogram({ name: 'y_seconds', help: 'y' });
    const g = r.gauge({ name: 'z', help: 'z' });
    setRecording(false);
    try {
      c.inc();
      h.observe({}, 1);
      g.set({}, 3);
      c.bind({}).inc();
      h.bind({}).observe(1);
      expect(r.prometheusText()).not.toMatch(/^x_total /m);
      expect(c.value()).toBe(0);
      expect(g.value()).toBeUndefined();
    } finally {
      setRecording(true);
    }
    c.inc();
    expect(c.value()).toBe(1);
  });
});
