/**
 * Integrity check of the embedded store (tests, and by hand after a crash): every item decodes,
 * every item's index entry is there, every index entry points at an item that names it, and
 * nothing else is stored. Reads the whole store.
 */
import * as K from './level-keys';
import type { LevelStore } from './level-store';

export interface LevelCheck {
  items: number;
  indexEntries: number;
  /** What is wrong, one line each (keys, never values). */
  problems: string[];
}

export async function checkLevelStore(store: LevelStore): Promise<LevelCheck> {
  const out: LevelCheck = { items: 0, indexEntries: 0, problems: [] };
  /** Index entries the items expect, by raw key. */
  const expected = new Set<string>();
  for await (const [raw, value] of store.db.iterator()) {
    const split = K.splitRaw(raw);
    if (raw[0] === K.META) continue;
    if (!split) {
      out.problems.push(`unknown record ${JSON.stringify(raw.toString('latin1'))}`);
      continue;
    }
    const where = JSON.stringify(split.partition);
    if (split.kind === K.HEAD) {
      out.items++;
      const key = split.rest.toString('utf8');
      try {
        const r = K.decodeRecord(value);
        if (!Number.isInteger(r.ver) || r.ver < 1) throw new Error('bad version');
        K.valueOf(r);
        if (r.ix) expected.add(K.indexKey(K.indexBase(split.partition, r.ix[0]), r.ix[1], key).toString('latin1'));
      } catch {
        out.problems.push(`item ${JSON.stringify(key)} in ${where} does not decode`);
      }
    } else {
      out.indexEntries++;
      const id = raw.toString('latin1');
      if (expected.delete(id)) continue;
      out.problems.push(`index entry ${JSON.stringify(id)} in ${where} has no item that names it`);
    }
  }
  for (const id of expected) out.problems.push(`index entry ${JSON.stringify(id)} is missing`);
  return out;
}
