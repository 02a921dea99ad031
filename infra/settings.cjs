/**
 * The deploy settings of infra/settings.json, checked once for every generator in infra/:
 * - api.throttle: the HTTP API stage's rate (requests per second, steady) and burst limits;
 * - api.access_log_retention_days: how long the JSON access log is kept;
 * - reserved_concurrency: { "<function>": n }, Lambda reserved concurrency per function (none by
 *   default: a fresh account's concurrency may be too small to reserve any);
 * - managed_keys: { "<name>": { "key_id": "<KMS key ARN>" } }, the asymmetric KMS keys the PKI
 *   functions may Sign with (MANAGED_KEYS for lib/pki/managed-keys.ts, and the only keys their
 *   roles may use kms:Sign and kms:GetPublicKey on).
 * - observability (infra/observability.cjs), each on unless set otherwise:
 *   - alarms: true | false, the CloudWatch alarms (5xx rate, function errors, throttles and
 *     duration near the timeout, audit write failures, job failures, lease revocation failures,
 *     overdue CRLs) and the SNS topic they notify; false: none of them;
 *   - alarm_topic_arn: "" (a topic is created, named <stack>-alarms) or the ARN of an existing SNS
 *     topic the alarms notify instead (then none is created);
 *   - api_5xx_percent: the share of the HTTP API's requests answering 5xx, in percent, above which
 *     the 5xx alarm fires (default 5);
 *   - dashboard: true | false, the CloudWatch dashboard named after the stack.
 */
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
const OBSERVABILITY = ['alarms', 'dashboard', 'alarm_topic_arn', 'api_5xx_percent'];

function positiveInt(value, what, max) {
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new Error(`infra/settings.json: ${what} must be an integer from 0 to ${max}, not ${JSON.stringify(value)}`);
  return value;
}

function flag(value, what) {
  if (typeof value !== 'boolean') throw new Error(`infra/settings.json: ${what} must be true or false, not ${JSON.stringify(value)}`);
  return value;
}

/** The observability switches; an unknown key is refused, so a misspelt switch cannot leave a default in place unnoticed. */
function parseObservability(raw = {}) {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error('infra/settings.json: observability must be an object');
  for (const k of Object.keys(raw)) {
    if (!OBSERVABILITY.includes(k))
      throw new Error(`infra/settings.json: observability.${k} is not a setting (known: ${OBSERVABILITY.join(', ')})`);
  }
  const alarms = flag(raw.alarms ?? true, 'observability.alarms');
  const topic = raw.alarm_topic_arn ?? '';
  if (topic !== '' && !(typeof topic === 'string' && TOPIC_ARN.test(topic)))
    throw new Error(`infra/settings.json: observability.alarm_topic_arn must be "" or an SNS topic ARN, not ${JSON.stringify(topic)}`);
  if (topic && !alarms) throw new Error('infra/settings.json: observability.alarm_topic_arn is set but observability.alarms is false');
  const percent = raw.api_5xx_percent ?? 5;
  if (typeof percent !== 'number' || !(percent > 0 && percent <= 100))
    throw new Error(
      `infra/settings.json: observability.api_5xx_percent must be a number above 0 and at most 100, not ${JSON.stringify(percent)}`,
    );
  return { alarms, dashboard: flag(raw.dashboard ?? true, 'observability.dashboard'), alarmTopicArn: topic, api5xxPercent: percent };
}

function parseSettings(raw) {
  const api = raw.api ?? {};
  const throttle = api.throttle ?? {};
  const reserved = raw.reserved_concurrency ?? {};
  const managed = raw.managed_keys ?? {};
  for (const [fn, n] of Object.entries(reserved)) positiveInt(n, `reserved_concurrency.${fn}`, 10000);
  for (const [name, k] of Object.entries(managed)) {
    if (!/^[\w.-]{1,64}$/.test(name)) throw new Error(`infra/settings.json: managed key name ${JSON.stringify(name)} is not a name`);
    if (!KEY_ARN.test(k?.key_id ?? ''))
      throw new Error(`infra/settings.json: managed_keys.${name}.key_id must be a KMS key ARN (IAM grants need the ARN)`);
  }
  return {
    throttle: {
      rateLimit: positiveInt(throttle.rate_limit ?? 50, 'api.throttle.rate_limit', 100000),
      burstLimit: positiveInt(throttle.burst_limit ?? 100, 'api.throttle.burst_limit', 100000),
    },
    accessLogRetentionDays: positiveInt(api.access_log_retention_days ?? 30, 'api.access_log_retention_days', 3653),
    reservedConcurrency: reserved,
    managedKeys: managed,
    observability: parseObservability(raw.observability),
  };
}

function readSettings(file = join(__dirname, 'settings.json')) {
  return parseSettings(JSON.parse(readFileSync(file, 'utf8')));
}

module.exports = { parseSettings, readSettings };
