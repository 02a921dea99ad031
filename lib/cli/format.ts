/**
 * Output as the vault CLI prints it: `table` (Key/Value columns, leases and token rows first,
 * then the data's keys in order, warnings after), `json` (the whole answer, indented two spaces),
 * `yaml`, and `-field=NAME` (the value alone: a string as it is, anything else as JSON; a newline
 * only on a terminal, so that `$(latchkey read -field=x …)` gets the value exactly).
 */
import { stringify as yamlStringify } from 'yaml';
import type { Envelope, Json } from '../client/client';
import { UsageError } from './args';
import type { Io } from './io';

export type Format = 'table' | 'json' | 'yaml' | 'raw';
export const FORMATS: Format[] = ['table', 'json', 'yaml', 'raw'];

export function formatOf(value: string | undefined, env: Record<string, string | undefined>): Format {
  const f = (value || env.LATCHKEY_FORMAT || env.VAULT_FORMAT || 'table').toLowerCase();
  if (!(FORMATS as string[]).includes(f)) throw new UsageError(`invalid output format: ${f} (table, json, yaml or raw)`);
  return f as Format;
}

/** A value in a table cell, as Go's %v prints it. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return 'n/a';
  if (Array.isArray(v)) return `[${v.map(cell).join(' ')}]`;
  if (typeof v === 'object')
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${cell((v as Json)[k])}`)
      .join(' ')}]`;
  return String(v);
}

/** Columns separated by four spaces, the last one unpadded. */
export function columns(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return (
    rows
      .map((r) =>
        r
          .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
          .join('    ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export const kvTable = (pairs: [string, unknown][]) =>
  columns([['Key', 'Value'], ['---', '-----'], ...pairs.map(([k, v]) => [k, cell(v)])]);

/** Seconds as the vault CLI shows a duration: Go's form with the zero tails cut (1h, 1h30m, 45s). */
export function humanDuration(seconds: number): string {
  if (!seconds) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const sec = seconds % 60;
  let out = `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${sec}s`;
  if (out.endsWith('m0s')) out = out.slice(0, -2);
  const i = out.indexOf('h0m');
  if (i > 0) out = out.slice(0, i + 1) + out.slice(i + 3);
  return out;
}

/** The rows of an answer: lease, token, then data. */
export function secretRows(e: Envelope): [string, unknown][] {
  const rows: [string, unknown][] = [];
  if (e.lease_duration > 0) {
    if (e.lease_id)
      rows.push(['lease_id', e.lease_id], ['lease_duration', humanDuration(e.lease_duration)], ['lease_renewable', e.renewable]);
    else rows.push(['refresh_interval', humanDuration(e.lease_duration)]);
  }
  if (e.auth) {
    const a = e.auth;
    rows.push(
      ['token', a.client_token],
      ['token_accessor', a.accessor],
      ['token_duration', a.lease_duration ? humanDuration(a.lease_duration) : '∞'],
      ['token_renewable', a.renewable],
      ['token_policies', a.token_policies ?? a.policies],
      ['policies', a.policies],
    );
    for (const [k, v] of Object.entries(a.metadata ?? {})) rows.push([`token_meta_${k}`, v]);
  }
  for (const [k, v] of Object.entries(e.data ?? {})) rows.push([k, v]);
  return rows;
}

function warnings(e: Envelope): string {
  if (!e.warnings?.length) return '';
  return `\nWARNING! The following warnings were returned from Latchkey:\n\n${e.warnings.map((w) => `  * ${w}\n`).join('\n')}`;
}

/** JSON as the vault CLI prints it: indented two spaces, a final newline. */
export const jsonText = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

export function printValue(io: Io, v: unknown, format: Format): void {
  if (format === 'json') io.stdout.write(jsonText(v));
  else if (format === 'yaml') io.stdout.write(yamlStringify(v));
  else io.stdout.write(typeof v === 'string' ? v : JSON.stringify(v));
}

/** The whole answer in the format asked. */
export function printSecret(io: Io, e: Envelope, format: Format): void {
  if (format === 'json' || format === 'yaml') return printValue(io, e, format);
  io.stdout.write(kvTable(secretRows(e)) + warnings(e));
}

/** A field of the answer: the data's, else the token's (token, token_accessor, …). */
export function fieldOf(e: Envelope, name: string, data: Json | undefined = e.data): unknown {
  if (data && Object.hasOwn(data, name)) return data[name];
  const row = secretRows({ ...e, data: {} as Json }).find(([k]) => k === name);
  if (row) return row[1];
  throw new UsageError(`field "${name}" not present in secret`);
}

/** `-field=NAME`: the value alone; a newline only when stdout is a terminal. */
export function printField(io: Io, v: unknown, format: Format): void {
  if (format === 'json' || format === 'yaml') printValue(io, v, format);
  else io.stdout.write(typeof v === 'string' ? v : JSON.stringify(v));
  if (io.stdout.isTTY && format !== 'json') io.stdout.write('\n');
}
