/**
 * Tokens.create (lib/sys/tokens.ts) makes a token carrying the root policy, in any case, only when
 * its maker says `allowRoot` (initialisation, generate-root, auth/token/create by a root caller);
 * a refusal writes nothing. On a real store (dynalite).
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Forbidden } from '../../lib/domain-errors';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { Sealer } from '../../lib/keys/sealed';
import type { Partition } from '../../lib/store/store';
import { Tokens, type CreateTokenInput } from '../../lib/sys/tokens';
import { createTestStore } from '../helpers/store';

let sys: Partition;
let tokens: Tokens;
const sealer = new Sealer(new LocalKeyWrapper(randomBytes(32)));

const input = (policies: string[]): CreateTokenInput => ({
  policies,
  display_name: 'test',
  meta: {},
  num_uses: 0,
  ttl: 3600,
  explicit_max_ttl: 0,
  renewable: true,
  parent: '',
  path: 'auth/token/create',
});

/** Every key of the sys partition but the HMAC key: accessors, path and parent links, token records. */
async function keys(): Promise<string[]> {
  const all: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await sys.listKeys('', { limit: 1000, ...(cursor ? { cursor } : {}) });
    all.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return all.filter((k) => k !== 'config/token-hmac-key');
}

beforeAll(async () => {
  const { store } = await createTestStore();
  sys = store.partition('sys');
  tokens = new Tokens(sys, sealer, Date.now);
  await tokens.ensureKey();
});

describe('Tokens.create and root', () => {
  it.each([[['root']], [['ROOT']], [['Root']], [['default', 'root']], [['dev', 'rOoT', 'default']]])(
    'refuses %j without allowRoot (Forbidden, naming the rule) and writes nothing',
    async (policies) => {
      const before = await keys();
      const made = tokens.create(input(policies));
      await expect(made).rejects.toBeInstanceOf(Forbidden);
      await expect(made).rejects.toThrow(/^auth methods cannot create root tokens$/);
      expect(await keys()).toEqual(before);
    },
  );

  it('refuses root without allowRoot even under a root parent', async () => {
    const parent = await tokens.create({ ...input(['root']), allowRoot: true });
    const before = await keys();
    await expect(tokens.create({ ...input(['root']), parent: parent.record.accessor })).rejects.toBeInstanceOf(Forbidden);
    expect(await keys()).toEqual(before);
  });

  it('makes a root token with allowRoot; it looks up with the root policy', async () => {
    const { token, record } = await tokens.create({ ...input(['root']), allowRoot: true });
    expect(record.policies).toEqual(['root']);
    expect((await tokens.lookup(token))?.record).toMatchObject({ accessor: record.accessor, policies: ['root'] });
  });

  it('makes tokens without root with or without allowRoot', async () => {
    for (const extra of [{}, { allowRoot: true as const }]) {
      const { token, record } = await tokens.create({ ...input(['default', 'dev', 'rooted']), ...extra });
      expect(record.policies).toEqual(['default', 'dev', 'rooted']);
      expect((await tokens.lookup(token))?.record.policies).toEqual(['default', 'dev', 'rooted']);
    }
  });
});

describe('the token check reads ahead (issue 30)', () => {
  /** A Tokens whose reads together are counted: one getMany per lookup when nothing is cached. */
  function counted() {
    const batches: string[][] = [];
    const t = new Tokens(sys, sealer, Date.now, (ks) => {
      batches.push(ks);
      return Promise.all(ks.map((k) => sys.get(k)));
    });
    return { t, batches };
  }

  it('reads the accessor items of a token and its ancestors, and what the caller asks, in one batch', async () => {
    process.env.AUTH_CACHE_MS = '0';
    try {
      const { t, batches } = counted();
      await t.ensureKey();
      const a = await t.create(input(['default']));
      const b = await t.create({ ...input(['default']), parent: a.record.accessor, ancestors: [a.record.accessor] });
      const c = await t.create({ ...input(['default']), parent: b.record.accessor, ancestors: [b.record.accessor, a.record.accessor] });
      expect(c.record.ancestors).toEqual([b.record.accessor, a.record.accessor]);
      const found = await t.lookup(c.token, () => ['policy/default']);
      expect(found?.record.accessor).toBe(c.record.accessor);
      expect(batches).toEqual([
        [`accessor/${c.record.accessor}`, `accessor/${b.record.accessor}`, `accessor/${a.record.accessor}`, 'policy/default'],
      ]);
      // Revoking an ancestor kills the grandchild, read ahead or not.
      await t.revoke(a.record);
      expect(await t.lookup(c.token)).toBeUndefined();
    } finally {
      delete process.env.AUTH_CACHE_MS;
    }
  });

  it('follows the accessor items, not the record: an orphaned child stays live though its record names the revoked parent', async () => {
    const { t } = counted();
    await t.ensureKey();
    const a = await t.create(input(['default']));
    const b = await t.create({ ...input(['default']), parent: a.record.accessor, ancestors: [a.record.accessor] });
    await t.revoke(a.record, { orphanChildren: true });
    expect(await t.lookup(a.token)).toBeUndefined();
    expect((await t.lookup(b.token))?.record.accessor).toBe(b.record.accessor);
  });
});
