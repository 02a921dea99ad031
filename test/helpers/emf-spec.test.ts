import { describe, expect, it } from 'vitest';
import { emfLines, emfViolations } from './emf-spec';

/** The specification's own example document. */
const EXAMPLE = {
  _aws: {
    Timestamp: 1574109732004,
    CloudWatchMetrics: [
      {
        Namespace: 'lambda-function-metrics',
        Dimensions: [['functionVersion']],
        Metrics: [{ Name: 'time', Unit: 'Milliseconds', StorageResolution: 60 }],
      },
    ],
  },
  functionVersion: '$LATEST',
  time: 100,
  requestId: '989ffbf8-9ace-4817-a57c-e4dd734019ee',
};

// A document being broken on purpose: any shape goes.
type Doc = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Change = (d: Doc) => unknown;
const edit = (f: Change): unknown => {
  const d = structuredClone(EXAMPLE) as Doc;
  f(d);
  return d;
};
const directive = (d: Doc): Doc => d._aws.CloudWatchMetrics[0];

describe('the EMF validator', () => {
  it("accepts the specification's example, an empty DimensionSet and an array of values", () => {
    expect(emfViolations(EXAMPLE)).toEqual([]);
    expect(emfViolations(edit((d) => (directive(d).Dimensions = [['functionVersion'], []])))).toEqual([]);
    expect(emfViolations(edit((d) => (d.time = [1, 2.5, 3])))).toEqual([]);
  });

  it.each<[string, Change, RegExp]>([
    ['no _aws', (d) => delete d._aws, /_aws must be an object/],
    ['a string timestamp', (d) => (d._aws.Timestamp = '2026-11-27'), /Timestamp/],
    ['an empty namespace', (d) => (directive(d).Namespace = ''), /Namespace/],
    ['a 256-character namespace', (d) => (directive(d).Namespace = 'n'.repeat(256)), /Namespace/],
    ['no dimension sets', (d) => (directive(d).Dimensions = []), /Dimensions must be/],
    ['a dimension not at the top level', (d) => delete d.functionVersion, /dimension "functionVersion"/],
    ['a numeric dimension value', (d) => (d.functionVersion = 3), /dimension "functionVersion"/],
    ['an empty dimension value', (d) => (d.functionVersion = ''), /dimension "functionVersion"/],
    [
      '31 dimension keys',
      (d) => {
        const keys = Array.from({ length: 31 }, (_, i) => `k${i}`);
        for (const k of keys) d[k] = 'v';
        directive(d).Dimensions = [keys];
      },
      /31 dimension keys/,
    ],
    ['a unit outside the list', (d) => (directive(d).Metrics[0].Unit = 'Millis'), /unit Millis/],
    ['a metric missing at the top level', (d) => delete d.time, /metric "time"/],
    ['a string metric value', (d) => (d.time = '100'), /metric "time"/],
    ['101 values', (d) => (d.time = Array.from({ length: 101 }, () => 1)), /metric "time"/],
    [
      '101 metrics',
      (d) => {
        directive(d).Metrics = Array.from({ length: 101 }, (_, i) => ({ Name: `m${i}` }));
        for (let i = 0; i < 101; i++) d[`m${i}`] = i;
      },
      /101 metrics/,
    ],
    ['an unknown member of a directive', (d) => (directive(d).Extra = 1), /unknown member Extra/],
  ])('refuses %s', (_name, change, message) => {
    expect(emfViolations(edit(change)).join('\n')).toMatch(message);
  });

  it('finds the EMF lines among other log lines', () => {
    const stdout = ['{"event":"request"}', JSON.stringify(EXAMPLE), 'not json', ''].join('\n');
    expect(emfLines(stdout).map((l) => l.doc)).toEqual([EXAMPLE]);
  });
});
