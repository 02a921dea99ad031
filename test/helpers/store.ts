/** A real DynamoDB-compatible server for tests: dynalite in memory, one table per call. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { readEnvironment } from '../../lib/config';
import { dynamoApi } from '../../lib/composition';
import { DynamoStore } from '../../lib/store/dynamo-store';
import { sdkDynamoApi } from '../../lib/store/sdk-api';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded';
import { ensureTable } from '../../lib/store/setup';

let shared: Promise<EmbeddedDynamo> | undefined;

export function dynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 3,
  });
}

/**
 * A fresh table on a dynalite server shared by the test file (or at `endpoint`). The store talks
 * through the lean JSON client, as in production, unless `api` is 'sdk'; `client` is always an
 * SDK client, for raw checks.
 */
export async function createTestStore(
  endpoint?: string,
  api: 'lean' | 'sdk' = 'lean',
): Promise<{ store: DynamoStore; client: DynamoDBClient; table: string; endpoint: string }> {
  if (!endpoint) {
    shared ??= startEmbeddedDynamo();
    endpoint = (await shared).endpoint;
  }
  const client = dynamoClient(endpoint);
  const table = `t-${randomBytes(6).toString('hex')}`;
  await ensureTable(client, table);
  const env = { ...readEnvironment({}), dynamoEndpoint: endpoint };
  return { store: new DynamoStore(api === 'sdk' ? sdkDynamoApi(client) : dynamoApi(env), table), client, table, endpoint };
}
