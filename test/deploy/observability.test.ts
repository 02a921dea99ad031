/**
 * The alarms, their topic and the dashboard (infra/observability.cjs, infra/dashboard.cjs), from
 * the generators with settings given here, no packaging. Every metric they name must be one that
 * something emits: Latchkey's from the catalog the functions publish in EMF
 * (lib/metrics/catalog.ts, lib/metrics/requests.ts), with a dimension set EMF publishes it under
 * (the function's, or the empty rollup the alarms read); AWS's from the lists below, each as AWS
 * documents it.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { domainMetrics } from '../../lib/metrics/catalog';
import { NAMESPACE as EMF_NAMESPACE, unusable } from '../../lib/metrics/emf';
import { Metric, Registry, type CloudWatchMetric } from '../../lib/metrics/registry';
import { requestMetrics } from '../../lib/metrics/requests';
import { cfnLint } from '../helpers/cfn-lint';

const require = createRequire(import.meta.url);

interface Fn {
  timeout: number;
  events?: { httpApi?: unknown; schedule?: unknown }[];
}
interface Settings {
  observability: { alarms: boolean; dashboard: boolean; alarmTopicArn: string; api5xxPercent: number };
}
interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
interface Out {
  Resources: Record<string, Resource>;
  Outputs: Record<string, { Value: unknown }>;
}
const { parseSettings } = require('../../infra/settings.cjs') as { parseSettings: (raw: unknown) => Settings };
const { readSettings } = require('../../infra/settings.cjs') as { readSettings: () => Settings };
const { buildFunctions } = require('../../infra/functions.cjs') as {
  buildFunctions: (m?: unknown, e?: unknown, s?: Settings) => Record<string, Fn>;
};
const { observabilityResources, NAMESPACE, TOPIC, DASHBOARD, NEAR_TIMEOUT } = require('../../infra/observability.cjs') as {
  observabilityResources: (functions: Record<string, Fn>, settings: Settings) => Out;
  NAMESPACE: string;
  TOPIC: string;
  DASHBOARD: string;
  NEAR_TIMEOUT: number;
};

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:ops-pager';
const functions = buildFunctions();
const generate = (observability: unknown = {}) => observabilityResources(functions, parseSettings({ observability }));
const ofType = (out: Out, type: string) => Object.entries(out.Resources).filter(([, r]) => r.Type === type);

// ---- What is emitted ----------------------------------------------------------------------------

/** Every CloudWatch metric the functions publish (lib/metrics/emf.ts takes it), by name, from the catalog itself. */
function catalog(): Map<string, CloudWatchMetric> {
  const r = new Registry();
  const found = new Map<string, CloudWatchMetric>();
  const walk = (o: unknown): void => {
    if (o instanceof Metric) {
      if (o.cloudwatch && !unusable(o)) found.set(o.cloudwatch.name, o.cloudwatch);
    } else if (o && typeof o === 'object') for (const v of Object.values(o)) walk(v);
  };
  walk(domainMetrics(r));
  walk(requestMetrics(r));
  return found;
}
const LATCHKEY = catalog();
/** lib/metrics/emf.ts publishes each metric under the function's dimension set and under the empty one (the rollup). */
const latchkeySets = (m: CloudWatchMetric) => [['function', ...m.dimensions].sort(), []];

/**
 * AWS's metrics the stack may name, with the dimension sets AWS publishes them under:
 * - AWS/Lambda: https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html
 *   (Invocations, Errors, Throttles, Duration, ConcurrentExecutions; dimension FunctionName);
 * - AWS/ApiGateway for HTTP APIs: https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-metrics.html
 *   (4xx, 5xx, Count, IntegrationLatency, Latency, DataProcessed; dimensions ApiId, or ApiId and
 *   Stage; REST APIs' 5XXError and ApiName do not apply).
 */
const AWS: Record<string, { names: string[]; sets: string[][] }> = {
  'AWS/Lambda': { names: ['Invocations', 'Errors', 'Throttles', 'Duration', 'ConcurrentExecutions'], sets: [['FunctionName']] },
  'AWS/ApiGateway': {
    names: ['4xx', '5xx', 'Count', 'IntegrationLatency', 'Latency', 'DataProcessed'],
    sets: [['ApiId'], ['ApiId', 'Stage']],
  },
};

