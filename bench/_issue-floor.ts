/**
 * What an HTTP `issue` (EC P-256, no_store) cannot cost less than on one Node thread, for
 * bench/local-store.ts's comparison with cfssl (issue 18), each as CPU time per request:
 *  - the crypto: a fresh P-256 key (ECDH generation, as lib/pki/public-key.ts makes it) and one
 *    ECDSA P-256 signature with the CA's key, in this process;
 *  - the engine: issueLeaf + certificateData (names, template, DER, the crypto, PEM) called
 *    directly on an in-process local service, no HTTP, no auth;
 *  - the HTTP stack: a server in its own process on the local listener (lib/local/http-server.ts, the
 *    Hono node adaptor) that reads each request's body and answers the bytes of a real issue
 *    answer, and does nothing else (startFloorServer('canned'); this file with `--serve`);
 *  - both together: the same server running the engine on each request's common_name and
 *    answering its data as JSON (startFloorServer('engine')): a request with no front door,
 *    routing, token check, field validation or envelope at all.
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startLocal } from '../lib/local/service';
import { listen } from '../lib/local/http-server';
import { setLogLevel } from '../lib/log';
import { mountPartition } from '../lib/mount-partition';
import { issueLeaf } from '../lib/pki/leaf';
import { newEcKey } from '../lib/pki/public-key';
import { certificateData } from '../lib/pki/paths/certificate-data';
import type { Role } from '../lib/pki/role';
import { caller } from './_http';
import { startScript, stopChild } from './_servers';

/** CPU µs per call of `one` (sync or async), the least of `runs` runs of `n` calls (noise only adds). */
async function cpuPerCall(n: number, one: () => unknown, runs = 3): Promise<number> {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) await one();
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / n);
  }
  return best;
}

/** A local service in this process with an EC root and a no_store role, and the issue engine called directly on it. */
async function engineOnly(): Promise<{ issue: (commonName: string) => Promise<Record<string, unknown>>; close: () => Promise<void> }> {
  setLogLevel('silent');
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-floor-'));
  const svc = await startLocal({ dataDir, port: 0, store: 'level', quiet: true });
  const auth = { 'x-svc-token': svc.rootToken! };
  await caller(`${svc.url}/v1/pki/root/generate/internal`, 'POST', auth, { common_name: 'Floor Root', key_type: 'ec', ttl: '8760h' })();
  await caller(`${svc.url}/v1/pki/roles/nostore`, 'POST', auth, { allow_any_name: true, key_type: 'ec', ttl: '1h', no_store: true })();
  const part = mountPartition(svc.deps, 'pki', 'pki');
  const role = (await part.get<Role>('role/nostore'))!.value;
  const limits = { defaultLeaseTtl: 3600, maxLeaseTtl: 86_400 };
  const request = { altNames: [], ipSans: [], uriSans: [], otherSans: [], excludeCnFromSans: false, ttl: undefined, notAfter: undefined };
  return {
    issue: async (commonName) =>
      certificateData(await issueLeaf(svc.deps, part, role, { ...request, commonName, serialNumber: '' }, limits, 'der'), 'pem'),
    close: async () => {
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The crypto and the engine alone, in this process: CPU µs per issue. */
export async function inProcessFloors(): Promise<{ cryptoUs: number; engineUs: number }> {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const tbs = Buffer.alloc(450, 1);
  const crypto = () => {
    newEcKey(256);
    sign('sha256', tbs, ca);
  };
  crypto();
  const cryptoUs = await cpuPerCall(5000, crypto);
  const engine = await engineOnly();
  try {
    const one = () => engine.issue('www.example.com');
    await cpuPerCall(500, one, 1);
    return { cryptoUs, engineUs: await cpuPerCall(3000, one) };
  } finally {
    await engine.close();
  }
}

/**
 * A server in its own process on the local listener: `canned` answers `answer` (a real issue
 * answer's bytes) to every request; `engine` parses the JSON body, runs the issue engine on its
 * common_name and answers the data as JSON (no front door, routing, token, fields or envelope).
 */
export async function startFloorServer(
  mode: 'canned' | 'engine',
  answer = '{}',
): Promise<{ call: () => Promise<unknown>; pid: number | undefined; stop: () => Promise<void> }> {
  const { info, child } = await startScript<{ url: string }>('_issue-floor.ts', ['--serve', mode], {
    name: `${mode} floor server`,
    env: { ...process.env, FLOOR_ANSWER: answer },
  });
  return {
    call: caller(`${info.url}/v1/pki/issue/nostore`, 'POST', { 'x-svc-token': 'x'.repeat(28) }, { common_name: 'www.example.com' }),
    pid: child.pid,
    stop: () => stopChild(child),
  };
}

async function serveFloor(mode: string): Promise<void> {
  const answer = process.env.FLOOR_ANSWER ?? '{}';
  const engine = mode === 'engine' ? await engineOnly() : undefined;
  const headers = () => ({ 'content-type': 'application/json', 'x-request-id': randomUUID() });
  const served = await listen(async (request) => {
    if (!engine) {
      await request.arrayBuffer();
      return new Response(answer, { headers: headers() });
    }
    // The adaptor's direct body path, as lib/http/input.ts reads a body with a declared length.
    const { common_name } = JSON.parse(Buffer.from(await request.arrayBuffer()).toString('utf8')) as { common_name: string };
    return new Response(JSON.stringify({ data: await engine.issue(common_name) }), { headers: headers() });
  });
  process.stdout.write(JSON.stringify({ url: served.url }) + '\n');
  process.on('SIGTERM', () => void Promise.all([served.close(), engine?.close()]).then(() => process.exit(0)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--serve') {
  await serveFloor(process.argv[3] ?? 'canned');
}
