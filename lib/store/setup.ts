/** Creating the table where it is not made by CloudFormation: local service and tests. */
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { tableKeySchema } from './table';

export async function ensureTable(client: DynamoDBClient, table: string): Promise<void> {
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: table }));
    if (out.Table?.TableStatus === 'ACTIVE') return;
  } catch (e) {
    if (!(e instanceof ResourceNotFoundException)) throw e;
    await client.send(new CreateTableCommand({ TableName: table, ...structuredClone(tableKeySchema) }));
  }
  for (let i = 0; i < 200; i++) {
    const out = await client.send(new DescribeTableCommand({ TableName: table }));
    const indexesActive = (out.Table?.GlobalSecondaryIndexes ?? []).every((g) => g.IndexStatus === 'ACTIVE');
    if (out.Table?.TableStatus === 'ACTIVE' && indexesActive) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`table ${table} did not become active`);
}
