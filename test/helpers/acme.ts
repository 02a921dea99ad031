/**
 * A local Latchkey with its ACME server on, for the real-client tests (certbot, lego,
 * acme-client): the local service as a child process (functions/local.ts, what `npm start`
 * runs) with ACME_HTTP_PORT / ACME_TLS_PORT set to free high ports the clients listen on, the
 * DNS fake resolving the test names to 127.0.0.1 and serving the dns-01 records (config/acme
 * dns_resolver points at it), a root CA on `pki`, config/cluster's path, and a role `acme`
 * (names under acme.test, IP SANs) with its own directory. Also: runs a client binary, checks an
 * issued chain with openssl, reads the mount's CRL.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDnsFake, type DnsFake } from '../fakes/dns/server';
import { freePort, killChild, startLocalChild } from './local-child';
import { openssl, text, verifyChain, withFiles } from './openssl';

export const ZONE = 'acme.test';
/** The DNS fake's hook for certbot's --manual-*-hook and lego's EXEC_PATH. */
const DNS_HOOK_SOURCE = join(import.meta.dirname, '..', 'fakes', 'dns', 'hook.mjs');
/** The DNS fake's hook, as the clients run it: a copy in the service's tmp (`hook.mjs`), which `nobody` can reach even when the checkout is under a 0700 directory (mktemp -d). */
export const dnsHook = (svc: AcmeService) => join(svc.tmp, 'hook.mjs');

export interface AcmeService {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The mount's default ACME directory (sign-verbatim policy). */
  directory: string;
  /** The role `acme`'s ACME directory. */
  roleDirectory: string;
  dns: DnsFake;
  httpPort: number;
  tlsPort: number;
  /** The mount's CA certificate (PEM). */
  caPem: string;
  /** A temporary directory for the clients' state, removed by close(). */
  tmp: string;
  /** An authenticated call to the service's API (`path` under /v1/). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** Starts the service and sets up the mount; `names` resolve to 127.0.0.1 through the DNS fake. */
export async function startAcmeService(names: string[]): Promise<AcmeService> {
  const tmp = mkdtempSync(join(tmpdir(), 'acme-clients-'));
  chmodSync(tmp, 0o755);
  copyFileSync(DNS_HOOK_SOURCE, join(tmp, 'hook.mjs'));
  chmodSync(join(tmp, 'hook.mjs'), 0o755);
  const dns = await startDnsFake({ zones: [ZONE] });
  for (const n of names) dns.add(n, 'A', '127.0.0.1');
  const [port, httpPort, tlsPort] = [await freePort(), await freePort(), await freePort()];
  const dataDir = join(tmp, 'data');
  const child = await startLocalChild({ dataDir, port, env: { ACME_HTTP_PORT: String(httpPort), ACME_TLS_PORT: String(tlsPort) } });
  const url = `http://127.0.0.1:${port}`;
  const token = readFileSync(join(dataDir, 'root-token'), 'utf8').trim();
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/v1/${path}`, {
      method,
      headers: { 'x-vault-token': token },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const t = await res.text();
    return { status: res.status, body: (t ? JSON.parse(t) : {}) as Record<string, unknown> };
  };
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await api(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await must('POST', 'pki/root/generate/internal', { common_name: 'ACME Clients Root', key_type: 'ec', ttl: '8760h' });
  await must('POST', 'pki/roles/acme', {
    allowed_domains: ZONE,
    allow_subdomains: true,
    allow_wildcard_certificates: true,
    allow_ip_sans: true,
    key_type: 'any',
    max_ttl: '72h',
  });
  await must('POST', 'pki/config/cluster', { path: `${url}/v1/pki` });
  await must('POST', 'pki/config/acme', { enabled: true, dns_resolver: dns.address });
  const caPem = await (await fetch(`${url}/v1/pki/ca/pem`)).text();
  return {
    url,
    directory: `${url}/v1/pki/acme/directory`,
    roleDirectory: `${url}/v1/pki/roles/acme/acme/directory`,
    dns,
    httpPort,
    tlsPort,
    caPem,
    tmp,
    api,
    close: async () => {
      await Promise.all([killChild(child), dns.close()]);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * The user the client binaries run as: when the tests run as root, `nobody` — no client needs
 * root here (high ports, its own directories) and this shows it; otherwise the current user.
 */
const CLIENT_USER = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

/** A directory under the service's tmp that the client user owns (its config, work and log dirs go there). */
export function clientDir(svc: AcmeService, name: string): string {
  const dir = join(svc.tmp, name);
  mkdirSync(dir, { recursive: true });
  if (CLIENT_USER) chownSync(dir, CLIENT_USER.uid, CLIENT_USER.gid);
  return dir;
}

export interface ClientRun {
  code: number;
  output: string;
}

/**
 * Runs a client binary to its end as the client user, with HOME = `home` (never throws on a
 * non-zero exit: the caller checks `code` and shows `output`, stdout and stderr together).
 */
export function runClient(
  file: string,
  args: string[],
  home: string,
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<ClientRun> {
  return new Promise((resolve) => {
    const options = {
      env: { ...process.env, HOME: home, ...env },
      cwd: home,
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
      ...(CLIENT_USER ?? {}),
    };
    execFile(file, args, options, (e, stdout, stderr) => {
      const code = !e ? 0 : typeof e.code === 'number' ? e.code : -1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** The certificates of a PEM bundle, in order. */
export function pemBlocks(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
}

export interface Issued {
  /** openssl verify's verdict and output on the leaf against the CA, the bundle's rest as intermediates. */
  verify: { ok: boolean; out: string };
  /** subjectAltNames as openssl prints them ("DNS:a.acme.test", "IP Address:127.0.0.1"). */
  sans: string[];
  /** Upper-case hex, no colons or leading zeros. */
  serial: string;
}

/** Checks a chain as issued (leaf first, then its issuers) against the mount's CA with openssl. */
export function checkIssued(chainPem: string, caPem: string): Issued {
  const [leaf = '', ...rest] = pemBlocks(chainPem);
  const out = text(leaf);
  const san = /X509v3 Subject Alternative Name:[^\n]*\n\s*([^\n]+)/.exec(out)?.[1] ?? '';
  const serial = withFiles({ 'c.pem': leaf }, (p) => openssl(['x509', '-in', p('c.pem'), '-noout', '-serial']).out);
  return {
    verify: verifyChain(leaf, caPem, rest),
    sans: san
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .sort(),
    serial: normSerial(serial.replace(/^serial=/, '').trim()),
  };
}

export function normSerial(serial: string): string {
  return serial.replace(/[:-]/g, '').toUpperCase().replace(/^0+/, '');
}

/** The serial numbers on the mount's CRL (fetched fresh). */
export async function crlSerials(svc: AcmeService): Promise<Set<string>> {
  const crl = await (await fetch(`${svc.url}/v1/pki/crl/pem`)).text();
  return new Set([...text(crl, 'crl').matchAll(/Serial Number: ([0-9A-F]+)/g)].map((m) => normSerial(m[1]!)));
}
