/**
 * CloudWatch alarms, the SNS topic they notify and a dashboard, from the functions of
 * infra/functions.cjs and the `observability` settings (infra/settings.cjs).
 *
 * Latchkey's own metrics are EMF (namespace Latchkey, names from lib/metrics/catalog.ts and
 * lib/metrics/requests.ts); each is published with the function's dimension set and with an empty
 * one, a service-wide rollup, which is what the alarms watch (no Dimensions). AWS's are AWS/Lambda
 * by FunctionName and AWS/ApiGateway by ApiId (the HTTP API the framework names HttpApi).
 * test/deploy/observability.test.ts holds every metric named here to those lists.
 *
 * One alarm per function for errors, throttles and duration: a metric-math alarm costs the same
 * per metric it reads, and an alarm per function names the function to look at.
 */
'use strict';
const { NAMESPACE, API, dashboardBody } = require('./dashboard.cjs');

const TOPIC = 'LatchkeyAlarmTopic';
const DASHBOARD = 'LatchkeyDashboard';
/** Share of a function's timeout past which a run is "near the timeout". */
const NEAR_TIMEOUT = 0.8;

const pascal = (name) =>
  name
    .split('-')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
const deployedName = (fn) => ({ 'Fn::Sub': `\${AWS::StackName}-${fn}` });
const isHttp = (fn) => (fn.events ?? []).some((e) => e.httpApi);

/** A Latchkey metric's service-wide rollup: the dimension set with no dimensions. */
const latchkey = (name, stat) => ({ Namespace: NAMESPACE, MetricName: name, Statistic: stat });
const lambda = (fn, name, stat) => ({
  Namespace: 'AWS/Lambda',
  MetricName: name,
  Dimensions: [{ Name: 'FunctionName', Value: deployedName(fn) }],
  Statistic: stat,
});

/** An alarm: `metric` is a single metric (Namespace, MetricName, …) or { Metrics } for metric math. */
function alarm(topic, name, description, metric, when) {
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmName: { 'Fn::Sub': `\${AWS::StackName}-${name}` },
      AlarmDescription: description,
      ...metric,
      Period: when.period ?? 300,
      EvaluationPeriods: when.periods ?? 1,
      DatapointsToAlarm: when.datapoints ?? when.periods ?? 1,
      Threshold: when.threshold,
      ComparisonOperator: when.operator ?? 'GreaterThanOrEqualToThreshold',
      TreatMissingData: when.missing ?? 'notBreaching',
      AlarmActions: [topic],
      OKActions: [topic],
    },
  };
}

/** The HTTP API's 5xx share of its requests, in percent, over 5-minute periods. */
function api5xxMetrics() {
  const stat = (id, name) => ({
    Id: id,
    MetricStat: {
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: name, Dimensions: [{ Name: 'ApiId', Value: { Ref: API } }] },
      Period: 300,
      Stat: 'Sum',
    },
    ReturnData: false,
  });
  return {
    Metrics: [
      stat('errors', '5xx'),
      stat('requests', 'Count'),
      { Id: 'rate', Label: '5xx % of requests', Expression: '100 * FILL(errors, 0) / requests', ReturnData: true },
    ],
  };
}

function serviceAlarms(topic, o) {
  return {
    LatchkeyApi5xxAlarm: alarm(
      topic,
      'api-5xx-rate',
      `More than ${o.api5xxPercent}% of the HTTP API's requests answered 5xx in two of three 5-minute periods: find the failing function on the dashboard and read its log (the gateway line's request id leads to it).`,
      api5xxMetrics(),
      { threshold: o.api5xxPercent, operator: 'GreaterThanThreshold', periods: 3, datapoints: 2 },
    ),
    LatchkeyAuditFailuresAlarm: alarm(
      topic,
      'audit-write-failures',
      'An audit record could not be written, so its request was refused (audit fails closed): check the audit devices (sys/audit) and the table, and the failing function log.',
      latchkey('AuditWriteFailures', 'Sum'),
      { threshold: 1, period: 60 },
    ),
    LatchkeyJobFailuresAlarm: alarm(
      topic,
      'job-failures',
      'A lease sweep, tidy or CRL rebuild run failed: read the log of the sweeper, pki-tidy or ssh-tidy function for the error; the next scheduled run retries.',
      latchkey('JobFailures', 'Sum'),
      { threshold: 1 },
    ),
    LatchkeyLeaseRevocationFailuresAlarm: alarm(
      topic,
      'lease-revocation-failures',
      'Leases failed to revoke at least 3 times in each of three 5-minute periods, so secrets outlive their leases: read the sweeper log for the engine and fix its credentials or backend, the sweeper retries with back-off.',
      latchkey('LeaseRevocationFailures', 'Sum'),
      { threshold: 3, periods: 3 },
    ),
  };
}

