/**
 * The composition root: everything a function needs (`Deps`, lib/deps.ts), built once per
 * process (module scope in a Lambda) from the environment, or from explicit parts in tests.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { join } from 'node:path';
import { MOUNTS, readEnvironment, type Environment, type Mount } from './config';
import type { KeyWrapper } from './keys/key-wrapper';
import { kmsClient, leanKmsApi, type KmsApi } from './keys/kms-api';
import { KmsKeyWrapper } from './keys/kms-key';
import { LocalKeyWrapper } from './keys/local-key';
import { Sealer } from './keys/sealed';
import { AwsJsonClient, envCredentials } from './aws/json-client';
import type { Credentials } from './aws/sigv4';
import { leanDynamoApi, type DynamoApi } from './store/dynamo-api';
import { DynamoStore } from './store/dynamo-store';
import type { Store } from './store/store';
import { timedStore } from './metrics/calls';
import { setRecording } from './metrics/registry';
import { Auditor } from './audit/auditor';
import { auditDevices } from './audit/devices';
import { AuditHasher } from './audit/hasher';
import { TokenAuthorizer } from './sys/authorizer';
import { Leases, RevokerRegistry } from './sys/leases';
import { Policies } from './sys/policies';
import { Tokens } from './sys/tokens';
import type { Deps } from './deps';
import './sys/services';
import { SecretLeases } from './sys/secret-leases';
import { wrapResponse } from './sys/wrapping';

export interface DepsParts {
  env?: Environment;
  mounts?: Mount[];
  store: Store;
  wrapper: KeyWrapper;
  now?: () => number;
}

export function createDeps(parts: DepsParts): Deps {
  const now = parts.now ?? Date.now;
  const env = parts.env ?? readEnvironment();
  // METRICS=off: nothing recorded, the store not wrapped (what bench/side-by-side.ts compares).
  const measured = env.metrics !== false;
  setRecording(measured);
  // Every storage call is counted and timed (sys/metrics, EMF) here, once, whatever the store.
  const store = measured ? timedStore(parts.store) : parts.store;
  const sys = store.partition('sys');
  const sealer = new Sealer(parts.wrapper);
  // The token check reads the sys items it needs together (one BatchGetItem deployed).
  const tokens = new Tokens(
    sys,
    sealer,
    now,
    (keys) => store.getMany(keys.map((key) => ({ partition: 'sys', key }))),
    (writes) => store.transact(writes),
  );
  const policies = new Policies(sys);
  const revokers = new RevokerRegistry();
  const leases = new Leases(sys, revokers, now, (writes) => store.transact(writes));
  // A token's revocation revokes the leases it owns; a lease made for a revoked token is undone.
  tokens.tree.useLeaseRevoker((accessor, deadline) => leases.revokeOwned(accessor, deadline));
  leases.ownerLive = (accessor) => tokens.accessorLive(accessor);
  const deps: Deps = {
    env,
    mounts: parts.mounts ?? MOUNTS,
    store,
    sealer,
    tokens,
    policies,
    leases,
    revokers,
    authorizer: new TokenAuthorizer(tokens, policies),
    audit: new Auditor(auditDevices(env.audit), new AuditHasher(sys, sealer), now),
    wrapping: { wrap: (request) => wrapResponse(deps, request) },
    secrets: (place) => new SecretLeases(leases, place),
    now,
  };
  return deps;
}

/** Deps from the environment: DynamoDB (or a DynamoDB-compatible endpoint) and KMS or the local key. */
export function dynamoClient(env: Environment): DynamoDBClient {
  return new DynamoDBClient({
    region: env.region,
    ...(env.dynamoEndpoint ? { endpoint: env.dynamoEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
}

/** The store's DynamoDB access: the lean JSON client (the SDK client slows cold start; figures in BENCHMARKS.md). */
export function dynamoApi(env: Environment): DynamoApi {
  const local = { accessKeyId: 'local', secretAccessKey: 'local' };
  const client = new AwsJsonClient({
    service: 'dynamodb',
    region: env.region,
    endpoint: env.dynamoEndpoint ?? `https://dynamodb.${env.region}.amazonaws.com`,
    targetPrefix: 'DynamoDB_20120810',
    jsonVersion: '1.0',
    credentials: env.dynamoEndpoint ? () => local : () => envCredentials(),
  });
  return leanDynamoApi(client);
}

/** Sealing's KMS access through the lean JSON client. */
export function kmsApi(env: Environment, credentials: () => Credentials = () => envCredentials()): KmsApi {
  return leanKmsApi(kmsClient(env.region, env.kmsEndpoint, credentials));
}

export function depsFromEnvironment(env: Environment = readEnvironment()): Deps {
  let wrapper: KeyWrapper;
  if (env.kmsKeyId) {
    wrapper = new KmsKeyWrapper({ api: kmsApi(env), keyId: env.kmsKeyId });
  } else {
    wrapper = LocalKeyWrapper.fromFile(env.localKeyFile ?? join(process.env.DATA_DIR ?? 'data', 'local.key'));
  }
  return createDeps({ env, store: new DynamoStore(dynamoApi(env), env.tableName), wrapper });
}
