/**
 * The DynamoDB operations the store sends, as an interface with two implementations:
 * the lean JSON client (production: cold start) and the official SDK client (tests and tools).
 * Shapes are the SDK's (type-only imports: nothing of the SDK is loaded by this file).
 */
import type {
  AttributeValue,
  BatchGetItemCommandInput,
  BatchGetItemCommandOutput,
  BatchWriteItemCommandInput,
  BatchWriteItemCommandOutput,
  DeleteItemCommandInput,
  DeleteItemCommandOutput,
  GetItemCommandInput,
  GetItemCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteItemsCommandInput,
  UpdateItemCommandInput,
  UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { AwsError, type AwsJsonClient } from '../aws/json-client';

/** What the store sends (the deployed role must allow each: test/lambda/package.test.ts). */
export const DYNAMO_OPERATIONS = [
  'GetItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'BatchWriteItem',
  'BatchGetItem',
  'TransactWriteItems',
] as const;

/**
 * A conditional write whose condition did not hold, as both implementations report it (the lean
 * client from the protocol's error code, the SDK client from its exception class), so the store
 * matches one class and never an error's name.
 */
export class ConditionFailed extends Error {
  constructor() {
    super('the conditional request failed');
    this.name = 'ConditionFailed';
  }
}

/**
 * A TransactWriteItems that DynamoDB cancelled (TransactionCanceledException), with each item's
 * reason code in request order ('None', 'ConditionalCheckFailed', 'TransactionConflict', ...).
 */
export class TransactionCancelled extends Error {
  constructor(readonly codes: string[]) {
    super(`the transaction was cancelled: ${codes.join(', ')}`);
    this.name = 'TransactionCancelled';
  }
}

type Keys = Record<string, AttributeValue>[];

export interface DynamoApi {
  getItem(input: GetItemCommandInput): Promise<Pick<GetItemCommandOutput, 'Item'>>;
  updateItem(input: UpdateItemCommandInput): Promise<Pick<UpdateItemCommandOutput, 'Attributes'>>;
  deleteItem(input: DeleteItemCommandInput): Promise<Pick<DeleteItemCommandOutput, 'Attributes'>>;
  query(input: QueryCommandInput): Promise<Pick<QueryCommandOutput, 'Items' | 'LastEvaluatedKey'>>;
  batchWriteItem(input: BatchWriteItemCommandInput): Promise<Pick<BatchWriteItemCommandOutput, 'UnprocessedItems'>>;
  batchGetItem(input: BatchGetItemCommandInput): Promise<Pick<BatchGetItemCommandOutput, 'Responses' | 'UnprocessedKeys'>>;
  /** Throws TransactionCancelled when DynamoDB cancels the transaction. */
  transactWriteItems(input: TransactWriteItemsCommandInput): Promise<void>;
}

type Wire = Record<string, unknown>;

/** JSON wire form: binary attribute values travel as base64 strings. */
function toWire(v: unknown): unknown {
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(toWire);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toWire(x)]));
  return v;
}

function attrFromWire(a: Wire): AttributeValue {
  if (typeof a.B === 'string') return { B: Buffer.from(a.B, 'base64') };
  if (Array.isArray(a.BS)) return { BS: a.BS.map((b: string) => Buffer.from(b, 'base64')) };
  if (Array.isArray(a.L)) return { L: a.L.map((x: Wire) => attrFromWire(x)) };
  if (a.M && typeof a.M === 'object') return { M: itemFromWire(a.M as Wire)! };
  // Scalars (S, N, BOOL, NULL, SS, NS) have the same shape on the wire as in the SDK's union.
  return a as unknown as AttributeValue;
}

function itemFromWire(item: Wire | undefined): Record<string, AttributeValue> | undefined {
  if (!item) return undefined;
  return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, attrFromWire(v as Wire)]));
}

export function leanDynamoApi(client: AwsJsonClient): DynamoApi {
  const call = (op: string, input: unknown) =>
    client.call<Wire>(op, toWire(input)).catch((e: unknown) => {
      if (!(e instanceof AwsError)) throw e;
      if (e.code === 'ConditionalCheckFailedException') throw new ConditionFailed();
      if (e.code === 'TransactionCanceledException') throw new TransactionCancelled(e.cancellationCodes ?? []);
      throw e;
    });
  return {
    getItem: async (i) => ({ Item: itemFromWire((await call('GetItem', i)).Item as Wire | undefined) }),
    updateItem: async (i) => ({ Attributes: itemFromWire((await call('UpdateItem', i)).Attributes as Wire | undefined) }),
    deleteItem: async (i) => ({ Attributes: itemFromWire((await call('DeleteItem', i)).Attributes as Wire | undefined) }),
    query: async (i) => {
      const out = await call('Query', i);
      return {
        Items: ((out.Items as Wire[] | undefined) ?? []).map((x) => itemFromWire(x)!),
        LastEvaluatedKey: itemFromWire(out.LastEvaluatedKey as Wire | undefined),
      };
    },
    batchGetItem: async (i) => {
      const out = await call('BatchGetItem', i);
      const items = (out.Responses ?? {}) as Record<string, Wire[]>;
      const unprocessed = (out.UnprocessedKeys ?? {}) as Record<string, Wire>;
      return {
        Responses: Object.fromEntries(Object.entries(items).map(([table, list]) => [table, list.map((x) => itemFromWire(x)!)])),
        UnprocessedKeys: Object.fromEntries(
          Object.entries(unprocessed).map(([table, ka]) => [
            table,
            { ...ka, Keys: (ka.Keys as Wire[]).map((k) => itemFromWire(k)!) as Keys },
          ]),
        ),
      };
    },
    transactWriteItems: async (i) => void (await call('TransactWriteItems', i)),
    batchWriteItem: async (i) => {
      const out = await call('BatchWriteItem', i);
      const unprocessed = (out.UnprocessedItems ?? {}) as Record<string, Wire[]>;
      return {
        UnprocessedItems: Object.fromEntries(
          Object.entries(unprocessed).map(([table, reqs]) => [
            table,
            reqs.map((r) => ({
              ...(r.PutRequest ? { PutRequest: { Item: itemFromWire((r.PutRequest as Wire).Item as Wire)! } } : {}),
              ...(r.DeleteRequest ? { DeleteRequest: { Key: itemFromWire((r.DeleteRequest as Wire).Key as Wire)! } } : {}),
            })),
          ]),
        ),
      };
    },
  };
}
