import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLocal } from '../../../lib/local/service';

function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const s = connect(Number(port), hostname, () => s.write(text));
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('end', () => resolve(Buffer.concat(chunks).toString()));
    s.on('error', reject);
  });
}

describe('the local service', () => {
  it('initialises once, writes the root token 0600, and keeps everything across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-local-'));
    const first = await startLocal({ dataDir, port: 0 });
    expect(first.rootToken).toMatch(/^lk\./);
    const file = join(dataDir, 'root-token');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.rootToken);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'local.key')).mode & 0o777).toBe(0o600);

    const root = first.rootToken!;
    const health = await fetch(`${first.url}/v1/sys/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ initialized: true, sealed: false });
    const put = await fetch(`${first.url}/v1/sys/policy/kept`, {
      method: 'PUT',
      headers: { 'x-svc-token': root, 'content-type': 'application/json' },
      body: JSON.stringify({ policy: '{"path":{"sys/mounts":{"capabilities":["read"]}}}' }),
    });
    expect(put.status).toBe(204);
    const created = await fetch(`${first.url}/v1/auth/token/create`, {
      method: 'POST',
      headers: { 'x-svc-token': root },
      body: JSON.stringify({ policies: ['kept'], ttl: '1h' }),
    });
    const child = ((await created.json()) as { auth: { client_token: string } }).auth.client_token;
    await first.close();

    const second = await startLocal({ dataDir, port: 0 });
    try {
      expect(second.rootToken).toBeUndefined();
      const mounts = await fetch(`${second.url}/v1/sys/mounts`, { headers: { 'x-svc-token': child } });
      expect(mounts.status).toBe(200);
      const body = (await mounts.json()) as { data: Record<string, { type: string }> };
      expect(Object.keys(body.data)).toEqual(['pki/', 'pki_int/', 'ssh/', 'cloud-a/', 'cloud-b/', 'secret/']);
      const lookup = await fetch(`${second.url}/v1/auth/token/lookup-self`, { headers: { authorization: `Bearer ${root}` } });
      expect(lookup.status).toBe(200);
      // LIST on the wire, as existing clients send it (Node's own parser would refuse it).
      const listed = await rawRequest(
        second.url,
        `LIST /v1/sys/policy HTTP/1.1\r\nHost: x\r\nX-Svc-Token: ${root}\r\nConnection: close\r\n\r\n`,
      );
      expect(listed).toMatch(/^HTTP\/1.1 200/);
      expect(listed).toContain('"kept"');
      // Paths no function serves, over real HTTP.
      expect((await fetch(`${second.url}/v1/nowhere`)).status).toBe(404);
      expect((await fetch(`${second.url}/v1/sys/he%0aalth`)).status).toBe(400);
      expect((await fetch(`${second.url}/v1/%0a/x`)).status).toBe(400);
    } finally {
      await second.close();
    }
  });
});
