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
  tokens = new Tokens(sys, new Sealer(new LocalKeyWrapper(randomBytes(32))), Date.now);
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
