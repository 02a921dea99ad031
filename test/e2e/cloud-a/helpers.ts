/** A cloud-A test bench: the HTTPS fake, a service serving the engine pointed at it, a configured mount. */
import { makeCloudAEngine } from '../../../lib/cloud-a/engine';
import type { Mount } from '../../../lib/config';
import { call, createTestService, type TestService } from '../../helpers/service';
import { startCloudAFake, type CloudAFake } from '../../fakes/cloud-a/server';
import { fakeTls } from '../../fakes/cloud-a/tls';

export interface Bench {
  fake: CloudAFake;
  svc: TestService;
  env: Record<string, string | undefined>;
  close(): Promise<void>;
}

export async function cloudABench(o: { configure?: boolean; now?: () => number; mounts?: Mount[] } = {}): Promise<Bench> {
  const tls = await fakeTls();
  const fake = await startCloudAFake(tls);
  const env: Record<string, string | undefined> = {
    CLOUDA_AUTHORITY_URL: fake.url,
    CLOUDA_GRAPH_URL: fake.url,
    CLOUDA_RESOURCE_MANAGER_URL: fake.url,
    CLOUDA_CA_CERT: tls.ca,
    CLOUDA_RETRY_DELAY_MS: '5',
    CLOUDA_TIMEOUT_MS: '5000',
  };
  const svc = await createTestService({
    engines: [makeCloudAEngine(() => env)],
    ...(o.now ? { now: o.now } : {}),
    ...(o.mounts ? { mounts: o.mounts } : {}),
  });
  if (o.configure !== false) {
    const r = await call(svc.app, 'POST', '/v1/cloud-a/config', {
      token: svc.root,
      body: {
        subscription_id: fake.state.subscriptionId,
        tenant_id: fake.state.tenantId,
        client_id: fake.root.clientId,
        client_secret: fake.root.clientSecret,
      },
    });
    if (r.status !== 204) throw new Error(`config failed: ${r.text}`);
  }
  return { fake, svc, env, close: () => fake.close() };
}

export const contributor = (b: Bench, scope = `/subscriptions/${b.fake.state.subscriptionId}`) =>
  JSON.stringify([{ role_name: 'Contributor', scope }]);
