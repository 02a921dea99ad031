/**
 * The deploy settings of infra/settings.json, checked once for every generator in infra/:
 * - api.throttle: the HTTP API stage's rate (requests per second, steady) and burst limits;
 * - api.access_log_retention_days: how long the JSON access log is kept;
 * - reserved_concurrency: { "<function>": n }, Lambda reserved concurrency per function (none by
 *   default: a fresh account's concurrency may be too small to reserve any);
 * - managed_keys: { "<name>": { "key_id": "<KMS key ARN>" } }, the asymmetric KMS keys the PKI
 *   functions may Sign with (MANAGED_KEYS for lib/pki/managed-keys.ts, and the only keys their
 *   roles may use kms:Sign and kms:GetPublicKey on).
 */
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;

function positiveInt(value, what, max) {
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new Error(`infra/settings.json: ${what} must be an integer from 0 to ${max}, not ${JSON.stringify(value)}`);
  return value;
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
  };
}

function readSettings(file = join(__dirname, 'settings.json')) {
  return parseSettings(JSON.parse(readFileSync(file, 'utf8')));
}

module.exports = { parseSettings, readSettings };
