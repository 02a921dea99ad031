import { beforeAll, describe, expect, it } from 'vitest';
import { cat, catalogService, type CatalogService } from './helpers';

let svc: CatalogService;
beforeAll(async () => {
  svc = await catalogService();
});

const put = (key: string, value: string | Uint8Array, query = '') => cat(svc, 'PUT', `/v1/kv/${key}${query}`, { raw: value });

describe('kv', () => {
  it('stores a raw value and reads it back as the reference shape', async () => {
    const w = await put('app/config', 'hello world', '?flags=42');
    expect(w).toMatchObject({ status: 200, text: 'true' });
    const r = await cat(svc, 'GET', '/v1/kv/app/config');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    const [entry] = r.json as unknown as Record<string, unknown>[];
    expect(entry).toMatchObject({ Key: 'app/config', Flags: 42, LockIndex: 0, Value: Buffer.from('hello world').toString('base64') });
    expect(entry!.CreateIndex).toBe(entry!.ModifyIndex);
    expect(Number(r.headers.get('x-catalog-index'))).toBeGreaterThanOrEqual(entry!.ModifyIndex as number);
    expect(r.headers.get('x-consul-index')).toBe(r.headers.get('x-catalog-index'));
    expect(r.text).not.toContain('\n');
  });

  it('keeps CreateIndex and moves ModifyIndex on overwrite', async () => {
    await put('idx/a', 'one');
    const first = (await cat(svc, 'GET', '/v1/kv/idx/a')).json as unknown as { CreateIndex: number; ModifyIndex: number }[];
    await put('idx/a', 'two');
    const second = (await cat(svc, 'GET', '/v1/kv/idx/a')).json as unknown as { CreateIndex: number; ModifyIndex: number }[];
    expect(second[0]!.CreateIndex).toBe(first[0]!.CreateIndex);
    expect(second[0]!.ModifyIndex).toBeGreaterThan(first[0]!.ModifyIndex);
  });

  it('answers ?raw with the bytes alone: text/plain, or binary when not UTF-8', async () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 255, 10, 13]);
    await put('bin/blob', bytes);
    const res = await svc.catalog.request('http://localhost/v1/kv/bin/blob?raw');
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    await put('text/value', 'plain text ü');
    const text = await svc.catalog.request('http://localhost/v1/kv/text/value?raw');
    expect(text.headers.get('content-type')).toBe('text/plain');
    expect(await text.text()).toBe('plain text ü');
  });

  it('answers 404 with an empty body for a missing key, with the index headers', async () => {
    const r = await cat(svc, 'GET', '/v1/kv/no/such/key');
    expect(r.status).toBe(404);
    expect(r.text).toBe('');
    expect(Number(r.headers.get('x-catalog-index'))).toBeGreaterThan(0);
  });

  it('an empty value reads back as null', async () => {
    await put('empty', '');
    const r = await cat(svc, 'GET', '/v1/kv/empty');
    expect((r.json as unknown as { Value: unknown }[])[0]!.Value).toBeNull();
  });

  it('lists with ?recurse, ?keys and ?separator', async () => {
    for (const k of ['tree/a', 'tree/b/c', 'tree/b/d', 'tree/e/f/g', 'treetop']) await put(k, k);
    const rec = await cat(svc, 'GET', '/v1/kv/tree/?recurse');
    expect((rec.json as unknown as { Key: string }[]).map((e) => e.Key)).toEqual(['tree/a', 'tree/b/c', 'tree/b/d', 'tree/e/f/g']);
    expect((await cat(svc, 'GET', '/v1/kv/tree?keys')).json).toEqual(['tree/a', 'tree/b/c', 'tree/b/d', 'tree/e/f/g', 'treetop']);
    expect((await cat(svc, 'GET', '/v1/kv/tree/?keys&separator=/')).json).toEqual(['tree/a', 'tree/b/', 'tree/e/']);
    expect((await cat(svc, 'GET', '/v1/kv/?keys&separator=/')).json).toEqual(expect.arrayContaining(['tree/', 'treetop', 'app/']));
    expect((await cat(svc, 'GET', '/v1/kv/nothing-here/?recurse')).status).toBe(404);
    expect((await cat(svc, 'GET', '/v1/kv/nothing-here/?keys')).status).toBe(404);
  });

  it('lists more entries than one store page', async () => {
    for (let i = 0; i < 1100; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => put(`many/${String(i + j).padStart(5, '0')}`, 'v')));
    }
    const keys = (await cat(svc, 'GET', '/v1/kv/many/?keys')).json as unknown as string[];
    expect(keys).toHaveLength(1100);
    expect(new Set(keys).size).toBe(1100);
  });

  it('deletes a key, and a tree with ?recurse', async () => {
    await put('del/one', '1');
    await put('del/sub/two', '2');
    await put('delx', 'stays');
    expect((await cat(svc, 'DELETE', '/v1/kv/del/one')).text).toBe('true');
    expect((await cat(svc, 'GET', '/v1/kv/del/one')).status).toBe(404);
    expect((await cat(svc, 'DELETE', '/v1/kv/del/one')).text).toBe('true');
    expect((await cat(svc, 'DELETE', '/v1/kv/del/?recurse')).text).toBe('true');
    expect((await cat(svc, 'GET', '/v1/kv/del/?recurse')).status).toBe(404);
    expect((await cat(svc, 'GET', '/v1/kv/delx')).status).toBe(200);
  });

  it('check-and-set: cas=0 creates only, cas=<ModifyIndex> updates only that version', async () => {
    expect((await put('cas/k', 'a', '?cas=0')).text).toBe('true');
    expect((await put('cas/k', 'b', '?cas=0')).text).toBe('false');
    const [e] = (await cat(svc, 'GET', '/v1/kv/cas/k')).json as unknown as { ModifyIndex: number }[];
    expect((await put('cas/k', 'c', `?cas=${e!.ModifyIndex + 1}`)).text).toBe('false');
    expect((await put('cas/k', 'c', `?cas=${e!.ModifyIndex}`)).text).toBe('true');
    expect((await put('cas/k', 'd', `?cas=${e!.ModifyIndex}`)).text).toBe('false');
    const raw = await cat(svc, 'GET', '/v1/kv/cas/k?raw');
    expect(raw.text).toBe('c');
    const [now] = (await cat(svc, 'GET', '/v1/kv/cas/k')).json as unknown as { ModifyIndex: number }[];
    expect((await cat(svc, 'DELETE', `/v1/kv/cas/k?cas=${e!.ModifyIndex}`)).text).toBe('false');
    expect((await cat(svc, 'DELETE', `/v1/kv/cas/k?cas=${now!.ModifyIndex}`)).text).toBe('true');
    expect((await cat(svc, 'GET', '/v1/kv/cas/k')).status).toBe(404);
  });

  it('many concurrent cas writers on one key: exactly one wins per index, nothing is lost', async () => {
    await put('race/k', '0');
    for (let round = 0; round < 3; round++) {
      const [cur] = (await cat(svc, 'GET', '/v1/kv/race/k')).json as unknown as { ModifyIndex: number }[];
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => put('race/k', `round${round}-writer${i}`, `?cas=${cur!.ModifyIndex}`)),
      );
      const winners = answers.map((a, i) => (a.text === 'true' ? i : -1)).filter((i) => i >= 0);
      expect(answers.every((a) => a.status === 200 && (a.text === 'true' || a.text === 'false'))).toBe(true);
      expect(winners).toHaveLength(1);
      expect((await cat(svc, 'GET', '/v1/kv/race/k?raw')).text).toBe(`round${round}-writer${winners[0]}`);
    }
  });

  it('many concurrent plain writers on one key all succeed; one of their values stays', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => put('plain/race', `w${i}`)));
    expect(answers.map((a) => a.text)).toEqual(Array.from({ length: 30 }, () => 'true'));
    expect((await cat(svc, 'GET', '/v1/kv/plain/race?raw')).text).toMatch(/^w\d+$/);
  });

  it('the index only grows, with every write', async () => {
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      const w = await put('grow/k', String(i));
      seen.push(Number(w.headers.get('x-catalog-index')));
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
  });

  it('?pretty indents the JSON', async () => {
    await put('pretty/k', 'v');
    const r = await cat(svc, 'GET', '/v1/kv/pretty/k?pretty');
    expect(r.text).toContain('\n    ');
  });

  it('keys are URL-decoded', async () => {
    await put('enc/a%20b%3Ac', 'spaced');
    const r = await cat(svc, 'GET', '/v1/kv/enc/?keys');
    expect(r.json).toEqual(['enc/a b:c']);
    expect((await cat(svc, 'GET', '/v1/kv/enc/a%20b:c?raw')).text).toBe('spaced');
  });
});
