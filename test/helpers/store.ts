/** A real DynamoDB-compatible server for tests: dynalite in memory, one table per call. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { DynamoStore } from '../../lib/store/dynamo-store';
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

/** A fresh table on a dynalite server shared by the test file. */
export async function createTestStore(endpoint?: string): Promise<{ store: DynamoStore; client: DynamoDBClient; table: string }> {
  if (!endpoint) {
    shared ??= startEmbeddedDynamo();
    endpoint = (await shared).endpoint;
  }
  const client = dynamoClient(endpoint);
  const table = `t-${randomBytes(6).toString('hex')}`;
  await ensureTable(client, table);
  return { store: new DynamoStore(client, table), client, table };
}
