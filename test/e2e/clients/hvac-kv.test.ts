/**
 * hvac's own KV version 1 and version 2 integration tests (its test_kv_v1.py and test_kv_v2.py at
 * v0.11.2, the release Debian's python3-hvac is, unchanged in hvac-kv/), run by that client against
 * Latchkey: hvac-kv/run.py runs a module with unittest; every test's setUp asks this file's control
 * endpoint for a fresh service whose mounts `kvv1` (version 1) and `kvv2` (version 2) exist from
 * configuration, standing for the mount hvac's setUp enables and its tearDown disables (see
 * hvac-kv/NOTICE.md). Every test must pass.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kvEngine } from '../../../lib/kv/engine';
import { listen, type Served } from '../../../lib/local/http-server';
import { createTestService } from '../../helpers/service';
import { kvMount } from '../kv/kv-mounts';
import type { Json } from './harness';

let control: Server;
let controlUrl = '';
let current: Served | undefined;
let served = 0;

/** A fresh service with hvac's test mounts (and `secret`, Vault's default v2 mount), replacing the last one. */
async function fresh(): Promise<{ url: string; token: string }> {
  await current?.close();
  const svc = await createTestService({
    engines: [kvEngine],
    mounts: [kvMount('kvv1', '1'), kvMount('kvv2', '2'), kvMount('secret', '2')],
  });
  current = await listen(svc.app.fetch, { port: 0 });
  served++;
  return { url: current.url, token: svc.root };
}

beforeAll(async () => {
  control = createServer((req, res) => {
    req.resume();
    fresh().then(
      (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      (e: Error) => res.writeHead(500).end(e.message),
    );
  });
  await new Promise<void>((r) => control.listen(0, '127.0.0.1', r));
  const addr = control.address() as { port: number };
  controlUrl = `http://127.0.0.1:${addr.port}/fresh`;
});

afterAll(async () => {
  await current?.close();
  await new Promise((r) => control.close(r));
});

async function runModule(module: string): Promise<Json> {
  const { stdout } = await promisify(execFile)('/usr/bin/python3', [join(import.meta.dirname, 'hvac-kv', 'run.py'), module], {
    env: { ...process.env, LATCHKEY_CONTROL: controlUrl, PYTHONDONTWRITEBYTECODE: '1', PYTHONWARNINGS: 'ignore' },
    timeout: 170_000,
    maxBuffer: 8 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Json;
}

const failures = (out: Json) => Object.entries(out.tests as Record<string, Json>).filter(([, t]) => t.result !== 'pass');

describe("hvac's own KV integration tests, python3-hvac against Latchkey", () => {
  it('test_kv_v1: every test passes (read, list, create_or_update, delete), each on a fresh kvv1 mount', { timeout: 180_000 }, async () => {
    const before = served;
    const out = await runModule('test_kv_v1');
    const names = Object.keys(out.tests as object);
    expect(names.length).toBe(12);
    expect(failures(out)).toEqual([]);
    expect(served - before).toBe(names.length);
    expect(out.enabled).toContainEqual(['kvv1', 'kv', { version: 1 }]);
  });

  it(
    'test_kv_v2: every test passes (config, versions, cas, patch, delete/undelete/destroy, list, metadata), each on a fresh kvv2 mount',
    { timeout: 180_000 },
    async () => {
      const out = await runModule('test_kv_v2');
      const names = Object.keys(out.tests as object);
      expect(names.length).toBeGreaterThan(60);
      expect(failures(out)).toEqual([]);
      expect(out.enabled).toContainEqual(['kvv2', 'kv', { version: 2 }]);
      expect(out.hvac).toMatch(/^0\.11\./);
    },
  );
});