/** Why a metric (namespace, name, dimension names) is not one that is emitted, or undefined. */
function notEmitted(namespace: string, name: string, dimensions: string[]): string | undefined {
  const dims = [...dimensions].sort();
  const sets =
    namespace === 'Latchkey'
      ? LATCHKEY.has(name)
        ? latchkeySets(LATCHKEY.get(name)!)
        : undefined
      : AWS[namespace]?.names.includes(name)
        ? AWS[namespace]!.sets
        : undefined;
  if (!sets) return `${namespace} ${name} is not emitted`;
  if (!sets.some((s) => JSON.stringify([...s].sort()) === JSON.stringify(dims)))
    return `${namespace} ${name} is not emitted with dimensions [${dims.join(', ')}] (emitted with ${JSON.stringify(sets)})`;
  return undefined;
}

describe('the metrics the checks hold to', () => {
  it('are the catalog the functions publish, and the AWS lists', () => {
    expect(NAMESPACE).toBe(EMF_NAMESPACE);
    for (const name of [
      'Requests',
      'RequestDuration',
      'CertificatesIssued',
      'CrlsOverdue',
      'AuditWriteFailures',
      'JobFailures',
      'ColdStart',
    ])
      expect(LATCHKEY.has(name), name).toBe(true);
    expect(notEmitted('Latchkey', 'Requests', ['function', 'mount', 'operation', 'status_class'])).toBeUndefined();
    expect(notEmitted('Latchkey', 'Requests', ['status_class'])).toMatch(/not emitted with dimensions/);
    expect(notEmitted('Latchkey', 'Nope', [])).toMatch(/not emitted/);
    expect(notEmitted('AWS/ApiGateway', '5XXError', ['ApiId'])).toMatch(/not emitted/);
  });
});

// ---- The alarms ---------------------------------------------------------------------------------

interface Dimension {
  Name: string;
  Value: unknown;
}
interface MetricRef {
  Namespace: string;
  MetricName: string;
  Dimensions?: Dimension[];
}
interface Query {
  Id: string;
  Expression?: string;
  MetricStat?: { Metric: MetricRef };
  ReturnData?: boolean;
}

/** The metrics an alarm reads: its one metric, or every metric of its metric math. */
function metricsOf(a: Resource): MetricRef[] {
  const p = a.Properties as unknown as MetricRef & { Metrics?: Query[] };
  if (!p.Metrics) return [p];
  return p.Metrics.filter((q) => q.MetricStat).map((q) => q.MetricStat!.Metric);
}

const deployedName = (fn: string) => ({ 'Fn::Sub': `\${AWS::StackName}-${fn}` });

function checkDimensionValues(metric: MetricRef, where: string) {
  for (const d of metric.Dimensions ?? []) {
    if (d.Name === 'FunctionName') expect(Object.keys(functions).map(deployedName), where).toContainEqual(d.Value);
    else if (d.Name === 'ApiId') expect(d.Value, where).toEqual({ Ref: 'HttpApi' });
    else throw new Error(`${where}: unexpected dimension ${d.Name}`);
  }
}

