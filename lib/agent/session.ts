/**
 * The agent's token. With `auth` in the configuration it logs in by that method (secrets read
 * from their files at each login, so a rotated secret id is picked up), again before the token
 * reaches four fifths of its lifetime, and again when a call answers 403 (an expired or revoked
 * token), then retries that call once. Without `auth` the token is the command line's
 * (LATCHKEY_TOKEN, VAULT_TOKEN or the token file); on a 403 the token file is read again.
 */
import { readFileSync } from 'node:fs';
import { ClientError, type Json, type LatchkeyClient } from '../client/client';
import { login } from '../cli/login';
import type { AuthConfig } from './config';
import type { AgentLog } from './log';

function readSecret(file: string, what: string): string {
  let v: string;
  try {
    v = readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new Error(`cannot read the ${what} file ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!v) throw new Error(`the ${what} file ${file} is empty`);
  return v;
}

/** The login's method, mount and fields, secrets read from their files. */
function loginOf(a: AuthConfig): { method: string; mount: string; fields: Json; secrets: string[] } {
  switch (a.method) {
    case 'approle': {
      const secretId = readSecret(a.secret_id_file, 'secret id');
      return { method: 'approle', mount: a.path ?? 'approle', fields: { role_id: a.role_id, secret_id: secretId }, secrets: [secretId] };
    }
    case 'jwt': {
      const jwt = readSecret(a.jwt_file, 'JWT');
      return { method: 'jwt', mount: a.path ?? 'jwt', fields: { role: a.role, jwt }, secrets: [jwt] };
    }
    case 'aws':
      return {
        method: 'aws',
        mount: a.path ?? 'aws',
        fields: { role: a.role, ...(a.region ? { region: a.region } : {}), ...(a.header_value ? { header_value: a.header_value } : {}) },
        secrets: [],
      };
    case 'token': {
      const token = readSecret(a.token_file, 'token');
      return { method: 'token', mount: 'token', fields: { token }, secrets: [token] };
    }
  }
}

export interface TokenSource {
  /** The command line's token now (the token file read again). */
  (): string | undefined;
}

export class Session {
  private expiresAt = Infinity;
  private obtainedAt = 0;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly client: LatchkeyClient,
    private readonly auth: AuthConfig | undefined,
    private readonly cliToken: TokenSource,
    private readonly log: AgentLog,
    private readonly now: () => number = Date.now,
  ) {
    log.secret(client.token);
  }

  private async login(reason: string): Promise<void> {
    if (!this.auth) {
      const t = this.cliToken();
      if (!t) throw new Error('no token: set LATCHKEY_TOKEN, run latchkey login, or add "auth" to the configuration');
      this.log.secret(t);
      if (t !== this.client.token) this.log.line('token', { reason, source: 'command line' });
      this.client.token = t;
      return;
    }
    const l = loginOf(this.auth);
    for (const s of l.secrets) this.log.secret(s);
    // The old token stays off the login request (it may be the expired or revoked one); a call
    // made meanwhile goes without one, gets a 403 and waits for this login.
    const old = this.client.token;
    this.client.token = undefined;
    let a;
    try {
      a = await login(this.client, l.method, l.mount, l.fields);
    } catch (e) {
      this.client.token ??= old;
      throw e;
    }
    this.log.secret(a.client_token);
    this.client.token = a.client_token;
    this.obtainedAt = this.now();
    this.expiresAt = a.lease_duration > 0 ? this.obtainedAt + a.lease_duration * 1000 : Infinity;
    this.log.line('login', { method: l.method, mount: l.mount, reason, policies: a.policies, ttl: a.lease_duration });
  }

  /** One login at a time, shared by every job that asks while it runs. */
  private relogin(reason: string): Promise<void> {
    this.pending ??= this.login(reason).finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Logs in if there is no token yet or it is near its end. */
  async ensure(): Promise<void> {
    if (!this.client.token) return this.relogin('start');
    const life = this.expiresAt - this.obtainedAt;
    if (this.auth && Number.isFinite(life) && this.now() >= this.obtainedAt + life * 0.8) return this.relogin('token expiring');
  }

  /** Runs a call with a token; on a 403, logs in again and retries it once. */
  async call<T>(fn: () => Promise<T>): Promise<T> {
    await this.ensure();
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof ClientError && e.status === 403)) throw e;
      const before = this.client.token;
      await this.relogin(`403: ${e.message.slice(0, 200)}`);
      if (!this.auth && this.client.token === before) throw e;
      return fn();
    }
  }
}
