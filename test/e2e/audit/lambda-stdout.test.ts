/**
 * The packaged Lambda handlers write the audit log to standard output (CloudWatch Logs): each
 * function is bundled with serverless.yml's esbuild settings (bench/bundle.ts, infra/esbuild.cjs),
 * imported in a fresh node with a Lambda's environment and AUDIT_DEVICES unset (the stdout
 * default), and invoked with API Gateway v2 events. Its real stdout holds, for each answer's
 * x-request-id, one request and one response record, told apart from the operational log
 * lines (which have an `event`), and no token or private key in clear.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpEvent } from '../../helpers/apigw';
import { packaged, type Packaged } from '../../helpers/packaged';

interface Reply {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded: boolean;
}

let fns: Packaged;
let root: string;

beforeAll(async () => {
  fns = await packaged('latchkey-audit-lambda-');
  root = fns.root;
}, 120_000);

afterAll(async () => {
  await fns?.close();
});

/** Runs the packaged function `name` on `events` in a fresh node: its answers and its stdout. */
const invoke = (name: string, events: unknown[]) => fns.invoke<Reply>(name, events);

type Line = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const linesOf = (stdout: string): Line[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

/** For each answer: its request and response records on stdout, and their statuses. */
function expectRecorded(replies: Reply[], lines: Line[]) {
  const audit = lines.filter((l) => l.type === 'request' || l.type === 'response');
  const operational = lines.filter((l) => l.event !== undefined);
  // The third kind of line: EMF metric documents (lib/metrics/emf.ts, test/deploy/emf.test.ts).
  const metrics = lines.filter((l) => l._aws !== undefined && l.event === undefined && l.type === undefined);
  expect(audit.length + operational.length + metrics.length).toBe(lines.length);
  expect(audit.every((l) => l.event === undefined)).toBe(true);
  for (const reply of replies) {
    const id = reply.headers['x-request-id']!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const mine = audit.filter((l) => l.request.id === id);
    expect(mine.map((l) => l.type)).toEqual(['request', 'response']);
    expect(mine[1]!.response.status_code).toBe(reply.statusCode);
    expect(mine[0]!.request.remote_address).toBe('203.0.113.7');
    // The operational line of the same request, beside it.
    expect(operational.filter((l) => l.event === 'request' && l.request_id === id)).toHaveLength(1);
  }
  expect(audit).toHaveLength(2 * replies.length);
}

describe('the packaged handlers audit to standard output', () => {
  it('sys: a health check and a token create, one request and one response record each, the tokens hashed', async () => {
    const withRoot = { headers: { 'x-vault-token': root } };
    const { replies, stdout } = await invoke('sys', [
      httpEvent('GET', '/v1/sys/health'),
      httpEvent('POST', '/v1/auth/token/create', { ...withRoot, body: { policies: ['default'] } }),
    ]);
    expect(replies.map((r) => r.statusCode)).toEqual([200, 200]);
    const lines = linesOf(stdout);
    expectRecorded(replies, lines);
    const created = JSON.parse(replies[1]!.body) as { auth: { client_token: string; accessor: string } };
    for (const secret of [root, created.auth.client_token, created.auth.accessor]) expect(stdout).not.toContain(secret);
    const response = lines.find((l) => l.type === 'response' && l.request.path === 'auth/token/create')!;
    expect(response.response.auth.client_token).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(response.auth.client_token).toMatch(/^hmac-sha256:/);
  });

  it('pki: a CA, a role and an issued certificate, the private key never on stdout', async () => {
    const withRoot = { headers: { 'x-vault-token': root } };
    const { replies, stdout } = await invoke('pki', [
      httpEvent('POST', '/v1/pki/root/generate/internal', { ...withRoot, body: { common_name: 'Audit Root', key_type: 'ec' } }),
      httpEvent('POST', '/v1/pki/roles/web', { ...withRoot, body: { allow_any_name: true, key_type: 'ec' } }),
      httpEvent('POST', '/v1/pki/issue/web', { ...withRoot, body: { common_name: 'a.example.com' } }),
      httpEvent('GET', '/v1/pki/ca/pem'),
    ]);
    expect(replies.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expectRecorded(replies, linesOf(stdout));
    const key = (JSON.parse(replies[2]!.body) as { data: { private_key: string } }).data.private_key;
    for (const line of key.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'))) expect(stdout).not.toContain(line);
    expect(stdout).not.toContain(root);
  });
});
