/**
 * The one table's shape, shared by the embedded local store, the tests and the CloudFormation
 * resources (infra/), so there is one definition of it.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export const INDEX_NAME = 'index1';

export const tableKeySchema: Omit<CreateTableCommandInput, 'TableName'> = {
  AttributeDefinitions: [
    { AttributeName: 'pk', AttributeType: 'S' },
    { AttributeName: 'sk', AttributeType: 'S' },
    { AttributeName: 'ipk', AttributeType: 'S' },
    { AttributeName: 'isk', AttributeType: 'S' },
  ],
  KeySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' },
  ],
  GlobalSecondaryIndexes: [
    {
      IndexName: INDEX_NAME,
      KeySchema: [
        { AttributeName: 'ipk', KeyType: 'HASH' },
        { AttributeName: 'isk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    },
  ],
  BillingMode: 'PAY_PER_REQUEST',
};
