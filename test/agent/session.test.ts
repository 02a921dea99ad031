/**
 * The agent's login: the secret read from its file at each login, a new login before the token
 * reaches 4/5 of its lifetime and after a 403 (the call retried once), none of it in the log.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClientError, LatchkeyClient } from '../../lib/client/client';
import type { TransportRequest } from '../../lib/client/transport';
import { AgentLog } from '../../lib/agent/log';
import { Session } from '../../lib/agent/session';

const json = (status: number, body: unknown) => ({
  status,
  headers: new Headers({ 'content-type': 'application/json' }),
  body: Buffer.from(JSON.stringify(body)),
});

function fixture(o: { refuseFirst?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-agent-session-'));
  const secretFile = join(dir, 'secret-id');
  writeFileSync(secretFile, 'secret-one-0000\n');
  const seen: { path: string; token?: string; body?: unknown }[] = [];
  let logins = 0;
  let refused = !o.refuseFirst;
  const client = new LatchkeyClient({
    address: 'http://latchkey.test',
    transport: async (r: TransportRequest) => {
      const path = new URL(r.url).pathname;
      const body = r.body ? (JSON.parse(String(r.body)) as unknown) : undefined;
      seen.push({ path, ...(r.headers['x-vault-token'] ? { token: r.headers['x-vault-token'] } : {}), body });
      if (path === '/v1/auth/approle/login')
        return json(200, {
          auth: { client_token: `token-number-${++logins}`, accessor: 'a', policies: ['agent'], lease_duration: 10, renewable: true },
        });
      if (!refused) {
        refused = true;
        return json(403, { errors: ['permission denied: invalid or expired token'] });
      }
      return json(200, { data: { ok: true } });
    },
  });
  let now = 0;
  const lines: string[] = [];
  const log = new AgentLog({ write: (s: string) => lines.push(s) }, () => now);
  const session = new Session(
    client,
    { method: 'approle', role_id: 'role-1', secret_id_file: secretFile },
    () => undefined,
    log,
    () => now,
  );
  return { client, session, seen, lines, secretFile, advance: (ms: number) => (now += ms) };
}

describe('Session', () => {
  it('logs in with the secret read from its file; again at 4/5 of the token lifetime, reading the file again', async () => {
    const f = fixture();
    await f.session.call(() => f.client.write('pki/issue/web', {}));
    f.advance(7000);
    await f.session.call(() => f.client.write('pki/issue/web', {}));
    expect(f.seen.map((s) => s.path)).toEqual(['/v1/auth/approle/login', '/v1/pki/issue/web', '/v1/pki/issue/web']);
    writeFileSync(f.secretFile, 'secret-two-0000\n');
    f.advance(1000);
    await f.session.call(() => f.client.write('pki/issue/web', {}));
    expect(f.seen.slice(3).map((s) => [s.path, s.token])).toEqual([
      ['/v1/auth/approle/login', undefined],
      ['/v1/pki/issue/web', 'token-number-2'],
    ]);
    expect(f.seen[3]!.body).toEqual({ role_id: 'role-1', secret_id: 'secret-two-0000' });
    expect(f.lines.map((l) => JSON.parse(l).reason)).toEqual(['start', 'token expiring']);
  });

  it('after a 403 logs in again and retries the call once', async () => {
    const f = fixture({ refuseFirst: true });
    const r = await f.session.call(() => f.client.write('pki/issue/web', {}));
    expect(r?.data).toEqual({ ok: true });
    expect(f.seen.map((s) => [s.path, s.token])).toEqual([
      ['/v1/auth/approle/login', undefined],
      ['/v1/pki/issue/web', 'token-number-1'],
      ['/v1/auth/approle/login', undefined],
      ['/v1/pki/issue/web', 'token-number-2'],
    ]);
    const text = f.lines.join('');
    expect(text).toContain('"reason":"403: permission denied: invalid or expired token"');
    expect(text).not.toMatch(/token-number|secret-one/);
  });

  it('without auth, a 403 with the same command-line token is the call error', async () => {
    const client = new LatchkeyClient({
      address: 'http://latchkey.test',
      token: 'cli-token-0000',
      transport: async () => json(403, { errors: ['permission denied'] }),
    });
    const s = new Session(client, undefined, () => 'cli-token-0000', new AgentLog({ write: () => 0 }));
    await expect(s.call(() => client.write('pki/issue/web', {}))).rejects.toBeInstanceOf(ClientError);
  });
});
