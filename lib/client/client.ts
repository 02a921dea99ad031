/**
 * The Latchkey client: the one HTTP client of the project (the CLI, the renewal agent, the test
 * helpers and the benchmarks use it). Vault's conventions on the wire: `/v1/<path>`, the token in
 * X-Vault-Token, JSON bodies, the envelope `{data, auth, warnings, lease_id, …}`, errors as
 * `{"errors": [...]}`, LIST as `GET ?list=true` (API Gateway routes no LIST verb).
 *
 * Idempotent calls (GET, LIST, DELETE, PUT on request) are retried on a network error or a 5xx
 * (but 501, "not initialised") with exponential back-off and jitter; a write (POST, PATCH) is
 * sent once, as its second sending might act twice.
 */
import { httpTransport, type Transport, type TransportReply } from './transport';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export interface Auth {
  client_token: string;
  accessor: string;
  policies: string[];
  token_policies?: string[];
  lease_duration: number;
  renewable: boolean;
  metadata?: Record<string, string> | null;
}

export interface Envelope<T = Json> {
  request_id?: string;
  lease_id: string;
  renewable: boolean;
  lease_duration: number;
  data: T;
  warnings: string[] | null;
  auth: Auth | null;
  wrap_info?: Json | null;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The body as text. */
  text: string;
  /** The body as JSON, when it is JSON. */
  json?: Json;
}

/** An answer of 400 or more: the status and the server's messages. */
export class ClientError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly errors: string[],
    readonly reply?: Reply,
  ) {
    super(errors.length ? errors.join('; ') : `${method} ${path}: ${status}`);
    this.name = 'ClientError';
  }
}

export interface ClientOptions {
  /** The service's address, e.g. `http://127.0.0.1:8200` (no `/v1`). */
  address: string;
  token?: string;
  /** How requests travel (default: HTTP with keep-alive, trusting `caCert`). */
  transport?: Transport;
  /** A PEM root to trust beside the system's (the default transport only). */
  caCert?: string;
  /** Tries of an idempotent call beyond the first (default 2). */
  retries?: number;
  /** The first back-off in ms, doubled each try, with jitter (default 250). */
  backoffMs?: number;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body. */
  body?: unknown;
  /** A body sent as it is (with its content type in `headers`). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Retry this call on a network error or a 5xx (default: by method; GET, LIST, DELETE yes). */
  idempotent?: boolean;
  /** Answer the reply whatever its status, instead of throwing ClientError on >= 400. */
  anyStatus?: boolean;
}

/** The error of an answer of 400 or more: its `errors`, else its text. */
function errorOf(method: string, path: string, r: Reply): ClientError {
  const errors = Array.isArray(r.json?.errors) ? (r.json.errors as unknown[]).map(String) : [];
  return new ClientError(method, path, r.status, errors.length ? errors : r.text ? [r.text.slice(0, 500)] : [], r);
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'DELETE', 'LIST']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `a/b c` → `a/b%20c`: each segment escaped, the slashes kept. */
export const escapePath = (path: string) =>
  path
    .replace(/^\/+/, '')
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');

/** A transport reply read: its text, and its JSON when the text is JSON. */
export function parseReply(r: TransportReply): Reply {
  const text = r.body.toString('utf8');
  let json: Json | undefined;
  try {
    // Any JSON value (Consul's `status/leader` answers a string); typed as the envelope's object.
    json = text ? (JSON.parse(text) as Json) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, body: r.body, text, ...(json !== undefined ? { json } : {}) };
}

export class LatchkeyClient {
  token: string | undefined;
  readonly address: string;
  private readonly transport: Transport;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(o: ClientOptions) {
    this.address = o.address.replace(/\/+$/, '');
    this.token = o.token;
    this.transport = o.transport ?? httpTransport(o.caCert ? { caCert: o.caCert } : {});
    this.retries = o.retries ?? 2;
    this.backoffMs = o.backoffMs ?? 250;
  }

