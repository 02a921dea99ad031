/** Log lines of the cloud engines carry no client secret, secret key or token, failures included. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setLogLevel } from '../../../lib/log';
import { call } from '../../helpers/service';
import { cloudABench, contributor, type Bench } from './helpers';
import { cloudBBench, POLICY_DOC, type Bench as BenchB } from '../cloud-b/helpers';

let a: Bench;
let b: BenchB;
const lines: string[] = [];
beforeAll(async () => {
  a = await cloudABench();
  b = await cloudBBench();
  setLogLevel('info');
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  setLogLevel('silent');
  await a.close();
  await b.close();
});

describe('cloud engine logs', () => {
  it('hold no secret after successes, cloud failures and deferred undo', async () => {
    const secrets = [a.fake.root.clientSecret, b.fake.state.root.secret];
    const A = (m: string, p: string, body?: unknown) =>
      call(a.svc.app, m, `/v1/cloud-a/${p}`, { token: a.svc.root, ...(body ? { body } : {}) });
    const B = (m: string, p: string, body?: unknown) =>
      call(b.svc.app, m, `/v1/cloud-b/${p}`, { token: b.svc.root, ...(body ? { body } : {}) });
    await A('POST', 'roles/r', { cloud_a_roles: contributor(a) });
    const ok = await A('GET', 'creds/r');
    secrets.push(ok.json!.data.client_secret);
    a.fake.inject({ op: 'addGroupMember', status: 500, count: 3 });
    a.fake.inject({ op: 'createRoleAssignment', status: 500, count: 50 });
    a.fake.inject({ op: 'deleteApplication', status: 500, count: 3 });
    expect((await A('GET', 'creds/r')).status).toBe(502);
    await A('POST', 'rotate-root');
    secrets.push(...a.fake.state.applications.get(a.fake.root.objectId)!.passwordCredentials.map((p) => p.secret));
    await B('POST', 'role/u', { inline_policies: [POLICY_DOC] });
    const kb = await B('GET', 'creds/u');
    secrets.push(kb.json!.secret_key);
    b.fake.inject({ action: 'CreateAccessKey', status: 500, count: 3 });
    b.fake.inject({ action: 'DeleteUser', status: 500, count: 3 });
    expect((await B('GET', 'creds/u')).status).toBe(502);
    const text = lines.join('');
    expect(text).toMatch(/"event":"request"/);
    expect(text).toMatch(/cloud-(a|b)-undo-deferred/);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).not.toMatch(/access_token|Bearer /);
  });
});
