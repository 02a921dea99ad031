/** The store's DynamoDB operations through the official SDK client (tests, tools, benchmarks). */
import {
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { ConditionFailed, type DynamoApi } from './dynamo-api';

export function sdkDynamoApi(client: DynamoDBClient): DynamoApi {
  return {
    getItem: (i) => client.send(new GetItemCommand(i)),
    updateItem: (i) => client.send(new UpdateItemCommand(i)).catch(conditional),
    deleteItem: (i) => client.send(new DeleteItemCommand(i)).catch(conditional),
    query: (i) => client.send(new QueryCommand(i)),
    batchWriteItem: (i) => client.send(new BatchWriteItemCommand(i)),
  };
}

function conditional(e: unknown): never {
  throw e instanceof ConditionalCheckFailedException ? new ConditionFailed() : e;
}
