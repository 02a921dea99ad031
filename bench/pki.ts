/**
 * PKI issuing speed, per core, side by side in one run:
 *  - the crypto limit: EC P-256 key generation + one ECDSA signature in node:crypto (the denominator);
 *  - in-process: the issue/sign pipeline called directly (role rules, template, lean DER builder,
 *    signature, storage), one request at a time on one thread;
 *  - over HTTP (auth, routing, envelope): the local server in its own process (one thread), 4 clients;
 *  - cfssl serve (Debian golang-cfssl) newcert with the same key type, one core (GOMAXPROCS=1), 4 clients.
 * Both servers run side by side and are measured in interleaved rounds (the median is reported),
 * by the same keep-alive node:http client (bench/_http.ts).
 *   npx tsx bench/pki.ts          (BENCH_ROUNDS=7 by default)
 */
import { execFileSync } from 'node:child_process';
import { createECDH, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startLocal } from '../lib/local/service';
import { setLogLevel } from '../lib/log';
import { issueLeaf, signLeaf } from '../lib/pki/leaf';
import { certificateData } from '../lib/pki/paths/certificate-data';
import { parseCsr } from '../lib/pki/parse';
import { onePem } from '../lib/pki/pem';
import type { Role } from '../lib/pki/role';
import { mountPartition } from '../lib/mount-partition';
import { caller, median, send } from './_http';
import { rate } from './_rate';
import { startCfssl, startScript } from './_servers';

const csrPem = execFileSync(
  'openssl',
  ['req', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-keyout', '/dev/null', '-subj', '/CN=csr.example.com'],
  {
    stdio: ['ignore', 'pipe', 'ignore'],
  },
).toString();

function cryptoLimit(n: number): number {
  const data = Buffer.alloc(600, 1);
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    generateKeyPairSync('ec', { namedCurve: 'P-256' });
    sign('sha256', data, ca);
  }
  return n / ((performance.now() - started) / 1000);
}

/** The same loop with the ECDH key generation the issue path uses (lib/pki/public-key.ts). */
function cryptoLimitEcdh(n: number): number {
  const data = Buffer.alloc(600, 1);
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const ecdh = createECDH('prime256v1');
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    ecdh.generateKeys();
    ecdh.getPrivateKey();
    sign('sha256', data, ca);
  }
  return n / ((performance.now() - started) / 1000);
}

interface ServerInfo {
  front: string;
  direct: string;
  token: string;
}

/** Starts bench/_pki-server.ts in its own process and waits for its addresses. */
async function startServer(): Promise<{ info: ServerInfo; stop: () => void }> {
  const { info, child } = await startScript<ServerInfo>('_pki-server.ts', [], {
    name: 'bench server',
    env: { ...process.env, LOG_LEVEL: 'silent' },
    stderr: 'ignore',
  });
  return { info, stop: () => child.kill('SIGTERM') };
}

