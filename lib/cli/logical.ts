/**
 * `read`, `write`, `list`, `delete`, `patch PATH [k=v …]`: the generic calls on any path, as the
 * vault CLI makes them (read's and delete's k=v as query parameters, write's and patch's as the
 * JSON body; `-format=raw` on read prints the body exactly as served, e.g. a PEM).
 */
import { ClientError } from '../client/client';
import { bool, str, UsageError } from './args';
import { parseData } from './data-args';
import { formatOf, jsonText, printValue } from './format';
import { defineCommand, OUTPUT_FLAGS, OUTPUT_HELP, type Call } from './kit';
import { printAnswer } from './output';

const query = (d: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));

function notFound(c: Call, path: string): number {
  c.io.stderr.write(`No value found at ${path}\n`);
  return 1;
}

export const read = defineCommand(
  {
    summary: 'Read data at a path',
    help: `Usage: latchkey read [flags] PATH [k=v ...]\n\nReads the data at PATH; k=v pairs are sent as query parameters.\n${OUTPUT_HELP}`,
    flags: OUTPUT_FLAGS,
    args: [1, -1],
  },
  async (c) => {
    const [path, ...kv] = c.p.args as [string, ...string[]];
    const q = query(await parseData(kv, c.io));
    if (formatOf(str(c.p, 'format'), c.io.env) === 'raw' && !str(c.p, 'field')) {
      const r = await c.ctx().client.request('GET', path, { query: q, anyStatus: true });
      if (r.status === 404 && !r.text.trim().startsWith('{')) return notFound(c, path);
      if (r.status >= 400) throw new ClientError('GET', path, r.status, Array.isArray(r.json?.errors) ? r.json.errors : [r.text], r);
      c.io.stdout.write(r.body);
      return 0;
    }
    const e = await c.ctx().client.read(path, q);
    if (!e) return notFound(c, path);
    return printAnswer(c, e, '');
  },
);

export const write = defineCommand(
  {
    summary: 'Write data to a path',
    help: `Usage: latchkey write [flags] PATH [k=v ...]\n\nWrites k=v pairs (k=@file reads a file, k=- stdin, @file or - a JSON object) to PATH.\n  -force, -f       Write even with no data.\n${OUTPUT_HELP}`,
    flags: { ...OUTPUT_FLAGS, force: 'boolean', f: 'boolean' },
    args: [1, -1],
  },
  async (c) => {
    const [path, ...kv] = c.p.args as [string, ...string[]];
    const data = await parseData(kv, c.io);
    if (!Object.keys(data).length && !bool(c.p, 'force') && !bool(c.p, 'f')) throw new UsageError('must supply data or use -force');
    return printAnswer(c, await c.ctx().client.write(path, data), `Success! Data written to: ${path}`);
  },
);

export const patch = defineCommand(
  {
    summary: 'Patch data at a path (a JSON merge patch)',
    help: `Usage: latchkey patch [flags] PATH [k=v ...]\n\nSends k=v pairs to PATH as a JSON merge patch.\n${OUTPUT_HELP}`,
    flags: OUTPUT_FLAGS,
    args: [1, -1],
  },
  async (c) => {
    const [path, ...kv] = c.p.args as [string, ...string[]];
    const data = await parseData(kv, c.io);
    if (!Object.keys(data).length) throw new UsageError('must supply data to patch');
    return printAnswer(c, await c.ctx().client.patch(path, data), `Success! Data written to: ${path}`);
  },
);

export const remove = defineCommand(
  {
    summary: 'Delete data at a path',
    help: `Usage: latchkey delete [flags] PATH [k=v ...]\n\nDeletes the data at PATH; k=v pairs are sent as query parameters.`,
    flags: {},
    args: [1, -1],
  },
  async (c) => {
    const [path, ...kv] = c.p.args as [string, ...string[]];
    const e = await c.ctx().client.delete(path, query(await parseData(kv, c.io)));
    if (e?.warnings?.length) for (const w of e.warnings) c.io.stderr.write(`WARNING: ${w}\n`);
    c.io.stdout.write(`Success! Data deleted (if it existed) at: ${path}\n`);
    return 0;
  },
);

/** Keys as the vault CLI lists them: a Keys column, or the keys array alone in json/yaml. */
export function printKeys(c: Call, keys: string[]): number {
  const format = formatOf(str(c.p, 'format'), c.io.env);
  if (format === 'json') c.io.stdout.write(jsonText(keys));
  else if (format === 'yaml') printValue(c.io, keys, 'yaml');
  else c.io.stdout.write(['Keys', '----', ...keys].join('\n') + '\n');
  return 0;
}

export const list = defineCommand(
  {
    summary: 'List the keys under a path',
    help: `Usage: latchkey list [flags] PATH\n\nLists the keys under PATH (a GET with ?list=true).\n  -format=F        table (default), json or yaml.`,
    flags: { format: 'string' },
    args: [1, 1],
  },
  async (c) => {
    const path = c.p.args[0]!;
    const r = await c.ctx().client.request('LIST', path, { anyStatus: true });
    const keys = r.json?.data?.keys as string[] | undefined;
    if (r.status === 404 && !keys) return notFound(c, path);
    if (r.status >= 400) throw new ClientError('LIST', path, r.status, Array.isArray(r.json?.errors) ? r.json.errors : [r.text], r);
    if (!keys?.length) return notFound(c, path);
    return printKeys(c, keys);
  },
);
