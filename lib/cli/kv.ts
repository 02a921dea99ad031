/**
 * `latchkey kv get|put|patch|list|delete|undelete|destroy|metadata …`: the vault CLI's kv
 * commands, version 1 or 2 found by the preflight (kv-paths.ts). `-mount=M KEY` names the mount
 * apart from the key.
 */
import type { Envelope, Json } from '../client/client';
import { str, UsageError, type Parsed } from './args';
import { parseData } from './data-args';
import { fieldOf, formatOf, kvTable, printField, printSecret } from './format';
import { defineCommand, defineGroup, OUTPUT_FLAGS, OUTPUT_HELP, type Call } from './kit';
import { kvPath, kvPreflight, type KvMount } from './kv-paths';
import { printKeys } from './logical';
import { printAnswer } from './output';

const MOUNT_HELP = '  -mount=M         The KV mount (then the argument is the key within it).';
const KV_FLAGS = { ...OUTPUT_FLAGS, mount: 'string' } as const;

/** The path asked, with -mount, and the mount's version. */
async function target(c: Call): Promise<{ path: string; m: KvMount }> {
  const arg = c.p.args[0]!.replace(/^\/+/, '');
  const mount = str(c.p, 'mount').replace(/^\/+|\/+$/g, '');
  const path = mount ? `${mount}/${arg}` : arg;
  return { path, m: await kvPreflight(c.ctx().client, path) };
}

const versionsOf = (p: Parsed, required: boolean): number[] | undefined => {
  const v = str(p, 'versions');
  if (!v) {
    if (required) throw new UsageError('-versions is required (a comma list of version numbers)');
    return undefined;
  }
  const out = v.split(',').map((x) => Number(x.trim()));
  if (out.some((n) => !Number.isInteger(n) || n < 0)) throw new UsageError(`invalid -versions: ${v}`);
  return out;
};

const needV2 = (m: KvMount, what: string) => {
  if (m.version !== 2) throw new UsageError(`${what} needs a KV version 2 mount`);
};