function print(figures: Record<string, number>) {
  for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(60)} ${v.toFixed(0)}`);
}

export async function run(): Promise<Record<string, number>> {
  setLogLevel('silent');
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-pki-'));
  const svc = await startLocal({ dataDir, port: 0 });
  const figures: Record<string, number> = {};
  try {
    const root = svc.rootToken!;
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${svc.url}/v1/${path}`, { method: 'POST', headers: { 'x-svc-token': root }, body: JSON.stringify(body) });
      if (r.status >= 300) throw new Error(`${path} answered ${r.status}: ${await r.text()}`);
    };
    await post('pki/root/generate/internal', { common_name: 'Bench Root', key_type: 'ec', ttl: '8760h' });
    const roleBody = { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' };
    await post('pki/roles/nostore', { ...roleBody, no_store: true });
    await post('pki/roles/stored', roleBody);
    await post('pki/roles/rsa', { ...roleBody, key_type: 'rsa', no_store: true });
    const part = mountPartition(svc.deps, 'pki', 'pki');
    const roleOf = async (name: string) => (await part.get<Role>(`role/${name}`))!.value;
    const limits = { defaultLeaseTtl: 3600, maxLeaseTtl: 86_400 };
    const req = {
      commonName: 'www.example.com',
      altNames: [],
      ipSans: [],
      uriSans: [],
      otherSans: [],
      excludeCnFromSans: false,
      ttl: undefined,
      notAfter: undefined,
      serialNumber: '',
    };
    const [nostore, stored, rsa] = [await roleOf('nostore'), await roleOf('stored'), await roleOf('rsa')];
    const issueOnce = (role: Role) => async () => certificateData(await issueLeaf(svc.deps, part, role, req, limits, 'der'), 'pem');
    const csr = () => parseCsr(onePem(csrPem, ['CERTIFICATE REQUEST'], 'csr'));

    cryptoLimit(500);
    figures['crypto limit: P-256 keygen + sign, node:crypto (op/s)'] = cryptoLimit(5000);
    await rate(500, 1, issueOnce(nostore));
    figures['in-process issue EC P-256 no_store (op/s)'] = await rate(5000, 1, issueOnce(nostore));
    figures['in-process issue EC P-256 stored (op/s)'] = await rate(1000, 1, issueOnce(stored));
    figures['in-process sign CSR EC P-256 no_store (op/s)'] = await rate(3000, 1, async () =>
      certificateData(await signLeaf(svc.deps, part, nostore, csr(), req, limits), 'pem'),
    );
    figures['in-process issue RSA-2048 no_store (op/s)'] = await rate(20, 1, issueOnce(rsa));
    figures['crypto limit again, end of in-process run (op/s)'] = cryptoLimit(5000);
    figures['crypto limit with ECDH keygen, as issue generates keys (op/s)'] = cryptoLimitEcdh(5000);
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  // Over HTTP: the server in its own process (one thread), cfssl beside it; this process only drives them.
  const server = await startServer();
  const cfsslDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-cfssl-'));
  const cfssl = await startCfssl(cfsslDir);
  try {
    const { front, direct, token } = server.info;
    const auth = { 'x-svc-token': token };
    const post = (base: string, path: string, body: unknown) => caller(`${base}/v1/${path}`, 'POST', auth, body);
    await post(front, 'pki/root/generate/internal', { common_name: 'Bench Root', key_type: 'ec', ttl: '8760h' })();
    const roleBody = { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' };
    await post(front, 'pki/roles/nostore', { ...roleBody, no_store: true })();
    await post(front, 'pki/roles/stored', roleBody)();
    await post(front, 'pki/roles/rsa', { ...roleBody, key_type: 'rsa', no_store: true })();
    const issue = (base: string, role: string) => post(base, `pki/issue/${role}`, { common_name: 'www.example.com' });
    // Warm both servers' JIT before measuring, then interleave rounds so drift hits both alike.
    await rate(3000, 4, issue(front, 'nostore'));
    await rate(1000, 4, issue(direct, 'nostore'));
    if (cfssl) await rate(3000, 4, cfssl.newcert);
    const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
    const viaFront: number[] = [];
    const viaDirect: number[] = [];
    const viaCfssl: number[] = [];
    for (let i = 0; i < rounds; i++) {
      viaFront.push(await rate(3000, 4, issue(front, 'nostore')));
      if (cfssl) viaCfssl.push(await rate(3000, 4, cfssl.newcert));
      viaDirect.push(await rate(3000, 4, issue(direct, 'nostore')));
    }
    figures['HTTP issue EC P-256 no_store, local server (npm start listener), 4 clients, median (req/s)'] = median(viaFront);
    if (cfssl) {
      figures['cfssl serve newcert EC P-256 (GOMAXPROCS=1), 4 clients, median (req/s)'] = median(viaCfssl);
      // Each round's pair ran back to back, under the same machine conditions.
      figures['local server / cfssl, median of the per-round ratios (%)'] = 100 * median(viaFront.map((x, i) => x / viaCfssl[i]!));
    }
    figures['HTTP issue EC P-256 no_store, straight to the Node HTTP server (no LIST front), median (req/s)'] = median(viaDirect);
    figures['HTTP issue EC P-256 stored, local server, 4 clients (req/s)'] = await rate(1500, 4, issue(front, 'stored'));
    figures['HTTP sign CSR EC P-256 no_store, local server, 4 clients (req/s)'] = await rate(
      3000,
      4,
      post(front, 'pki/sign/nostore', { csr: csrPem }),
    );
    figures['HTTP issue RSA-2048 no_store, local server, 4 clients (req/s)'] = await rate(40, 4, issue(front, 'rsa'));
    // The floors under every request: token check + a cached role read; an unauthenticated read.
    figures['HTTP GET roles/<name> (authenticated, no crypto), 4 clients (req/s)'] = await rate(
      3000,
      4,
      caller(`${front}/v1/pki/roles/nostore`, 'GET', auth),
    );
    figures['HTTP GET ca/pem (unauthenticated), 4 clients (req/s)'] = await rate(3000, 4, async () =>
      send(`${front}/v1/pki/ca/pem`, 'GET'),
    );
    if (cfssl) {
      console.log(
        `rounds (req/s): local server ${viaFront.map((x) => x.toFixed(0)).join(' ')}; cfssl ${viaCfssl.map((x) => x.toFixed(0)).join(' ')}; direct ${viaDirect.map((x) => x.toFixed(0)).join(' ')}`,
      );
    }
  } finally {
    server.stop();
    cfssl?.stop();
    rmSync(cfsslDir, { recursive: true, force: true });
  }
  const limit = figures['crypto limit: P-256 keygen + sign, node:crypto (op/s)']!;
  figures['in-process issue no_store / crypto limit (%)'] = (100 * figures['in-process issue EC P-256 no_store (op/s)']!) / limit;
  figures['in-process issue no_store / ECDH crypto limit (%)'] =
    (100 * figures['in-process issue EC P-256 no_store (op/s)']!) /
    figures['crypto limit with ECDH keygen, as issue generates keys (op/s)']!;
  print(figures);
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