  /** One call to `/v1/<path>`: the reply, or ClientError for a status of 400 or more. */
  async request(method: string, path: string, o: RequestOptions = {}): Promise<Reply> {
    const list = method === 'LIST';
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) query.set(k, String(v));
    if (list) query.set('list', 'true');
    const qs = query.toString();
    const url = `${this.address}/v1/${escapePath(path)}${qs ? `?${qs}` : ''}`;
    const headers: Record<string, string> = { ...(this.token ? { 'x-vault-token': this.token } : {}), ...(o.headers ?? {}) };
    let body = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const wire = list ? 'GET' : method;
    const retry = o.idempotent ?? IDEMPOTENT.has(method);
    for (let attempt = 0; ; attempt++) {
      let reply: Reply | undefined;
      try {
        reply = parseReply(await this.transport({ method: wire, url, headers, ...(body !== undefined ? { body } : {}) }));
      } catch (e) {
        if (!retry || attempt >= this.retries) throw e;
      }
      if (reply && (!retry || reply.status < 500 || reply.status === 501 || attempt >= this.retries)) {
        if (reply.status >= 400 && !o.anyStatus) throw errorOf(method, path, reply);
        return reply;
      }
      await sleep(this.backoffMs * 2 ** attempt * (0.5 + Math.random()));
    }
  }

  private async envelope<T>(method: string, path: string, o: RequestOptions): Promise<Envelope<T> | undefined> {
    const r = await this.request(method, path, o);
    return r.status === 204 || !r.json ? undefined : (r.json as Envelope<T>);
  }

  /**
   * GET. A 404 is no error, as in Vault's Go client: undefined, or the envelope when it carries
   * data or warnings (a KV version 2 version deleted: its metadata).
   */
  async read<T = Json>(path: string, query?: RequestOptions['query']): Promise<Envelope<T> | undefined> {
    const r = await this.request('GET', path, { ...(query ? { query } : {}), anyStatus: true });
    if (r.status === 404) return r.json && (r.json.data || r.json.warnings) ? (r.json as Envelope<T>) : undefined;
    if (r.status >= 400) throw errorOf('GET', path, r);
    return r.status === 204 || !r.json ? undefined : (r.json as Envelope<T>);
  }

  /** LIST (as `GET ?list=true`): the keys, or [] for a 404 (nothing there). */
  async list(path: string): Promise<string[]> {
    try {
      const e = await this.envelope<{ keys?: string[] }>('LIST', path, {});
      return e?.data?.keys ?? (e as unknown as { keys?: string[] } | undefined)?.keys ?? [];
    } catch (err) {
      if (err instanceof ClientError && err.status === 404) return [];
      throw err;
    }
  }

  /** POST a JSON body; undefined for a 204. */
  write<T = Json>(path: string, body: Json = {}, o: Omit<RequestOptions, 'body'> = {}): Promise<Envelope<T> | undefined> {
    return this.envelope<T>('POST', path, { ...o, body });
  }

  /** PATCH with a JSON merge patch. */
  patch<T = Json>(path: string, body: Json): Promise<Envelope<T> | undefined> {
    return this.envelope<T>('PATCH', path, { body, headers: { 'content-type': 'application/merge-patch+json' } });
  }

  delete<T = Json>(path: string, query?: RequestOptions['query']): Promise<Envelope<T> | undefined> {
    return this.envelope<T>('DELETE', path, query ? { query } : {});
  }

  /**
   * A login: `auth/<mount>/login` with the method's fields (approle: role_id, secret_id; jwt:
   * role, jwt; aws: the signed request of aws-login.ts). Answers the auth; the token is not kept.
   */
  async login(mount: string, fields: Json): Promise<Auth> {
    const e = await this.write(`auth/${mount}/login`, fields);
    if (!e?.auth?.client_token) throw new ClientError('POST', `auth/${mount}/login`, 200, ['the login answered no token']);
    return e.auth;
  }
}
