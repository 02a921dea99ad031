/**
 * The audit HMAC: hashedJson replaces every string at any depth (bytes as their base64 text),
 * leaves numbers, booleans and null, keeps only the listed top-level keys clear, and never lets a
 * `__proto__` or `constructor` key reach a prototype. AuditHasher keeps one key per table, sealed,
 * the same for every function that opens it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuditHasher, TOO_DEEP, hashedJson } from '../../lib/audit/hasher';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { Sealer, isSealed } from '../../lib/keys/sealed';
import { createTestStore } from '../helpers/store';

const tag = (s: string) => `H(${s})`;

/** The hashed value, parsed back. */
const hashed = (v: unknown, clear?: readonly string[]) => JSON.parse(hashedJson(v, tag, clear)) as unknown;

describe('hashedJson', () => {
  it('hashes strings in nested objects and arrays, keeping numbers, booleans and null', () => {
    const out = hashed({ a: 'x', n: 3, b: true, z: null, list: ['y', 4, { deep: ['z'] }], o: { p: { q: 'w' } } });
    expect(out).toEqual({ a: 'H(x)', n: 3, b: true, z: null, list: ['H(y)', 4, { deep: ['H(z)'] }], o: { p: { q: 'H(w)' } } });
  });

  it('hashes a bare string, and bytes as their base64 text', () => {
    expect(hashed('secret')).toBe('H(secret)');
    const bytes = new Uint8Array([0, 1, 2, 250]);
    expect(hashed({ body: bytes, buf: Buffer.from('kv value') })).toEqual({
      body: `H(${Buffer.from(bytes).toString('base64')})`,
      buf: `H(${Buffer.from('kv value').toString('base64')})`,
    });
  });

  it('keeps only top-level clear keys clear: the same key deeper down is hashed', () => {
    const out = hashed({ role: 'web', nested: { role: 'db' }, list: [{ role: 'x' }], other: 'o' }, ['role', 'nested']);
    expect(out).toEqual({ role: 'web', nested: { role: 'db' }, list: [{ role: 'H(x)' }], other: 'H(o)' });
    expect(hashed({ outer: { role: 'db' } }, ['role'])).toEqual({ outer: { role: 'H(db)' } });
  });

  it('writes __proto__ and constructor keys as plain data, hashed, touching no prototype', () => {
    const input = JSON.parse(
      '{"__proto__":{"polluted":"yes","x":"s"},"constructor":{"prototype":{"polluted":"yes"}},"toString":"t"}',
    ) as unknown;
    expect(hashedJson(input, tag)).toBe(
      '{"__proto__":{"polluted":"H(yes)","x":"H(s)"},"constructor":{"prototype":{"polluted":"H(yes)"}},"toString":"H(t)"}',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A clear __proto__ key stays clear.
    expect(hashedJson(input, tag, ['__proto__'])).toContain('"__proto__":{"polluted":"yes","x":"s"}');
  });

  it('does not treat a clear key as inherited: "constructor" or "toString" is clear only when listed', () => {
    expect(hashed({ constructor: 'c', toString: 't' }, [])).toEqual({ constructor: 'H(c)', toString: 'H(t)' });
  });

  it('writes what JSON.stringify writes when nothing is hashed', () => {
    const same = (s: string) => s;
    const v = {
      'a"b': 'q"uote\\',
      nl: 'line\nbreak',
      u: 'é€😀',
      n: -1.5e-7,
      nan: NaN,
      inf: Infinity,
      t: false,
      z: null,
      skip: undefined,
      f: () => 1,
      list: [undefined, 1, 'x', [[]], {}],
      date: new Date(0),
      o: { k: { j: 'v' } },
    };
    expect(hashedJson(v, same)).toBe(JSON.stringify(v));
    expect(hashedJson([], same)).toBe('[]');
    expect(hashedJson(undefined, same)).toBe('null');
  });

  it('hashes a Date as its ISO text, and writes a bigint as its decimal text', () => {
    expect(hashed({ at: new Date(0), big: 12345678901234567890n })).toEqual({
      at: 'H(1970-01-01T00:00:00.000Z)',
      big: '12345678901234567890',
    });
  });

  it('hashes an over-deep value whole instead of recursing without end', () => {
    let v: unknown = 'leaf';
    for (let i = 0; i < 100; i++) v = { d: v };
    const text = hashedJson(v, tag);
    expect(text).not.toContain('leaf"');
    expect(text).toContain('H(');
  });

  it('records a value too deep for JSON.stringify (10,000 levels) as a fixed text, without throwing', () => {
    let v: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) v = { d: v };
    const text = hashedJson({ ok: 'x', deep: v }, tag);
    expect(text).toContain(`H(${TOO_DEEP})`);
    expect(text).not.toContain('leaf');
    expect(JSON.parse(text)).toHaveProperty('ok', 'H(x)');
  });

  it('leaves the input untouched', () => {
    const input = { a: 'x', o: { b: ['y'] } };
    hashedJson(input, tag);
    expect(input).toEqual({ a: 'x', o: { b: ['y'] } });
  });
});

describe('AuditHasher', () => {
  const sealerWith = (key = randomBytes(32)) => new Sealer(new LocalKeyWrapper(key));

  it('answers hmac-sha256:<hex>, stable for one value, different for another', async () => {
    const { store } = await createTestStore();
    const h = new AuditHasher(store.partition('sys'), sealerWith());
    const a = await h.hash('token-a');
    expect(a).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(await h.hash('token-a')).toBe(a);
    expect(await h.hash('token-b')).not.toBe(a);
    const fn = await h.hashFn();
    expect(fn('token-a')).toBe(a);
  });

  it('stores the key sealed, and is an HMAC-SHA256 under that key', async () => {
    const { store } = await createTestStore();
    const part = store.partition('sys');
    const sealer = sealerWith();
    const h = new AuditHasher(part, sealer);
    const hashed = await h.hash('value');
    const item = await part.get<unknown>('config/audit-hmac-key');
    expect(isSealed(item?.value)).toBe(true);
    const key = await sealer.open(item!.value as never, 'config/audit-hmac-key');
    expect(hashed).toBe('hmac-sha256:' + createHmac('sha256', key).update('value').digest('hex'));
  });

  it('gives every function on the table the same key: concurrent first uses agree', async () => {
    const { store } = await createTestStore();
    const wrapKey = randomBytes(32);
    const hashers = Array.from({ length: 6 }, () => new AuditHasher(store.partition('sys'), sealerWith(wrapKey)));
    const hashes = await Promise.all(hashers.map((h) => h.hash('root-token')));
    expect(new Set(hashes).size).toBe(1);
    // A later instance (a cold start) reads the same key.
    expect(await new AuditHasher(store.partition('sys'), sealerWith(wrapKey)).hash('root-token')).toBe(hashes[0]);
  });

  it('differs between deployments (tables)', async () => {
    const a = await new AuditHasher((await createTestStore()).store.partition('sys'), sealerWith()).hash('x');
    const b = await new AuditHasher((await createTestStore()).store.partition('sys'), sealerWith()).hash('x');
    expect(a).not.toBe(b);
  });
});
