import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import type { SealedValue } from '../../lib/keys/sealed';
import {
  addVersion,
  changeVersions,
  checkCas,
  checkCustomMetadata,
  DEFAULT_CONFIG,
  deletionTimeOf,
  isDeleted,
  maxVersionsOf,
  newSecret,
  trim,
  type SecretRecord,
} from '../../lib/kv/records';

const sealed = { $sealed: 1 } as unknown as SealedValue;
const withVersions = (n: number, over: Partial<SecretRecord> = {}) => {
  let s = { ...newSecret(0), ...over };
  for (let i = 0; i < n; i++) s = addVersion(s, DEFAULT_CONFIG, 1000 + i, sealed);
  return s;
};

describe('check-and-set', () => {
  it.each([
    ['cas 0 on a new secret', undefined, 0, false],
    ['cas 1 on a new secret', undefined, 1, 'did not match'],
    ['the current version', 2, 2, false],
    ['an older version', 2, 1, 'did not match'],
    ['a negative one', 2, -1, 'did not match'],
    ['none given, none required', 2, undefined, false],
  ] as const)('%s', (_label, versions, cas, refused) => {
    const secret = versions === undefined ? undefined : withVersions(versions);
    const check = () => checkCas(secret, DEFAULT_CONFIG, cas);
    if (refused) expect(check).toThrow(new RegExp(refused));
    else expect(check).not.toThrow();
  });

  it('is required by the mount or by the secret', () => {
    expect(() => checkCas(withVersions(1), { ...DEFAULT_CONFIG, casRequired: true }, undefined)).toThrow(/required for this call/);
    expect(() => checkCas(withVersions(1, { casRequired: true }), DEFAULT_CONFIG, undefined)).toThrow(InvalidInput);
    expect(() => checkCas(undefined, { ...DEFAULT_CONFIG, casRequired: true }, 0)).not.toThrow();
  });
});

describe('versions kept', () => {
  it('max_versions: the secret, else the mount, else 10', () => {
    expect(maxVersionsOf(newSecret(0), DEFAULT_CONFIG)).toBe(10);
    expect(maxVersionsOf(newSecret(0), { ...DEFAULT_CONFIG, maxVersions: 4 })).toBe(4);
    expect(maxVersionsOf({ ...newSecret(0), maxVersions: 2 }, { ...DEFAULT_CONFIG, maxVersions: 4 })).toBe(2);
  });

  it('oldest_version stays 0 until the window slides, as Vault counts it', () => {
    expect(withVersions(9)).toMatchObject({ currentVersion: 9, oldestVersion: 0 });
    const ten = withVersions(10);
    expect(ten.oldestVersion).toBe(1);
    expect(Object.keys(ten.versions)).toHaveLength(10);
    const twelve = withVersions(12);
    expect(twelve.oldestVersion).toBe(3);
    expect(Object.keys(twelve.versions).map(Number)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('a lowered max_versions drops every version below the window at the next write', () => {
    const s = addVersion({ ...withVersions(8), maxVersions: 2 }, DEFAULT_CONFIG, 5000, sealed);
    expect(Object.keys(s.versions).map(Number)).toEqual([8, 9]);
    expect(s.oldestVersion).toBe(8);
    expect(trim(s, 5)).toBe(s);
  });
});

describe('deletion times', () => {
  it('the smaller non-zero delete_version_after of mount and secret', () => {
    const s = { ...newSecret(0), deleteVersionAfter: 60 };
    expect(deletionTimeOf(1000, DEFAULT_CONFIG, newSecret(0))).toBeNull();
    expect(deletionTimeOf(1000, DEFAULT_CONFIG, s)).toBe(61_000);
    expect(deletionTimeOf(1000, { ...DEFAULT_CONFIG, deleteVersionAfter: 30 }, s)).toBe(31_000);
    expect(deletionTimeOf(1000, { ...DEFAULT_CONFIG, deleteVersionAfter: 300 }, s)).toBe(61_000);
  });

  it('a version reads as deleted from its deletion time on', () => {
    const v = { created: 0, deletion: 100, destroyed: false };
    expect(isDeleted(v, 99)).toBe(false);
    expect(isDeleted(v, 100)).toBe(true);
    expect(isDeleted({ ...v, deletion: null }, 1e12)).toBe(false);
  });

  it('changes named versions and skips unknown ones', () => {
    const s = changeVersions(withVersions(2), [2, 7], (v) => ({ ...v, deletion: 5 }));
    expect(s.versions['2']!.deletion).toBe(5);
    expect(s.versions['1']!.deletion).toBeNull();
    expect(s.versions['7']).toBeUndefined();
  });
});

describe('custom_metadata limits', () => {
  it.each([
    ['65 keys', Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])), /at most 64 keys/],
    ['an empty key', { '': 'v' }, /length of key/],
    ['a key of 129 bytes', { ['k'.repeat(129)]: 'v' }, /length of key/],
    ['a value of 513 bytes', { k: 'v'.repeat(513) }, /length of value/],
    ['an empty value', { k: '' }, /length of value/],
    ['a control character', { k: 'a\nb' }, /unprintable/],
  ])('refuses %s', (_label, meta, message) => {
    expect(() => checkCustomMetadata(meta)).toThrow(message);
  });

  it('takes 64 keys of 128 bytes with values of 512', () => {
    expect(() =>
      checkCustomMetadata(Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`${i}`.padStart(128, 'k'), 'v'.repeat(512)]))),
    ).not.toThrow();
  });
});
