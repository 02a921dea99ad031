/**
 * Pure builders of the items of a TransactWriteItems request (lib/store/dynamo-transact.ts sends).
 */
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { putParams } from './dynamo-params';
import type { TransactWrite } from './store';
import { isCheck, isPut } from './transact-check';

/**
 * What a write expects of its item when it lands: absent, or at version `ver` with chunks of
 * generation `gen` (undefined: no chunks). A put or a delete always pins the chunk generation,
 * so that the old value's chunks are known and can be deleted after the transaction.
 */
export type Expect = { absent: true } | { absent?: false; ver: number; gen?: string };

const N = (n: number): AttributeValue => ({ N: String(n) });
const key = (w: TransactWrite) => ({ pk: { S: w.partition }, sk: { S: w.key } });

/** The condition expression and its values for `expect`; a check ignores chunks. */
export function condition(expect: Expect, withChunks: boolean): { expr: string; values: Record<string, AttributeValue> } {
  if (expect.absent) return { expr: 'attribute_not_exists(pk)', values: {} };
  const values: Record<string, AttributeValue> = { ':expected': N(expect.ver) };
  if (!withChunks) return { expr: 'ver = :expected', values };
  if (expect.gen === undefined) return { expr: 'ver = :expected AND attribute_not_exists(gen)', values };
  values[':oldgen'] = { S: expect.gen };
  return { expr: 'ver = :expected AND gen = :oldgen', values };
}

/** One item of the request: an Update for a put (as Partition.put), a Delete, or a ConditionCheck. */
export function transactItem(table: string, w: TransactWrite, text: string | undefined, expect: Expect): TransactWriteItem {
  const c = condition(expect, !isCheck(w));
  if (isPut(w)) {
    const p = putParams(table, w.partition, w.key, { inline: text!, ...(w.index !== undefined ? { index: w.index } : {}) });
    return {
      Update: {
        TableName: table,
        Key: p.Key,
        UpdateExpression: p.UpdateExpression,
        ConditionExpression: c.expr,
        ExpressionAttributeValues: { ...p.ExpressionAttributeValues, ...c.values },
      },
    };
  }
  const values = Object.keys(c.values).length ? { ExpressionAttributeValues: c.values } : {};
  if (isCheck(w)) return { ConditionCheck: { TableName: table, Key: key(w), ConditionExpression: c.expr, ...values } };
  return { Delete: { TableName: table, Key: key(w), ConditionExpression: c.expr, ...values } };
}
