/**
 * A check-and-set delete that loses a race answers `false` (the store's ConflictError, matched
 * by class), never an error: exactly as before errors lost their HTTP status.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cat, catalogService, type CatalogService } from './helpers';

let svc: CatalogService;
beforeAll(async () => {
  svc = await catalogService();
});

describe('kv cas delete race', () => {
  it('concurrent cas deletes of one index all answer true or false with 200, and the key is gone', async () => {
    for (let round = 0; round < 3; round++) {
      await cat(svc, 'PUT', `/v1/kv/del/race${round}`, { raw: 'v' });
      const [cur] = (await cat(svc, 'GET', `/v1/kv/del/race${round}`)).json as unknown as { ModifyIndex: number }[];
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => cat(svc, 'DELETE', `/v1/kv/del/race${round}?cas=${cur!.ModifyIndex}`)),
      );
      expect(answers.every((a) => a.status === 200 && (a.text === 'true' || a.text === 'false'))).toBe(true);
      expect(answers.some((a) => a.text === 'true')).toBe(true);
      expect((await cat(svc, 'GET', `/v1/kv/del/race${round}`)).status).toBe(404);
    }
  });

  it('a cas write racing a cas delete: one of them loses with false, none errors', async () => {
    await cat(svc, 'PUT', '/v1/kv/del/mixed', { raw: 'v' });
    const [cur] = (await cat(svc, 'GET', '/v1/kv/del/mixed')).json as unknown as { ModifyIndex: number }[];
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => cat(svc, 'DELETE', `/v1/kv/del/mixed?cas=${cur!.ModifyIndex}`)),
      ...Array.from({ length: 6 }, (_, i) => cat(svc, 'PUT', `/v1/kv/del/mixed?cas=${cur!.ModifyIndex}`, { raw: `w${i}` })),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 12 }, () => 200));
    expect(answers.every((a) => a.text === 'true' || a.text === 'false')).toBe(true);
  });
});
