/**
 * A validator of CloudWatch Embedded Metric Format documents, written from the published
 * specification (Amazon CloudWatch User Guide, "Specification: Embedded metric format",
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html)
 * and the JSON schema it gives:
 * - the root is an object with an `_aws` Metadata object: `Timestamp`, an integer (ms since the
 *   epoch), and `CloudWatchMetrics`, an array of MetricDirectives;
 * - a MetricDirective has `Namespace` (a string; 1-255 characters, CloudWatch's limit on a
 *   namespace, stricter than the schema's 1024), `Dimensions` (an array of at least one
 *   DimensionSet) and `Metrics` (at most 100 MetricDefinitions), and nothing else;
 * - a DimensionSet is an array of at most 30 dimension keys (strings of 1-250 characters), MAY be
 *   empty; each key is a top-level member of the root whose value is a string of at most 1024
 *   characters (and at least 1: CloudWatch refuses an empty dimension value);
 * - a MetricDefinition has `Name` (1-1024 characters), an optional `Unit` from the schema's list
 *   and an optional integer `StorageResolution` (1 or 60), and nothing else; the name is a
 *   top-level member whose value is a number or an array of at most 100 numbers;
 * - a LogEvent is at most 1 MB (the limit the specification states; 256 KB in older revisions,
 *   which is what this checks).
 */
import { expect } from 'vitest';

/** The units of the specification's schema (`MetricUnit` pattern). */
export const EMF_UNITS = new Set([
  'Seconds',
  'Microseconds',
  'Milliseconds',
  'Bytes',
  'Kilobytes',
  'Megabytes',
  'Gigabytes',
  'Terabytes',
  'Bits',
  'Kilobits',
  'Megabits',
  'Gigabits',
  'Terabits',
  'Percent',
  'Count',
  'Bytes/Second',
  'Kilobytes/Second',
  'Megabytes/Second',
  'Gigabytes/Second',
  'Terabytes/Second',
  'Bits/Second',
  'Kilobits/Second',
  'Megabits/Second',
  'Gigabits/Second',
  'Terabits/Second',
  'Count/Second',
  'None',
]);

const MAX_EVENT_BYTES = 256 * 1024;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown, min: number, max: number): v is string => typeof v === 'string' && v.length >= min && v.length <= max;
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const extra = (o: Json, allowed: string[]) => Object.keys(o).filter((k) => !allowed.includes(k));

function dimensionSetViolations(root: Json, set: unknown, where: string): string[] {
  if (!Array.isArray(set)) return [`${where}: a DimensionSet must be an array`];
  const out: string[] = [];
  if (set.length > 30) out.push(`${where}: ${set.length} dimension keys (at most 30)`);
  for (const key of set) {
    if (!isString(key, 1, 250)) {
      out.push(`${where}: a dimension key must be a string of 1-250 characters`);
      continue;
    }
    const value = root[key];
    if (!isString(value, 1, 1024)) out.push(`${where}: dimension "${key}" must be a top-level string of 1-1024 characters`);
  }
  return out;
}

function metricViolations(root: Json, def: unknown, where: string): string[] {
  if (!isObject(def)) return [`${where}: a MetricDefinition must be an object`];
  const out = extra(def, ['Name', 'Unit', 'StorageResolution']).map((k) => `${where}: unknown member ${k}`);
  if (!isString(def.Name, 1, 1024)) return [...out, `${where}: Name must be a string of 1-1024 characters`];
  if (def.Unit !== undefined && !(typeof def.Unit === 'string' && EMF_UNITS.has(def.Unit)))
    out.push(`${where}: unit ${String(def.Unit)} is not one of the specification's`);
  if (def.StorageResolution !== undefined && def.StorageResolution !== 1 && def.StorageResolution !== 60)
    out.push(`${where}: StorageResolution must be 1 or 60`);
  const value = root[def.Name];
  const ok = isNumber(value) || (Array.isArray(value) && value.length <= 100 && value.every(isNumber));
  if (!ok) out.push(`${where}: metric "${def.Name}" must be a top-level number or an array of at most 100 numbers`);
  return out;
}

function directiveViolations(root: Json, d: unknown, where: string): string[] {
  if (!isObject(d)) return [`${where}: a MetricDirective must be an object`];
  const out = extra(d, ['Namespace', 'Dimensions', 'Metrics']).map((k) => `${where}: unknown member ${k}`);
  if (!isString(d.Namespace, 1, 255)) out.push(`${where}: Namespace must be a string of 1-255 characters`);
  if (!Array.isArray(d.Dimensions) || d.Dimensions.length === 0)
    out.push(`${where}: Dimensions must be a non-empty array of DimensionSets`);
  else d.Dimensions.forEach((s, i) => out.push(...dimensionSetViolations(root, s, `${where}.Dimensions[${i}]`)));
  if (!Array.isArray(d.Metrics)) out.push(`${where}: Metrics must be an array`);
  else {
    if (d.Metrics.length > 100) out.push(`${where}: ${d.Metrics.length} metrics (at most 100)`);
    d.Metrics.forEach((m, i) => out.push(...metricViolations(root, m, `${where}.Metrics[${i}]`)));
  }
  return out;
}

/** What makes `doc` (a parsed LogEvent message) an invalid EMF document; empty when it is valid. */
export function emfViolations(doc: unknown): string[] {
  if (!isObject(doc)) return ['the root must be a JSON object'];
  const aws = doc._aws;
  if (!isObject(aws)) return ['_aws must be an object'];
  const out = extra(aws, ['Timestamp', 'CloudWatchMetrics']).map((k) => `_aws: unknown member ${k}`);
  if (!Number.isInteger(aws.Timestamp) || (aws.Timestamp as number) < 0)
    out.push('_aws.Timestamp must be an integer of milliseconds since the epoch');
  if (!Array.isArray(aws.CloudWatchMetrics)) out.push('_aws.CloudWatchMetrics must be an array');
  else aws.CloudWatchMetrics.forEach((d, i) => out.push(...directiveViolations(doc, d, `CloudWatchMetrics[${i}]`)));
  return out;
}

/** The EMF documents among stdout's lines (JSON objects with `_aws`), each line checked to be whole JSON and not too long. */
export function emfLines(stdout: string): { line: string; doc: Json }[] {
  const out: { line: string; doc: Json }[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.includes('"_aws"')) continue;
    expect(Buffer.byteLength(line), 'an EMF log event of at most 256 KB').toBeLessThanOrEqual(MAX_EVENT_BYTES);
    out.push({ line, doc: JSON.parse(line) as Json });
  }
  return out;
}

/** Fails with every violation of every document. */
export function expectValidEmf(docs: unknown[]): void {
  const found = docs.flatMap((d, i) => emfViolations(d).map((v) => `document ${i}: ${v}`));
  expect(found).toEqual([]);
}
