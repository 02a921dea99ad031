/**
 * The environment a deployed function reads at module scope, pointed at a fresh dynalite table
 * and a local key file, for tests that import functions/*.ts and invoke their handlers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDynamo } from '../../lib/store/embedded';
import { ensureTable } from '../../lib/store/setup';
import { dynamoClient } from './store';

export interface LambdaEnvironment {
  close(): Promise<void>;
}

/** Sets TABLE_NAME, DYNAMODB_ENDPOINT, LOCAL_KEY_FILE, AWS_REGION (and unsets KMS_KEY_ID); import the function after. */
export async function lambdaEnvironment(table: string): Promise<LambdaEnvironment> {
  const dynamo = await startEmbeddedDynamo();
  const dir = mkdtempSync(join(tmpdir(), `${table}-`));
  process.env.TABLE_NAME = table;
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.LOCAL_KEY_FILE = join(dir, 'local.key');
  process.env.AWS_REGION = 'us-east-1';
  delete process.env.KMS_KEY_ID;
  await ensureTable(dynamoClient(dynamo.endpoint), table);
  return {
    close: async () => {
      await dynamo.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
