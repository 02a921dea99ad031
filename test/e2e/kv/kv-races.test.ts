/**
 * Check-and-set and max_versions under concurrent writers: three app instances on one
 * DynamoDB-compatible store (dynalite), as Lambda instances are. Of N writers naming the same
 * cas, exactly one wins and the others are refused; N plain writers all land as N versions, and
 * the versions beyond max_versions are gone in the same writes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { kvEngine } from '../../../lib/kv/engine';
import { call } from '../../helpers/service';
import { instancesOnOneStore, type Instances } from '../../helpers/instances';

let inst: Instances;
const on = (i: number, method: string, path: string, body?: unknown) =>
  call(inst.apps[i % inst.apps.length]!, method, `/v1/secret/${path}`, { token: inst.root, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  inst = await instancesOnOneStore([kvEngine], 3);
});

describe('KV v2 under concurrent writers on one store', () => {
  it('exactly one of 12 racers with cas 0 creates the secret; the rest get the check-and-set refusal', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => on(i, 'POST', 'data/race/new', { data: { who: String(i) }, options: { cas: 0 } })),
    );
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.json!.errors).toEqual(['check-and-set parameter did not match the current version']);
    }
    const read = await on(0, 'GET', 'data/race/new');
    expect(read.json!.data.metadata.version).toBe(1);
    expect(read.json!.data.data.who).toBe(String(answers.indexOf(won[0]!)));
  });

  it('exactly one of 12 racers with the current version as cas writes the next one', async () => {
    await on(0, 'POST', 'data/race/next', { data: { v: '1' } });
    await on(1, 'POST', 'data/race/next', { data: { v: '2' } });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => on(i, 'POST', 'data/race/next', { data: { v: `r${i}` }, options: { cas: 2 } })),
    );
    expect(answers.filter((r) => r.status === 200).map((r) => r.json!.data.version)).toEqual([3]);
    expect(answers.filter((r) => r.status === 400)).toHaveLength(11);
    expect((await on(2, 'GET', 'metadata/race/next')).json!.data.current_version).toBe(3);
  });

  it('12 plain racers all land, numbered 1..12, and only the last max_versions are kept', async () => {
    await on(0, 'POST', 'metadata/race/many', { max_versions: 4 });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => on(i, 'POST', 'data/race/many', { data: { i: String(i) } })));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(answers.map((r) => r.json!.data.version as number).sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const meta = (await on(1, 'GET', 'metadata/race/many')).json!.data;
    expect(meta).toMatchObject({ current_version: 12, oldest_version: 9 });
    expect(Object.keys(meta.versions as object).sort()).toEqual(['10', '11', '12', '9']);
    for (const n of [1, 8]) expect((await on(2, 'GET', `data/race/many?version=${n}`)).status).toBe(404);
    expect((await on(2, 'GET', 'data/race/many?version=9')).status).toBe(200);
  });
});
