/**
 * KV version 2's `data/<path>`: read a version (`?version=`), write a new one (`options.cas`),
 * patch the current one (JSON merge patch), soft-delete the current one.
 */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Result } from '../../http/path';
import type { VersionRead } from '../secrets';
import { kvSecrets, secretExists } from './common';
import { storing, versionMeta } from './shapes';
import { CONFIG_KEY, KvStore, secretKey } from '../kv-store';

const fields = {
  path: f.pathParam({ description: 'the secret' }),
  version: f.int({ min: 0, description: 'the version to read (default: the current one)' }),
  data: f.any({ description: 'the secret data: an object' }),
  options: f.any({ description: 'write options: {"cas": <the current version, 0 for a new secret>}' }),
};

/** A read's answer: the data and its version's metadata, or (deleted, destroyed) the metadata with a 404 as Vault answers. */
function readAnswer(r: VersionRead): Result {
  const metadata = versionMeta(r.version, r.meta, r.secret);
  return r.kind === 'data' ? { data: { data: r.data, metadata } } : { data: { data: null, metadata }, status: 404 };
}

function objectOf(v: unknown, what: string): Record<string, unknown> {
  if (v === undefined || v === null) throw new BadRequest('no data provided');
  if (typeof v !== 'object' || Array.isArray(v)) throw new BadRequest(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

/** options.cas, as Vault reads it (a number or a numeric string); undefined when not given. */
export function casOf(options: unknown): number | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object' || Array.isArray(options)) throw new BadRequest('options must be a JSON object');
  const cas = (options as Record<string, unknown>).cas;
  if (cas === undefined || cas === null) return undefined;
  // Any integer parses (a negative one matches no version, as in Vault); anything else is refused.
  const n = typeof cas === 'number' ? cas : typeof cas === 'string' && /^\s*-?\d+\s*$/.test(cas) ? Number(cas) : NaN;
  if (!Number.isSafeInteger(n)) throw new BadRequest('error parsing check-and-set parameter');
  return n;
}

export const dataPaths = [
  definePath({
    pattern: 'data/*path',
    fields,
    help: 'Read a version of a secret, write a new version (check-and-set with options.cas), patch the current version, or soft-delete it.',
    exists: secretExists,
    // A read needs the secret's record; a write the mount's config too, unless this process
    // knows it (the record comes with the existence check, or from this process's last write).
    readAhead: (params, op, at) => {
      if (op === 'read') return [secretKey(params.path ?? '')];
      return (op === 'write' || op === 'patch') && !new KvStore(at.deps, at.part).knowsConfig() ? [CONFIG_KEY] : [];
    },
    operations: {
      read: async (req) => {
        const r = await kvSecrets(req).read(req.data.path, req.data.version ?? 0);
        if (!r) throw new NotFound();
        return readAnswer(r);
      },
      write: async (req) => {
        const data = objectOf(req.data.data, 'data');
        const w = await storing(() => kvSecrets(req).write(req.data.path, data, casOf(req.data.options)));
        return { data: versionMeta(w.version, w.meta, w.secret) };
      },
      patch: async (req) => {
        const data = objectOf(req.data.data, 'data');
        const w = await storing(() => kvSecrets(req).patch(req.data.path, data, casOf(req.data.options)));
        return { data: versionMeta(w.version, w.meta, w.secret) };
      },
      delete: async (req) => {
        await kvSecrets(req).deleteLatest(req.data.path);
      },
    },
  }),
];
