/**
 * `latchkey agent -config=FILE`: keeps the configuration's certificates fresh until SIGTERM or
 * SIGINT (then exit 0, a "stopped" line). One loop per entry (renew.ts) over one client and one
 * login (session.ts); the service's address, TLS root and (without `auth`) token come from the
 * command line and environment as for every command (lib/cli/context.ts).
 */
import { parseArgs, str, UsageError } from '../cli/args';
import type { Command } from '../cli/command';
import { cliContext, readTokenFile } from '../cli/context';
import type { Io } from '../cli/io';
import { CONNECTION_HELP } from '../cli/kit';
import { ConfigError, loadConfig } from './config';
import { AgentLog } from './log';
import { pkiJob } from './pki';
import { DEFAULT_BACKOFF, keep, realClock, type Backoff, type Clock, type LoopDeps } from './renew';
import { Session } from './session';
import { sshJob } from './ssh';

const HELP = `
Usage: latchkey agent -config=FILE

  Keeps certificates fresh for a workload: issues each PKI certificate and signs each SSH key
  of the configuration (JSON or YAML), writes the files atomically (keys 0600), renews each at
  about two thirds of its lifetime, runs the entry's command after each renewal, backs off
  while the service is unreachable (the current files stay), logs in again when the token
  expires. One JSON line per action on standard output. Stops on SIGTERM or SIGINT.

  -config=FILE     The configuration (required).`;

export interface AgentOptions {
  /** Stops the agent (default: SIGTERM and SIGINT). */
  signal?: AbortSignal;
  clock?: Clock;
  random?: () => number;
  backoff?: Backoff;
}

export async function runAgent(argv: string[], io: Io, o: AgentOptions = {}): Promise<number> {
  const p = parseArgs(argv, { config: 'string' });
  if (p.flags.h || p.flags.help) {
    io.stdout.write(`${HELP.trim()}\n${CONNECTION_HELP}\n`);
    return 0;
  }
  if (p.args.length || p.rest.length) throw new UsageError(`agent takes no arguments, only -config=FILE; -h for usage`);
  const file = str(p, 'config');
  if (!file) throw new UsageError('agent needs -config=FILE; -h for usage');
  let config;
  try {
    config = loadConfig(file);
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(`configuration ${e.message}`);
    throw e;
  }
  const ctx = cliContext(io.env, { address: str(p, 'address'), caCert: str(p, 'ca-cert') });
  const clock = o.clock ?? realClock;
  const log = new AgentLog(io.stdout, clock.now);
  const fromCli = () => io.env.LATCHKEY_TOKEN || io.env.VAULT_TOKEN || readTokenFile(ctx.tokenFile);
  if (!config.auth && !ctx.token)
    throw new UsageError('no token: set LATCHKEY_TOKEN, run latchkey login, or add "auth" to the configuration');
  if (config.auth) ctx.client.token = undefined;
  const session = new Session(ctx.client, config.auth, fromCli, log, clock.now);

  const stop = new AbortController();
  const onSignal = (sig: string) => () => {
    if (!stop.signal.aborted) log.line('stopping', { signal: sig });
    stop.abort();
  };
  const handlers = o.signal ? [] : (['SIGTERM', 'SIGINT'] as const).map((s) => [s, onSignal(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  o.signal?.addEventListener('abort', onSignal('abort'), { once: true });
  if (o.signal?.aborted) stop.abort();

  const deps: LoopDeps = {
    client: ctx.client,
    session,
    log,
    clock,
    random: o.random ?? Math.random,
    backoff: o.backoff ?? DEFAULT_BACKOFF,
  };
  const jobs = [...config.pki.map(pkiJob), ...config.ssh.map(sshJob)];
  log.line('started', {
    config: file,
    address: ctx.address,
    auth: config.auth?.method ?? 'token from the command line',
    pki: config.pki.length,
    ssh: config.ssh.length,
  });
  try {
    await Promise.all(jobs.map((j) => keep(j, deps, stop.signal)));
  } finally {
    for (const [s, h] of handlers) process.off(s, h);
  }
  log.line('stopped', {});
  return 0;
}

export const command: Command = {
  summary: 'Keep certificates fresh for a workload (renewal agent)',
  run: (argv, io) => runAgent(argv, io),
};
