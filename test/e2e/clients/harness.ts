/**
 * A local Latchkey for client-library tests: sys plus the given engines behind `listen()` (the
 * local server's front, so LIST works on the wire), a PKI root and a role whose certificates carry
 * leases, and a runner for the python3-hvac scenario scripts in this directory.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import type { EngineModule } from '../../../lib/engines';
import { listen, type Served } from '../../../lib/local/http-server';
import { pkiEngine } from '../../../lib/pki/engine';
import { text } from '../../helpers/openssl';
import { call, createTestService, type TestService } from '../../helpers/service';

export interface ClientService {
  svc: TestService;
  server: Served;
  url: string;
  root: string;
}

/** A policy document allowing the leased-certificate role, for non-root tokens in the scenarios. */
export const ISSUER_POLICY = { path: { 'pki/issue/leased': { capabilities: ['create', 'update'] } } };

/** Lets a token make child tokens (no sudo). */
export const MAKER_POLICY = { path: { 'auth/token/create': { capabilities: ['update'] } } };

async function must(svc: TestService, method: string, path: string, body: unknown): Promise<void> {
  const r = await call(svc.app, method, path, { token: svc.root, body });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
}

/** A PKI root on `pki` and the role `leased` (generate_lease) under example.com. */
export async function setUpLeasedPki(svc: TestService): Promise<void> {
  await must(svc, 'POST', '/v1/pki/root/generate/internal', { common_name: 'Clients Root', ttl: '8760h', key_type: 'ec' });
  await must(svc, 'POST', '/v1/pki/roles/leased', {
    allowed_domains: 'example.com',
    allow_subdomains: true,
    generate_lease: true,
    key_type: 'ec',
    max_ttl: '2h',
  });
  await must(svc, 'PUT', '/v1/sys/policy/issuer', { policy: JSON.stringify(ISSUER_POLICY) });
  await must(svc, 'PUT', '/v1/sys/policy/maker', { policy: JSON.stringify(MAKER_POLICY) });
}

export async function startClientService(engines: EngineModule[] = [pkiEngine]): Promise<ClientService> {
  const svc = await createTestService({ engines });
  if (engines.includes(pkiEngine)) await setUpLeasedPki(svc);
  const server = await listen(svc.app.fetch, { port: 0 });
  return { svc, server, url: server.url, root: svc.root };
}

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Runs `python3 <script> <scenario>` against the service; the script prints one JSON object. */
export async function runHvac(cs: ClientService, script: string, scenario: string): Promise<Json> {
  try {
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [join(import.meta.dirname, script), scenario], {
      env: {
        ...process.env,
        LATCHKEY_ADDR: cs.url,
        LATCHKEY_TOKEN: cs.root,
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONWARNINGS: 'ignore::DeprecationWarning',
      },
      timeout: 55_000,
    });
    return JSON.parse(stdout) as Json;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`${script} ${scenario} failed: ${err.stderr || err.message}`);
  }
}

/** Runs each scenario once, however many tests read its outcome. */
export function memo(run: (scenario: string) => Promise<Json>): (scenario: string) => Promise<Json> {
  const seen = new Map<string, Promise<Json>>();
  return (scenario) => {
    if (!seen.has(scenario)) seen.set(scenario, run(scenario));
    return seen.get(scenario)!;
  };
}

/** Serial numbers (upper-case hex, no colons, no leading zeros) on the CRL of `mount`. */
export async function crlSerials(cs: ClientService, mount = 'pki'): Promise<Set<string>> {
  const res = await fetch(`${cs.url}/v1/${mount}/crl/pem`);
  const out = text(await res.text(), 'crl');
  return new Set([...out.matchAll(/Serial Number: ([0-9A-F]+)/g)].map((m) => normSerial(m[1]!)));
}

export function normSerial(serial: string): string {
  return serial.replace(/[:-]/g, '').toUpperCase().replace(/^0+/, '');
}

/** What a rejected node-vault call carries: its status and first message, or 'resolved'. */
export async function failure(p: Promise<unknown>): Promise<{ status: number; message: string } | 'resolved'> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    const err = e as { message: string; response?: { statusCode: number } };
    return { status: err.response?.statusCode ?? 0, message: err.message };
  }
}
