/** The store's DynamoDB operations through the official SDK client (tests, tools, benchmarks). */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { ConditionFailed, TransactionCancelled, type DynamoApi } from './dynamo-api';

export function sdkDynamoApi(client: DynamoDBClient): DynamoApi {
  return {
    getItem: (i) => client.send(new GetItemCommand(i)),
    updateItem: (i) => client.send(new UpdateItemCommand(i)).catch(conditional),
    deleteItem: (i) => client.send(new DeleteItemCommand(i)).catch(conditional),
    query: (i) => client.send(new QueryCommand(i)),
    batchWriteItem: (i) => client.send(new BatchWriteItemCommand(i)),
    batchGetItem: (i) => client.send(new BatchGetItemCommand(i)),
    transactWriteItems: async (i) => {
      try {
        await client.send(new TransactWriteItemsCommand(i));
      } catch (e) {
        if (!(e instanceof TransactionCanceledException)) throw e;
        throw new TransactionCancelled((e.CancellationReasons ?? []).map((r) => r.Code ?? 'None'));
      }
    },
  };
}

function conditional(e: unknown): never {
  throw e instanceof ConditionalCheckFailedException ? new ConditionFailed() : e;
}
