/**
 * The agent's configuration file, JSON or YAML (the same shape): how it logs in (`auth`,
 * optional), the PKI certificates (`pki`) and SSH certificates (`ssh`) it keeps fresh. Every
 * key is checked: an unknown one is refused with its name (a misspelt `commnd` would otherwise
 * never run). Secrets are never in the file itself, only the names of files holding them.
 * Relative file names are taken from the configuration file's folder.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { parseDuration } from '../duration';

const required = { error: (i: { input?: unknown }) => (i.input === undefined ? 'is required' : 'must be a string') };
const name = z.string(required).trim().min(1, 'must not be empty');
const file = z.string(required).trim().min(1, 'must name a file');
/** A list as Vault takes it: "a,b" or ["a","b"]; kept as the comma-joined string sent on the wire. */
const list = z.union([z.string(), z.array(z.string())]).transform((v) =>
  (Array.isArray(v) ? v : v.split(','))
    .map((s) => s.trim())
    .filter(Boolean)
    .join(','),
);
const ttl = z
  .union([z.string(), z.number()])
  .refine((v) => (parseDuration(v) ?? 0) > 0, { message: 'must be a duration such as "24h", "90m" or seconds' });
const path = name.regex(/^[^/].*[^/]$|^[^/]$/, 'must not begin or end with "/"').optional();

const approle = z.strictObject({ method: z.literal('approle'), path, role_id: name, secret_id_file: file });
const jwt = z.strictObject({ method: z.literal('jwt'), path, role: name, jwt_file: file });
const aws = z.strictObject({ method: z.literal('aws'), path, role: name, region: name.optional(), header_value: name.optional() });
const token = z.strictObject({ method: z.literal('token'), token_file: file });
const auth = z.discriminatedUnion('method', [approle, jwt, aws, token], {
  error: (i) => (i.code === 'invalid_union' ? 'method must be one of approle, jwt, aws, token' : undefined),
});

const pki = z.strictObject({
  mount: name.default('pki'),
  role: name,
  common_name: name,
  alt_names: list.optional(),
  ip_sans: list.optional(),
  ttl: ttl.optional(),
  cert_file: file,
  key_file: file,
  chain_file: file.optional(),
  command: name.optional(),
});

const ssh = z.strictObject({
  mount: name.default('ssh'),
  role: name,
  public_key_file: file,
  cert_file: file,
  valid_principals: list.optional(),
  cert_type: z.enum(['user', 'host']).optional(),
  ttl: ttl.optional(),
  command: name.optional(),
});

const schema = z
  .strictObject({ auth: auth.optional(), pki: z.array(pki).default([]), ssh: z.array(ssh).default([]) })
  .refine((c) => c.pki.length + c.ssh.length > 0, { message: 'names no certificate to keep: add a "pki" or "ssh" entry' });

export type AgentConfig = z.infer<typeof schema>;
export type AuthConfig = NonNullable<AgentConfig['auth']>;
export type PkiEntry = AgentConfig['pki'][number];
export type SshEntry = AgentConfig['ssh'][number];

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** `pki[0].cert_file` from a zod path. */
function where(p: readonly PropertyKey[]): string {
  return p.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`)).join('');
}

function problemsOf(e: z.ZodError): string[] {
  return e.issues.map((i) => {
    const at = where(i.path);
    if (i.code === 'unrecognized_keys')
      return `${at ? `${at}: ` : ''}unknown key${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}`;
    return `${at || 'the configuration'}: ${i.message}`;
  });
}

/** Files named twice would be overwritten by two entries in turn. */
function duplicateFiles(c: AgentConfig): string[] {
  const seen = new Map<string, string>();
  const out: string[] = [];
  const entries: [string, string | undefined][] = [
    ...c.pki.flatMap((e, i): [string, string | undefined][] => [
      [`pki[${i}].cert_file`, e.cert_file],
      [`pki[${i}].key_file`, e.key_file],
      [`pki[${i}].chain_file`, e.chain_file],
    ]),
    ...c.ssh.map((e, i): [string, string] => [`ssh[${i}].cert_file`, e.cert_file]),
  ];
  for (const [at, f] of entries) {
    if (!f) continue;
    const other = seen.get(f);
    if (other) out.push(`${at}: ${f} is also ${other}`);
    else seen.set(f, at);
  }
  return out;
}

function absolute(c: AgentConfig, dir: string): AgentConfig {
  const abs = (f: string) => resolve(dir, f);
  const opt = (f: string | undefined) => (f === undefined ? undefined : abs(f));
  const a = c.auth;
  const authAbs =
    a?.method === 'approle'
      ? { ...a, secret_id_file: abs(a.secret_id_file) }
      : a?.method === 'jwt'
        ? { ...a, jwt_file: abs(a.jwt_file) }
        : a?.method === 'token'
          ? { ...a, token_file: abs(a.token_file) }
          : a;
  return {
    ...(authAbs ? { auth: authAbs } : {}),
    pki: c.pki.map((e) => ({ ...e, cert_file: abs(e.cert_file), key_file: abs(e.key_file), chain_file: opt(e.chain_file) })),
    ssh: c.ssh.map((e) => ({ ...e, public_key_file: abs(e.public_key_file), cert_file: abs(e.cert_file) })),
  };
}

/** Checks a parsed document; `dir` resolves relative file names. Throws ConfigError. */
export function checkConfig(doc: unknown, file: string, dir: string): AgentConfig {
  const r = schema.safeParse(doc);
  if (!r.success) throw new ConfigError(file, problemsOf(r.error));
  const c = absolute(r.data, dir);
  const dups = duplicateFiles(c);
  if (dups.length) throw new ConfigError(file, dups);
  return c;
}

/** Reads and checks a configuration file: JSON when it parses as JSON, else YAML. */
export function loadConfig(file: string): AgentConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(file, [`cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)})`]);
  }
  let doc: unknown;
  try {
    doc = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true });
  } catch (e) {
    throw new ConfigError(file, [`not JSON or YAML: ${(e as Error).message.split('\n')[0]}`]);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(file, ['must be an object (JSON or YAML)']);
  return checkConfig(doc, file, dirname(resolve(file)));
}
