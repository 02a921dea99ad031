/**
 * Where a command finds its service and token, as the vault CLI does: the address from
 * `-address`, LATCHKEY_ADDR or VAULT_ADDR (default http://127.0.0.1:8200); the token from
 * LATCHKEY_TOKEN or VAULT_TOKEN, else the token file `~/.latchkey-token`; a private TLS root
 * from `-ca-cert`, LATCHKEY_CACERT or VAULT_CACERT. Shared by every command and the agent.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LatchkeyClient } from '../client/client';
import { UsageError } from './args';

export type Env = Record<string, string | undefined>;

export interface CliFlags {
  address?: string;
  caCert?: string;
}

export interface CliContext {
  client: LatchkeyClient;
  address: string;
  /** Where `login` keeps the token (mode 0600). */
  tokenFile: string;
  /** The token in use, if any. */
  token?: string;
  /** The PEM text of the private root, if any. */
  caCert?: string;
}

export const DEFAULT_ADDRESS = 'http://127.0.0.1:8200';

export const tokenFileOf = (env: Env): string => join(env.HOME || homedir(), '.latchkey-token');

/** The token file's token, or undefined when there is none. */
export function readTokenFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Keeps a token in the token file, readable by its owner only. */
export function storeToken(file: string, token: string): void {
  writeFileSync(file, token, { mode: 0o600 });
  chmodSync(file, 0o600);
}

function readCaCert(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the CA certificate ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

export function cliContext(env: Env, flags: CliFlags = {}): CliContext {
  const address = flags.address || env.LATCHKEY_ADDR || env.VAULT_ADDR || DEFAULT_ADDRESS;
  try {
    const u = new URL(address);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new UsageError(`the address is not an http(s) URL: ${address}`);
  }
  const caFile = flags.caCert || env.LATCHKEY_CACERT || env.VAULT_CACERT;
  const caCert = caFile ? readCaCert(caFile) : undefined;
  const tokenFile = tokenFileOf(env);
  const token = env.LATCHKEY_TOKEN || env.VAULT_TOKEN || readTokenFile(tokenFile);
  const client = new LatchkeyClient({ address, ...(token ? { token } : {}), ...(caCert ? { caCert } : {}) });
  return { client, address, tokenFile, ...(token ? { token } : {}), ...(caCert ? { caCert } : {}) };
}
