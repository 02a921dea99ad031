/**
 * Several app instances on one DynamoDB-compatible table (the shared dynalite of
 * test/helpers/store.ts), as Lambda instances after a deploy: each with its own deps, lean
 * DynamoDB client and caches, all with one sealing key; the first one initialised (its root token).
 */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { createDeps, dynamoApi } from '../../lib/composition';
import { parseAuditDevices, readEnvironment } from '../../lib/config';
import type { Deps } from '../../lib/deps';
import type { EngineModule } from '../../lib/engine-module';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { localApp } from '../../lib/local/app';
import { DynamoStore } from '../../lib/store/dynamo-store';
import { initialize } from '../../lib/sys/init';
import { createTestStore } from './store';

export interface Instances {
  apps: Hono[];
  deps: Deps[];
  root: string;
}

/** `audit`: the instances' audit devices (AUDIT_DEVICES' syntax; default none). */
export async function instancesOnOneStore(engines: EngineModule[], count = 2, { audit = 'none' } = {}): Promise<Instances> {
  const { endpoint, table } = await createTestStore();
  const wrapper = new LocalKeyWrapper(randomBytes(32));
  const env = {
    ...readEnvironment({}),
    tableName: table,
    dynamoEndpoint: endpoint,
    audit: { devices: parseAuditDevices(audit), logRaw: false },
  };
  const deps = Array.from({ length: count }, () => {
    const d = createDeps({ env, store: new DynamoStore(dynamoApi(env), table), wrapper });
    for (const e of engines) if (e.revoker) d.revokers.set(e.type, e.revoker(d));
    return d;
  });
  const { rootToken } = await initialize(deps[0]!);
  return { apps: deps.map((d) => localApp(d, engines)), deps, root: rootToken! };
}