describe('the alarms', () => {
  const out = generate();
  const alarms = ofType(out, 'AWS::CloudWatch::Alarm');

  it('watch the 5xx rate, audit, jobs, lease revocations, CRLs, and each function’s errors, throttles and duration', () => {
    const ids = alarms.map(([id]) => id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'LatchkeyApi5xxAlarm',
        'LatchkeyAuditFailuresAlarm',
        'LatchkeyJobFailuresAlarm',
        'LatchkeyLeaseRevocationFailuresAlarm',
        'LatchkeyCrlsOverdueAlarm',
      ]),
    );
    for (const fn of Object.keys(functions)) {
      for (const metric of ['Errors', 'Throttles', 'Duration']) {
        const watching = alarms.filter(([, a]) =>
          metricsOf(a).some(
            (m) =>
              m.MetricName === metric &&
              JSON.stringify(m.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: deployedName(fn) }]),
          ),
        );
        expect(watching, `${fn} ${metric}`).toHaveLength(1);
      }
    }
    expect(alarms).toHaveLength(5 + 3 * Object.keys(functions).length);
  });

  it('read only metrics that are emitted: Latchkey’s service-wide rollup (no dimensions), AWS/Lambda by function, the HTTP API by id', () => {
    for (const [id, a] of alarms) {
      for (const m of metricsOf(a)) {
        const dims = (m.Dimensions ?? []).map((d) => d.Name);
        expect(notEmitted(m.Namespace, m.MetricName, dims), id).toBeUndefined();
        if (m.Namespace === 'Latchkey') expect(dims, `${id}: alarms read the rollup`).toEqual([]);
        checkDimensionValues(m, id);
      }
    }
  });

  it('compute the 5xx rate from the HTTP API’s 5xx and Count, returning one series', () => {
    const p = out.Resources.LatchkeyApi5xxAlarm!.Properties as { Metrics: Query[]; Threshold: number };
    const returned = p.Metrics.filter((q) => q.ReturnData !== false);
    expect(returned).toHaveLength(1);
    const ids = p.Metrics.map((q) => q.Id);
    for (const ref of returned[0]!.Expression!.match(/\b[a-z][a-zA-Z0-9_]*\b/g)!.filter((w) => w !== 'FILL'))
      expect(ids, `expression names ${ref}`).toContain(ref);
    expect(
      metricsOf(out.Resources.LatchkeyApi5xxAlarm!)
        .map((m) => m.MetricName)
        .sort(),
    ).toEqual(['5xx', 'Count']);
    expect(p.Threshold).toBe(5);
    expect(generate({ api_5xx_percent: 1.5 }).Resources.LatchkeyApi5xxAlarm!.Properties.Threshold).toBe(1.5);
  });

  it('fire near each function’s timeout (80 %, in milliseconds)', () => {
    for (const [fn, f] of Object.entries(functions)) {
      const [, a] = alarms.find(([, r]) =>
        metricsOf(r).some((m) => m.MetricName === 'Duration' && JSON.stringify(m.Dimensions).includes(`-${fn}"`)),
      )!;
      expect(a.Properties, fn).toMatchObject({
        Statistic: 'Maximum',
        Threshold: Math.floor(f.timeout * 1000 * NEAR_TIMEOUT),
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
    expect(NEAR_TIMEOUT).toBe(0.8);
  });

  it('count failures over the thresholds asked, treating no data as no failure (the CRL gauge keeps its state)', () => {
    const p = (id: string) => out.Resources[id]!.Properties;
    expect(p('LatchkeyAuditFailuresAlarm')).toMatchObject({
      MetricName: 'AuditWriteFailures',
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(p('LatchkeyJobFailuresAlarm')).toMatchObject({ MetricName: 'JobFailures', Statistic: 'Sum', Threshold: 1 });
    expect(p('LatchkeyLeaseRevocationFailuresAlarm')).toMatchObject({
      MetricName: 'LeaseRevocationFailures',
      Threshold: 3,
      Period: 300,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
    expect(p('LatchkeyCrlsOverdueAlarm')).toMatchObject({
      MetricName: 'CrlsOverdue',
      Statistic: 'Maximum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'ignore',
    });
    for (const [id, a] of alarms) if (id !== 'LatchkeyCrlsOverdueAlarm') expect(a.Properties.TreatMissingData, id).toBe('notBreaching');
  });

  it('each say in one sentence what they mean and what to do, under a name of the stack', () => {
    const names = new Set<string>();
    for (const [id, a] of alarms) {
      const d = a.Properties.AlarmDescription as string;
      expect(d, id).toMatch(/^[A-Z].*: .*\.$/);
      expect(d.slice(0, -1), `${id}: one sentence`).not.toMatch(/[.!?] [A-Z]/);
      expect(d.length, id).toBeLessThanOrEqual(1024);
      const name = (a.Properties.AlarmName as { 'Fn::Sub': string })['Fn::Sub'];
      expect(name, id).toMatch(/^\$\{AWS::StackName\}-[a-z0-9-]+$/);
      names.add(name);
    }
    expect(names.size).toBe(alarms.length);
  });

  it('notify the topic the stack creates, on alarm and on recovery, and output its ARN', () => {
    const [[topicId, topic]] = ofType(out, 'AWS::SNS::Topic') as [[string, Resource]];
    expect(topicId).toBe(TOPIC);
    expect(topic.Properties.TopicName).toEqual({ 'Fn::Sub': '${AWS::StackName}-alarms' });
    for (const [id, a] of alarms) {
      expect(a.Properties.AlarmActions, id).toEqual([{ Ref: TOPIC }]);
      expect(a.Properties.OKActions, id).toEqual([{ Ref: TOPIC }]);
    }
    expect(out.Outputs.AlarmTopicArn).toEqual({ Value: { Ref: TOPIC } });
  });

  it('notify an existing topic instead when alarm_topic_arn names one, creating none', () => {
    const given = generate({ alarm_topic_arn: TOPIC_ARN });
    expect(ofType(given, 'AWS::SNS::Topic')).toEqual([]);
    for (const [id, a] of ofType(given, 'AWS::CloudWatch::Alarm')) {
      expect(a.Properties.AlarmActions, id).toEqual([TOPIC_ARN]);
      expect(a.Properties.OKActions, id).toEqual([TOPIC_ARN]);
    }
    expect(given.Outputs.AlarmTopicArn).toEqual({ Value: TOPIC_ARN });
  });

  it('leave out the CRL alarm when there is no PKI schedule', () => {
    const rest = Object.fromEntries(Object.entries(functions).filter(([n]) => n !== 'pki-tidy'));
    expect(observabilityResources(rest, parseSettings({})).Resources).not.toHaveProperty('LatchkeyCrlsOverdueAlarm');
  });
});

// ---- The dashboard ------------------------------------------------------------------------------

const VARIABLES: Record<string, string> = {
  'AWS::Region': 'eu-west-1',
  'AWS::Partition': 'aws',
  'AWS::AccountId': '123456789012',
  'AWS::StackName': 'latchkey-dev',
  HttpApi: 'a1b2c3d4e5',
};
/** Fn::Sub as CloudFormation does it, refusing a variable it would not know. */
const substitute = (s: string) =>
  s.replace(/\$\{([^}!]+)\}/g, (_, v: string) => {
    if (!(v in VARIABLES)) throw new Error(`unknown Fn::Sub variable ${v}`);
    return VARIABLES[v]!;
  });

type MetricLine = (string | Record<string, unknown>)[];
interface Widget {
  type: string;
  x: number;
  y: number;
  width: number;
  height: number;
  properties: { title: string; region?: string; metrics?: MetricLine[]; alarms?: string[] };
}

function body(out: Out): { widgets: Widget[] } {
  const sub = (out.Resources[DASHBOARD]!.Properties.DashboardBody as { 'Fn::Sub': string })['Fn::Sub'];
  return JSON.parse(substitute(sub)) as { widgets: Widget[] };
}

const SEARCH = /SEARCH\('\{([^}]+)\} MetricName="([^"]+)"((?: [a-z_]+="[^"]*")*)', '[A-Za-z0-9.]+', \d+\)/g;

/** The metrics a widget line names: [namespace, name, dimension names]; search expressions by their schema. */
function metricsOfLine(line: MetricLine, where: string): [string, string, string[]][] {
  const [first] = line;
  if (typeof first === 'string') {
    const [ns, name, ...rest] = line.filter((x): x is string => typeof x === 'string');
    const dims = rest.filter((_, i) => i % 2 === 0);
    const values = rest.filter((_, i) => i % 2 === 1);
    dims.forEach((d, i) => {
      if (d === 'FunctionName')
        expect(
          Object.keys(functions).map((f) => `latchkey-dev-${f}`),
          where,
        ).toContain(values[i]);
      else if (d === 'ApiId') expect(values[i], where).toBe(VARIABLES.HttpApi);
    });
    return [[ns!, name!, dims]];
  }
  const expression = (first as { expression: string }).expression;
  const found = [...expression.matchAll(SEARCH)];
  expect(found.length, `${where}: ${expression}`).toBeGreaterThan(0);
  return found.map(([, schema, name, filters]) => {
    const [ns, ...dims] = schema!.split(',');
    // A filter names a dimension of the schema searched.
    for (const [, d] of filters!.matchAll(/ ([a-z_]+)="/g)) expect(dims, `${where}: filter on ${d}`).toContain(d);
    return [ns!, name!, dims];
  });
}

describe('the dashboard', () => {
  const out = generate();
  const { widgets } = body(out);
  const named = () => widgets.flatMap((w) => (w.properties.metrics ?? []).flatMap((l) => metricsOfLine(l, w.properties.title)));

  it('is a JSON body once its Fn::Sub variables (region, partition, account, stack, API id) resolve', () => {
    expect(widgets.length).toBeGreaterThan(10);
    for (const w of widgets.filter((x) => x.type === 'metric')) expect(w.properties.region, w.properties.title).toBe('eu-west-1');
    for (const w of widgets) {
      expect(w.x + w.width, w.properties.title).toBeLessThanOrEqual(24);
      expect(w.properties.title).toBeTruthy();
    }
    expect(out.Resources[DASHBOARD]!.Properties.DashboardName).toEqual({ 'Fn::Sub': '${AWS::StackName}' });
    expect(out.Outputs.DashboardName).toEqual({ Value: { Ref: DASHBOARD } });
  });

  it('names only metrics that are emitted, with dimensions they are emitted under', () => {
    for (const [ns, name, dims] of named()) expect(notEmitted(ns, name, dims), `${ns} ${name} [${dims.join(',')}]`).toBeUndefined();
  });

  it('shows the main figures', () => {
    const names = new Set(named().map(([ns, name]) => `${ns} ${name}`));
    const latchkey = [
      'Requests',
      'RequestDuration',
      'CertificatesIssued',
      'CertificatesRevoked',
      'SshCertificatesSigned',
      'LeasesCreated',
      'LeasesRevoked',
      'LeaseRevocationFailures',
      'Logins',
      'AuditWriteFailures',
      'JobRuns',
      'JobFailures',
      'CrlsOverdue',
      'ColdStart',
      'StoreCallDuration',
      'KmsCallDuration',
    ];
    for (const n of latchkey) expect(names, n).toContain(`Latchkey ${n}`);
    for (const n of ['Errors', 'Throttles', 'Duration']) expect(names, n).toContain(`AWS/Lambda ${n}`);
    for (const n of ['5xx', 'Count']) expect(names, n).toContain(`AWS/ApiGateway ${n}`);
    const perFunction = (metric: string) =>
      widgets
        .flatMap((w) => w.properties.metrics ?? [])
        .filter((l) => l[0] === 'AWS/Lambda' && l[1] === metric)
        .map((l) => l[3]);
    expect(perFunction('Errors').sort()).toEqual(
      Object.keys(functions)
        .map((f) => `latchkey-dev-${f}`)
        .sort(),
    );
  });

  it('lists every alarm, by ARN, when there are alarms', () => {
    const list = widgets.find((w) => w.type === 'alarm')!;
    const alarmNames = ofType(out, 'AWS::CloudWatch::Alarm').map(([, a]) =>
      substitute((a.Properties.AlarmName as { 'Fn::Sub': string })['Fn::Sub']),
    );
    expect(list.properties.alarms!.sort()).toEqual(alarmNames.map((n) => `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:${n}`).sort());
    expect(body(generate({ alarms: false })).widgets.filter((w) => w.type === 'alarm')).toEqual([]);
  });
});

// ---- The switches -------------------------------------------------------------------------------

describe('the observability settings', () => {
  it('are on in infra/settings.json as shipped, and by default', () => {
    expect(readSettings().observability).toEqual({ alarms: true, dashboard: true, alarmTopicArn: '', api5xxPercent: 5 });
    expect(parseSettings({}).observability).toEqual({ alarms: true, dashboard: true, alarmTopicArn: '', api5xxPercent: 5 });
  });

  it('remove the alarms and the topic, or the dashboard, or both, with their outputs', () => {
    const noAlarms = generate({ alarms: false });
    expect(Object.values(noAlarms.Resources).map((r) => r.Type)).toEqual(['AWS::CloudWatch::Dashboard']);
    expect(Object.keys(noAlarms.Outputs)).toEqual(['DashboardName']);
    const noDashboard = generate({ dashboard: false });
    expect(ofType(noDashboard, 'AWS::CloudWatch::Dashboard')).toEqual([]);
    expect(ofType(noDashboard, 'AWS::CloudWatch::Alarm').length).toBeGreaterThan(0);
    expect(Object.keys(noDashboard.Outputs)).toEqual(['AlarmTopicArn']);
    expect(generate({ alarms: false, dashboard: false })).toEqual({ Resources: {}, Outputs: {} });
  });

  it('refuse settings that would deploy wrong, naming them', () => {
    const bad = (observability: unknown) => () => parseSettings({ observability });
    expect(bad({ alarms: 'yes' })).toThrow(/observability.alarms must be true or false, not "yes"/);
    expect(bad({ dashboard: 1 })).toThrow(/observability.dashboard must be true or false/);
    expect(bad({ alarm_topic_arn: 'ops-pager' })).toThrow(/observability.alarm_topic_arn must be "" or an SNS topic ARN, not "ops-pager"/);
    expect(bad({ alarm_topic_arn: 'arn:aws:kms:eu-west-1:123456789012:key/abc' })).toThrow(/SNS topic ARN/);
    expect(bad({ alarms: false, alarm_topic_arn: TOPIC_ARN })).toThrow(/alarm_topic_arn is set but observability.alarms is false/);
    expect(bad({ api_5xx_percent: 0 })).toThrow(/observability.api_5xx_percent must be a number above 0 and at most 100, not 0/);
    expect(bad({ api_5xx_percent: '5' })).toThrow(/api_5xx_percent/);
    expect(bad({ alarm: false })).toThrow(
      /observability.alarm is not a setting \(known: alarms, dashboard, alarm_topic_arn, api_5xx_percent\)/,
    );
    expect(bad([])).toThrow(/observability must be an object/);
  });

  it('are what infra/resources.cjs puts in the stack', () => {
    const { resources } = require('../../infra/resources.cjs') as { resources: Out };
    const expected = observabilityResources(functions, readSettings());
    for (const [id, r] of Object.entries(expected.Resources)) expect(resources.Resources[id], id).toEqual(r);
    for (const [id, o] of Object.entries(expected.Outputs)) expect(resources.Outputs[id], id).toEqual(o);
  });
});

describe('cfn-lint', () => {
  it('finds no errors in the alarms, topic and dashboard (beside the HTTP API they name)', () => {
    const out = generate();
    const template: { Resources: Record<string, Resource> } & Record<string, unknown> = {
      AWSTemplateFormatVersion: '2010-09-09',
      Resources: { HttpApi: { Type: 'AWS::ApiGatewayV2::Api', Properties: { Name: 'latchkey', ProtocolType: 'HTTP' } }, ...out.Resources },
      Outputs: out.Outputs,
    };
    const result = cfnLint(template);
    expect(result.errors.crit).toEqual([]);
    expect(result.errors.warn).toEqual([]);
    // And it does check them: an unknown property, a string for a count, a dangling Ref.
    const alarm = template.Resources.LatchkeyJobFailuresAlarm!.Properties;
    alarm.Treshold = 1;
    alarm.EvaluationPeriods = 'one';
    alarm.AlarmActions = [{ Ref: 'NoSuchTopic' }];
    expect(cfnLint(template).errors.crit.map((e) => e.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Treshold is not a valid property/),
        expect.stringMatching(/Expecting an integer/),
        expect.stringMatching(/NoSuchTopic does not exist/),
      ]),
    );
  });
});
