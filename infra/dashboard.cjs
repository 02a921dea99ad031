/**
 * The CloudWatch dashboard's body (infra/observability.cjs makes the resource): a JSON string
 * for Fn::Sub, whose only variables are ${AWS::Region}, ${AWS::Partition}, ${AWS::AccountId},
 * ${AWS::StackName} and ${HttpApi} (the HTTP API's id).
 *
 * Latchkey's metrics are read from their service-wide rollup (no dimensions), or, to split them by
 * a dimension only the function's set carries (a status class, a login result, the function),
 * through SEARCH over that set: { Latchkey, function, <the metric's dimensions> }.
 */
'use strict';

const NAMESPACE = 'Latchkey';
const API = 'HttpApi';
const PERIOD = 300;
const REGION = '${AWS::Region}';

const own = (name, stat, label) => [NAMESPACE, name, { stat, label: label ?? name }];
/** Latency beside a count: on the right axis. */
const right = (name, stat) => [NAMESPACE, name, { stat, label: `${stat} s`, yAxis: 'right' }];
const fnDims = (dims) => ['function', ...dims].join(',');
/** The sum of a Latchkey metric over every function's series matching `filter` (e.g. status_class="5xx"). */
const search = (id, label, metric, dims, filter = '', stat = 'Sum') => [
  {
    id,
    label,
    expression: `SUM(SEARCH('{${NAMESPACE},${fnDims(dims)}} MetricName="${metric}"${filter ? ` ${filter}` : ''}', '${stat}', ${PERIOD}))`,
  },
];
/** One series per function, named by the function. */
const byFunction = (id, metric, dims, stat = 'Sum') => [
  { id, label: '', expression: `SEARCH('{${NAMESPACE},${fnDims(dims)}} MetricName="${metric}"', '${stat}', ${PERIOD})` },
];
const api = (name, stat, label) => ['AWS/ApiGateway', name, 'ApiId', `\${${API}}`, { stat, label: label ?? name }];
const lambda = (name, fn, stat) => ['AWS/Lambda', name, 'FunctionName', `\${AWS::StackName}-${fn}`, { stat, label: fn }];

const graph = (title, metrics, stat = 'Sum', extra = {}) => ({
  type: 'metric',
  properties: { title, region: REGION, view: 'timeSeries', stacked: false, period: PERIOD, stat, metrics, ...extra },
});

function requestWidgets() {
  const byClass = ['2xx', '3xx', '4xx', '5xx'].map((c) =>
    search(`r${c}`, c, 'Requests', ['mount', 'operation', 'status_class'], `status_class="${c}"`),
  );
  return [
    graph('Requests by status class (Latchkey)', byClass),
    graph('Request duration, seconds', [own('RequestDuration', 'p50', 'p50'), own('RequestDuration', 'p99', 'p99')], 'p50'),
    graph('HTTP API: requests, 4xx, 5xx', [api('Count', 'Sum', 'requests'), api('4xx', 'Sum'), api('5xx', 'Sum')]),
    graph('HTTP API latency, ms', [api('Latency', 'p50', 'p50'), api('Latency', 'p99', 'p99')], 'p50'),
  ];
}

function domainWidgets() {
  return [
    graph('Certificates', [
      own('CertificatesIssued', 'Sum', 'X.509 issued'),
      own('CertificatesRevoked', 'Sum', 'X.509 revoked'),
      own('SshCertificatesSigned', 'Sum', 'SSH signed'),
      own('SshCertificatesRevoked', 'Sum', 'SSH revoked'),
    ]),
    graph('Leases', [
      own('LeasesCreated', 'Sum', 'created'),
      own('LeasesRenewed', 'Sum', 'renewed'),
      own('LeasesRevoked', 'Sum', 'revoked'),
      own('LeaseRevocationFailures', 'Sum', 'failed to revoke'),
    ]),
    graph('Logins by result', [
      search('ok', 'success', 'Logins', ['method', 'result'], 'result="success"'),
      search('failed', 'failure', 'Logins', ['method', 'result'], 'result="failure"'),
    ]),
    graph('Audit records', [own('AuditRecordsWritten', 'Sum', 'written'), own('AuditWriteFailures', 'Sum', 'failed (requests refused)')]),
    graph('Jobs: sweeper, tidies, CRL rebuilds', [
      own('JobRuns', 'Sum', 'runs'),
      own('JobFailures', 'Sum', 'failures'),
      own('JobItems', 'Sum', 'items'),
    ]),
    graph('CRLs', [own('CrlsOverdue', 'Maximum', 'overdue'), own('CrlBuilds', 'Sum', 'built')], 'Maximum'),
  ];
}

function platformWidgets(functions) {
  const each = (metric, stat) => functions.map((fn) => lambda(metric, fn, stat));
  return [
    graph('Lambda errors', each('Errors', 'Sum')),
    graph('Lambda throttles', each('Throttles', 'Sum')),
    graph('Lambda duration (maximum), ms', each('Duration', 'Maximum'), 'Maximum'),
    graph('Cold starts by function', [byFunction('cold', 'ColdStart', [])]),
    graph('Store calls (left) and latency, seconds (right)', [
      own('StoreCalls', 'Sum', 'calls'),
      right('StoreCallDuration', 'p50'),
      right('StoreCallDuration', 'p99'),
    ]),
    graph('KMS calls (left) and latency, seconds (right)', [
      own('KmsCalls', 'Sum', 'calls'),
      right('KmsCallDuration', 'p50'),
      right('KmsCallDuration', 'p99'),
    ]),
  ];
}

/** The alarms' states at the top, when there are alarms; `alarmNames` are Fn::Sub strings. */
function alarmWidget(alarmNames) {
  const arn = (name) => `arn:\${AWS::Partition}:cloudwatch:${REGION}:\${AWS::AccountId}:alarm:${name}`;
  return { type: 'alarm', properties: { title: 'Alarms', alarms: alarmNames.map(arn), sortBy: 'stateUpdatedTimestamp' } };
}

/** Two widgets a row, 12 of the grid's 24 columns each; the alarm list spans the first row. */
function layout(top, widgets) {
  const placed = top ? [{ ...top, x: 0, y: 0, width: 24, height: 4 }] : [];
  const y0 = top ? 4 : 0;
  widgets.forEach((w, i) => placed.push({ ...w, x: (i % 2) * 12, y: y0 + Math.floor(i / 2) * 6, width: 12, height: 6 }));
  return placed;
}

/** The body, as the Fn::Sub string; `functions` is infra/functions.cjs's map. */
function dashboardBody(functions, alarmNames = []) {
  const names = Object.keys(functions);
  const widgets = [...requestWidgets(), ...domainWidgets(), ...platformWidgets(names)];
  return JSON.stringify({ widgets: layout(alarmNames.length ? alarmWidget(alarmNames) : undefined, widgets) });
}

module.exports = { NAMESPACE, API, dashboardBody };
