/** The store's DynamoDB operations through the official SDK client (tests, tools, benchmarks). */
import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { DynamoApi } from './dynamo-api';

export function sdkDynamoApi(client: DynamoDBClient): DynamoApi {
  return {
    getItem: (i) => client.send(new GetItemCommand(i)),
    updateItem: (i) => client.send(new UpdateItemCommand(i)),
    deleteItem: (i) => client.send(new DeleteItemCommand(i)),
    query: (i) => client.send(new QueryCommand(i)),
    batchWriteItem: (i) => client.send(new BatchWriteItemCommand(i)),
  };
}
