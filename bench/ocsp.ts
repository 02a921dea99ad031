/**
 * The OCSP responder with 100,000 revoked certificates on its issuer (issue 26, item 4): answers
 * per second in process (answerOcsp, no HTTP) and over HTTP (GET ocsp/<base64> from the local
 * service, node:http keep-alive clients in the same process), with a nonce (signed per request) and without (pre-signed
 * answers reused while their status holds), for a good and a revoked certificate. The revoked
 * records are written straight to the store, as revoke.ts writes them.
 *   npx tsx bench/ocsp.ts            (BENCH_REVOKED=100000, BENCH_SECONDS=3 by default)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startLocal } from '../lib/local/service';
import { setLogLevel } from '../lib/log';
import { mountPartition } from '../lib/mount-partition';
import { answerOcsp } from '../lib/pki/ocsp';
import { parseSerial, serialKey } from '../lib/pki/serial';
import { expiryIndexSort, REVOKED_INDEX } from '../lib/pki/storage';
import { send } from './_http';
import { ocspRequest } from './_ocsp-request';
import { rateFor } from './_rate';

export async function run(): Promise<Record<string, number>> {
  setLogLevel('silent');
  const revokedCount = Number(process.env.BENCH_REVOKED ?? 100_000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-ocsp-'));
  const svc = await startLocal({ dataDir, port: 0 });
  const call = async (path: string, body: unknown) => {
    const r = await fetch(`${svc.url}/v1/${path}`, {
      method: 'POST',
      headers: { 'x-svc-token': svc.rootToken! },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${path} answered ${r.status}: ${text}`);
    return JSON.parse(text) as { data: Record<string, string> };
  };
  try {
    const rootCa = await call('pki/root/generate/internal', { common_name: 'Bench OCSP Root', ttl: '8760h', key_type: 'ec' });
    const caPem = rootCa.data.certificate!;
    const issuerId = rootCa.data.issuer_id!;
    await call('pki/roles/web', { allow_any_name: true, key_type: 'ec', ttl: '1h' });
    const good = parseSerial((await call('pki/issue/web', { common_name: 'good.example.com' })).data.serial_number!);
    const revoked = parseSerial((await call('pki/issue/web', { common_name: 'revoked.example.com' })).data.serial_number!);
    await call('pki/revoke', { serial_number: (await call('pki/issue/web', { common_name: 'x.example.com' })).data.serial_number });
    await call('pki/revoke', { serial_number: revoked.toString('hex').match(/../g)!.join(':') });

    const part = mountPartition(svc.deps, 'pki', 'pki');
    const t0 = performance.now();
    const notAfter = Date.now() + 3_600_000;
    for (let i = 0; i < revokedCount; i += 1000) {
      await part.batchPut(
        Array.from({ length: Math.min(1000, revokedCount - i) }, () => {
          const serial = serialKey(randomBytes(20));
          return {
            key: `revoked/${serial}`,
            value: { serial, revokedAt: Date.now(), notAfter, issuerId },
            index: { name: REVOKED_INDEX, sort: expiryIndexSort(notAfter, serial) },
          };
        }),
      );
    }
    const fillS = (performance.now() - t0) / 1000;

    const figures: Record<string, number> = { [`write ${revokedCount} revoked records (s)`]: fillS };
    const status = (der: Buffer) => der.subarray(0, 8).toString('hex');
    for (const [label, serial] of [
      ['good', good],
      ['revoked', revoked],
    ] as const) {
      for (const nonce of [false, true]) {
        const kind = `${label}, ${nonce ? 'nonce (signed per request)' : 'no nonce (pre-signed)'}`;
        const probe = await answerOcsp(svc.deps, part, ocspRequest(caPem, serial, nonce));
        if (probe.status !== 'successful') throw new Error(`${kind}: ${probe.status} ${status(probe.der)}`);
        figures[`in process, ${kind} (answers/s)`] = await rateFor(seconds, 16, () =>
          answerOcsp(svc.deps, part, ocspRequest(caPem, serial, nonce)),
        );
        figures[`HTTP GET, ${kind}, 8 keep-alive clients (answers/s)`] = await rateFor(seconds, 8, async () => {
          const b64 = encodeURIComponent(ocspRequest(caPem, serial, nonce).toString('base64'));
          const r = await send(`${svc.url}/v1/pki/ocsp/${b64}`, 'GET');
          if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
        });
      }
    }
    return figures;
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const figures = await run();
  for (const [k, v] of Object.entries(figures)) console.log(`${k}: ${v < 10 ? v.toFixed(2) : Math.round(v)}`);
}
