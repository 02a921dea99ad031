/** A cloud-B test bench: the HTTPS fake, a service serving the engine pointed at it, a configured mount. */
import { makeCloudBEngine } from '../../../lib/cloud-b/engine';
import type { Mount } from '../../../lib/config';
import { call, createTestService, type TestService } from '../../helpers/service';
import { startCloudBFake, type CloudBFake } from '../../fakes/cloud-b/server';
import { fakeTls } from '../../fakes/cloud-a/tls';

export interface Bench {
  fake: CloudBFake;
  svc: TestService;
  env: Record<string, string | undefined>;
  close(): Promise<void>;
}

export async function cloudBBench(o: { configure?: boolean; now?: () => number; mounts?: Mount[] } = {}): Promise<Bench> {
  const tls = await fakeTls();
  const fake = await startCloudBFake(tls);
  const env: Record<string, string | undefined> = {
    CLOUDB_RAM_ENDPOINT: fake.url,
    CLOUDB_STS_ENDPOINT: fake.url,
    CLOUDB_METADATA_ENDPOINT: fake.url,
    CLOUDB_CA_CERT: tls.ca,
    CLOUDB_TIMEOUT_MS: '5000',
  };
  const svc = await createTestService({
    engines: [makeCloudBEngine(() => env)],
    ...(o.now ? { now: o.now } : {}),
    ...(o.mounts ? { mounts: o.mounts } : {}),
  });
  if (o.configure !== false) {
    const r = await call(svc.app, 'POST', '/v1/cloud-b/config', {
      token: svc.root,
      body: { access_key: fake.state.root.id, secret_key: fake.state.root.secret },
    });
    if (r.status !== 204) throw new Error(`config failed: ${r.text}`);
  }
  return { fake, svc, env, close: () => fake.close() };
}

export const POLICY_DOC = { Version: '1', Statement: [{ Effect: 'Allow', Action: 'oss:GetObject', Resource: 'acs:oss:*:*:bucket/*' }] };
