/**
 * Cloud credential issue and revocation latency against the local fakes (HTTPS, real wire
 * formats), through the app on the embedded store: cloud-A dynamic principal (application,
 * principal, password, one role assignment, one group), cloud-A application password, cloud-B
 * RAM user (user, one inline + one remote policy, access key) and cloud-B STS token.
 *   npx tsx bench/cloud.ts
 */
import { pathToFileURL } from 'node:url';
import { setLogLevel } from '../lib/log';
import { call } from '../test/helpers/service';
import { cloudABench } from '../test/e2e/cloud-a/helpers';
import { cloudBBench, POLICY_DOC } from '../test/e2e/cloud-b/helpers';

type Step = () => Promise<void>;

async function timed(
  n: number,
  issue: () => Promise<string>,
  revoke: (leaseId: string) => Promise<void>,
): Promise<{ issue: number[]; revoke: number[] }> {
  const out = { issue: [] as number[], revoke: [] as number[] };
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    const lease = await issue();
    out.issue.push(performance.now() - t);
    t = performance.now();
    await revoke(lease);
    out.revoke.push(performance.now() - t);
  }
  return out;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

function report(name: string, r: { issue: number[]; revoke: number[] }, figures: Record<string, number>) {
  for (const [k, xs] of Object.entries(r)) {
    const line = `${name} ${k}`;
    figures[`${line} p50 (ms)`] = pct(xs, 50);
    figures[`${line} p95 (ms)`] = pct(xs, 95);
    console.log(
      `${line.padEnd(36)} p50 ${pct(xs, 50).toFixed(1).padStart(6)} ms   p95 ${pct(xs, 95).toFixed(1).padStart(6)} ms   (n=${xs.length})`,
    );
  }
}

export async function run(n = 40): Promise<Record<string, number>> {
  setLogLevel('silent');
  const figures: Record<string, number> = {};
  const a = await cloudABench();
  const b = await cloudBBench();
  const closers: Step[] = [a.close, b.close];
  try {
    const sub = `/subscriptions/${a.fake.state.subscriptionId}`;
    a.fake.state.addGroup('bench');
    const app = a.fake.state.createApplication('bench-static');
    const ok = async (r: Promise<{ status: number; text: string }>) => {
      const x = await r;
      if (x.status >= 300) throw new Error(x.text);
      return x;
    };
    await ok(
      call(a.svc.app, 'POST', '/v1/cloud-a/roles/dyn', {
        token: a.svc.root,
        body: { cloud_a_roles: JSON.stringify([{ role_name: 'Reader', scope: sub }]), cloud_a_groups: '[{"group_name":"bench"}]' },
      }),
    );
    await ok(call(a.svc.app, 'POST', '/v1/cloud-a/roles/stat', { token: a.svc.root, body: { application_object_id: app.id } }));
    await ok(
      call(b.svc.app, 'POST', '/v1/cloud-b/role/user', {
        token: b.svc.root,
        body: { inline_policies: [POLICY_DOC], remote_policies: ['name:ReadOnlyAccess,type:System'] },
      }),
    );
    await ok(call(b.svc.app, 'POST', '/v1/cloud-b/role/sts', { token: b.svc.root, body: { role_arn: b.fake.state.addRole('bench').arn } }));
    const issueA = (role: string) => async () =>
      ((await ok(call(a.svc.app, 'GET', `/v1/cloud-a/creds/${role}`, { token: a.svc.root }))) as { json?: Record<string, string> }).json!
        .lease_id!;
    const issueB = (role: string) => async () =>
      ((await ok(call(b.svc.app, 'GET', `/v1/cloud-b/creds/${role}`, { token: b.svc.root }))) as { json?: Record<string, string> }).json!
        .lease_id!;
    const revokeA = async (id: string) =>
      void (await ok(call(a.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: a.svc.root, body: { lease_id: id } })));
    const revokeB = async (id: string) =>
      void (await ok(call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: id } })));
    await timed(5, issueA('dyn'), revokeA); // warm up
    report('cloud-a dynamic principal', await timed(n, issueA('dyn'), revokeA), figures);
    report('cloud-a application password', await timed(n, issueA('stat'), revokeA), figures);
    await timed(5, issueB('user'), revokeB);
    report('cloud-b RAM user + key', await timed(n, issueB('user'), revokeB), figures);
    report('cloud-b STS token', await timed(n, issueB('sts'), revokeB), figures);
    return figures;
  } finally {
    for (const c of closers) await c();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