/** Vault's kv table for version 2: the path, the metadata, then the data. */
function printKv(c: Call, e: Envelope, apiPath: string): number {
  const format = formatOf(str(c.p, 'format'), c.io.env);
  const inner = (e.data?.data ?? null) as Json | null;
  const field = str(c.p, 'field');
  if (field) {
    printField(c.io, fieldOf(e, field, inner ?? e.data), format);
    return 0;
  }
  if (format !== 'table') {
    printSecret(c.io, e, format === 'raw' ? 'json' : format);
    return 0;
  }
  const meta = (e.data?.metadata ?? null) as Json | null;
  let text = `== Secret Path ==\n${apiPath}\n`;
  if (meta) text += `\n======= Metadata =======\n${kvTable(Object.entries(meta).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
  if (inner) text += `\n====== Data ======\n${kvTable(Object.entries(inner))}`;
  c.io.stdout.write(text);
  return 0;
}

function one(
  summary: string,
  usage: string,
  flags: Record<string, 'string' | 'boolean' | 'strings'>,
  args: [number, number],
  run: (c: Call) => Promise<number>,
) {
  return defineCommand({ summary, help: `Usage: latchkey kv ${usage}\n${MOUNT_HELP}`, flags: { ...KV_FLAGS, ...flags }, args }, run);
}

const notFound = (c: Call, path: string) => {
  c.io.stderr.write(`No value found at ${path}\n`);
  return 1;
};

const get = one('Read a secret', `get [-version=N] [flags] PATH\n${OUTPUT_HELP}`, { version: 'string' }, [1, 1], async (c) => {
  const { path, m } = await target(c);
  const api = kvPath(m, path, 'data');
  const version = str(c.p, 'version');
  if (version && m.version === 1) throw new UsageError('-version needs a KV version 2 mount');
  const e = await c.ctx().client.read(api, version ? { version } : undefined);
  if (!e || (m.version === 2 && !e.data?.data)) return notFound(c, api);
  return m.version === 2 ? printKv(c, e, api) : printAnswer(c, e, '');
});

const put = one(
  'Write a secret (a new version)',
  `put [-cas=N] [flags] PATH k=v ...\n${OUTPUT_HELP}`,
  { cas: 'string' },
  [1, -1],
  async (c) => {
    const { path, m } = await target(c);
    const data = await parseData(c.p.args.slice(1), c.io);
    if (!Object.keys(data).length) throw new UsageError('must supply data');
    const api = kvPath(m, path, 'data');
    const cas = str(c.p, 'cas');
    if (cas && !/^-?\d+$/.test(cas)) throw new UsageError(`invalid -cas: ${cas}`);
    const body = m.version === 2 ? { data, ...(cas ? { options: { cas: Number(cas) } } : {}) } : data;
    const e = await c.ctx().client.write(api, body);
    if (!e) return printAnswer(c, e, `Success! Data written to: ${api}`);
    return m.version === 2 ? printKv(c, { ...e, data: { metadata: e.data } }, api) : printAnswer(c, e, '');
  },
);

const patch = one(
  'Patch a secret (a JSON merge patch, a new version)',
  `patch [-cas=N] [flags] PATH k=v ...\n${OUTPUT_HELP}`,
  { cas: 'string' },
  [1, -1],
  async (c) => {
    const { path, m } = await target(c);
    needV2(m, 'kv patch');
    const data = await parseData(c.p.args.slice(1), c.io);
    if (!Object.keys(data).length) throw new UsageError('must supply data');
    const cas = str(c.p, 'cas');
    if (cas && !/^-?\d+$/.test(cas)) throw new UsageError(`invalid -cas: ${cas}`);
    const api = kvPath(m, path, 'data');
    const e = await c.ctx().client.patch(api, { data, ...(cas ? { options: { cas: Number(cas) } } : {}) });
    if (!e) return printAnswer(c, e, `Success! Data written to: ${api}`);
    return printKv(c, { ...e, data: { metadata: e.data } }, api);
  },
);

const list = one('List the keys under a path', 'list [-format=F] PATH', {}, [1, 1], async (c) => {
  const { path, m } = await target(c);
  const api = kvPath(m, path, 'metadata');
  const keys = await c.ctx().client.list(api);
  return keys.length ? printKeys(c, keys) : notFound(c, api);
});

const remove = one('Delete the latest version, or -versions', 'delete [-versions=1,2] PATH', { versions: 'string' }, [1, 1], async (c) => {
  const { path, m } = await target(c);
  const versions = versionsOf(c.p, false);
  const { client } = c.ctx();
  if (versions) {
    needV2(m, 'kv delete -versions');
    await client.write(kvPath(m, path, 'delete'), { versions });
  } else await client.delete(kvPath(m, path, 'data'));
  c.io.stdout.write(`Success! Data deleted (if it existed) at: ${kvPath(m, path, 'data')}\n`);
  return 0;
});

const versioned = (verb: 'undelete' | 'destroy', summary: string) =>
  one(summary, `${verb} -versions=1,2 PATH`, { versions: 'string' }, [1, 1], async (c) => {
    const { path, m } = await target(c);
    needV2(m, `kv ${verb}`);
    const api = kvPath(m, path, verb);
    await c.ctx().client.request(verb === 'destroy' ? 'PUT' : 'POST', api, { body: { versions: versionsOf(c.p, true) }, idempotent: true });
    c.io.stdout.write(`Success! Data written to: ${api}\n`);
    return 0;
  });

const metaGet = one("Read a secret's metadata", `metadata get [flags] PATH\n${OUTPUT_HELP}`, {}, [1, 1], async (c) => {
  const { path, m } = await target(c);
  needV2(m, 'kv metadata');
  const api = kvPath(m, path, 'metadata');
  const e = await c.ctx().client.read(api);
  return e ? printAnswer(c, e, '') : notFound(c, api);
});

const metaPut = one(
  "Write a secret's metadata",
  'metadata put [-max-versions=N] [-cas-required=BOOL] [-delete-version-after=D] [-custom-metadata=k=v ...] PATH',
  { 'max-versions': 'string', 'cas-required': 'boolean', 'delete-version-after': 'string', 'custom-metadata': 'strings' },
  [1, 1],
  async (c) => {
    const { path, m } = await target(c);
    needV2(m, 'kv metadata');
    const body: Json = {};
    const max = str(c.p, 'max-versions');
    if (max) {
      if (!/^\d+$/.test(max)) throw new UsageError(`invalid -max-versions: ${max}`);
      body.max_versions = Number(max);
    }
    if (c.p.flags['cas-required'] !== undefined) body.cas_required = c.p.flags['cas-required'] === true;
    if (str(c.p, 'delete-version-after')) body.delete_version_after = str(c.p, 'delete-version-after');
    const custom = (c.p.flags['custom-metadata'] as string[] | undefined) ?? [];
    if (custom.length) body.custom_metadata = await parseData(custom, c.io);
    const api = kvPath(m, path, 'metadata');
    await c.ctx().client.write(api, body);
    c.io.stdout.write(`Success! Data written to: ${api}\n`);
    return 0;
  },
);

const metaDelete = one('Delete a secret: every version and its metadata', 'metadata delete PATH', {}, [1, 1], async (c) => {
  const { path, m } = await target(c);
  needV2(m, 'kv metadata');
  const api = kvPath(m, path, 'metadata');
  await c.ctx().client.delete(api);
  c.io.stdout.write(`Success! Data deleted (if it existed) at: ${api}\n`);
  return 0;
});

const metadata = defineGroup(
  'Read, write and delete metadata',
  { get: metaGet, put: metaPut, delete: metaDelete },
  'Usage: latchkey kv metadata <subcommand> [flags] PATH',
);

export const command = defineGroup(
  'The KV secrets engine (versions 1 and 2)',
  {
    get,
    put,
    patch,
    list,
    delete: remove,
    undelete: versioned('undelete', 'Undelete versions'),
    destroy: versioned('destroy', 'Destroy versions'),
    metadata,
  },
  'Usage: latchkey kv <subcommand> [flags] PATH',
);