/**
 * Missing data keeps the alarm's state: the gauge is reported by the PKI schedule, so silence is
 * either no PKI mount (never alarms) or a schedule that stopped (its errors alarm speaks).
 */
function crlAlarm(topic) {
  return alarm(
    topic,
    'crls-overdue',
    "A CRL's next update has passed without a rebuild for 10 minutes, so relying parties may reject certificates: read the pki-tidy log, then rebuild with pki/crl/rotate.",
    latchkey('CrlsOverdue', 'Maximum'),
    { threshold: 0, operator: 'GreaterThanThreshold', periods: 2, missing: 'ignore' },
  );
}

function functionAlarms(topic, name, fn) {
  const id = `Latchkey${pascal(name)}`;
  const limitMs = Math.floor(fn.timeout * 1000 * NEAR_TIMEOUT);
  // The scheduled jobs spend their budget (timeout less 5 s) when they have a backlog: only a
  // backlog that lasts 15 minutes is worth a page.
  const near = isHttp(fn)
    ? `A ${name} request took over ${limitMs / 1000} s of its ${fn.timeout} s timeout: requests near it fail as 5xx; find the slow operation in the log (store or KMS latency on the dashboard).`
    : `The ${name} job ran past ${limitMs / 1000} s of its ${fn.timeout} s timeout for 15 minutes: it has a backlog it is not clearing; read its log for how much is left and why it is slow.`;
  return {
    [`${id}ErrorsAlarm`]: alarm(
      topic,
      `${name}-errors`,
      `The ${name} function failed (threw, timed out or ran out of memory): read its log group /aws/lambda/<stack>-${name} for the error.`,
      lambda(name, 'Errors', 'Sum'),
      { threshold: 1 },
    ),
    [`${id}ThrottlesAlarm`]: alarm(
      topic,
      `${name}-throttles`,
      `Invocations of ${name} were throttled: raise its reserved concurrency (infra/settings.json) or the account's Lambda concurrency quota.`,
      lambda(name, 'Throttles', 'Sum'),
      { threshold: 1 },
    ),
    [`${id}DurationAlarm`]: alarm(topic, `${name}-near-timeout`, near, lambda(name, 'Duration', 'Maximum'), {
      threshold: limitMs,
      operator: 'GreaterThanThreshold',
      periods: isHttp(fn) ? 1 : 3,
    }),
  };
}

function alarmResources(functions, o) {
  const topic = o.alarmTopicArn || { Ref: TOPIC };
  const out = {};
  if (!o.alarmTopicArn) {
    out[TOPIC] = {
      Type: 'AWS::SNS::Topic',
      // Alarm messages carry no secrets; an AWS-managed SNS key would refuse CloudWatch's publish.
      Properties: { DisplayName: 'Latchkey alarms', TopicName: { 'Fn::Sub': '${AWS::StackName}-alarms' } },
    };
  }
  Object.assign(out, serviceAlarms(topic, o));
  if (functions['pki-tidy']) out.LatchkeyCrlsOverdueAlarm = crlAlarm(topic);
  for (const [name, fn] of Object.entries(functions)) Object.assign(out, functionAlarms(topic, name, fn));
  return out;
}

/** { Resources, Outputs } for the settings: alarms and the topic, the dashboard, or none. */
function observabilityResources(functions, settings) {
  const o = settings.observability;
  const Resources = o.alarms ? alarmResources(functions, o) : {};
  const Outputs = {};
  if (o.alarms) Outputs.AlarmTopicArn = { Value: o.alarmTopicArn || { Ref: TOPIC } };
  if (o.dashboard) {
    const alarmNames = Object.values(Resources)
      .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
      .map((r) => r.Properties.AlarmName['Fn::Sub']);
    Resources[DASHBOARD] = {
      Type: 'AWS::CloudWatch::Dashboard',
      Properties: {
        DashboardName: { 'Fn::Sub': '${AWS::StackName}' },
        DashboardBody: { 'Fn::Sub': dashboardBody(functions, alarmNames) },
      },
    };
    Outputs.DashboardName = { Value: { Ref: DASHBOARD } };
  }
  return { Resources, Outputs };
}

module.exports = { NAMESPACE, API, TOPIC, DASHBOARD, NEAR_TIMEOUT, observabilityResources };
