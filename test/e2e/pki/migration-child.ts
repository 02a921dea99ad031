/**
 * The child of migration-crash.test.ts: runs the PKI migration (the repository's `ready()`, as a
 * first request does) of `pki` then `pki_int` on a version-1 store, and kills itself with
 * SIGKILL at the write it is told: `after <n>`, once the n-th write is acknowledged; `during
 * <n>`, 0-2 ms after the n-th write was started (it may or may not have landed); `none`, not at
 * all (it prints how many writes the migration made). Each write is printed (`put <partition>
 * <key>`) before it starts.
 *
 *   node --import tsx test/e2e/pki/migration-child.ts <dataDir> level <mode> [n]
 *   node --import tsx test/e2e/pki/migration-child.ts <dataDir> dynalite:<endpoint> <mode> [n]
 */
import { writeSync } from 'node:fs';
import { pkiRepository } from '../../../lib/pki/issuer';
import { LevelStore } from '../../../lib/store/level-store';
import type { Partition, Store } from '../../../lib/store/store';
import { depsOn, dynamoStoreAt, pkiPart } from './migration-fixture';

const [dataDir = '', where = '', mode = 'none', n = '0'] = process.argv.slice(2);
const killAt = Number(n);
let writes = 0;

const say = (line: string) => writeSync(1, line + '\n');
const killNow = () => process.kill(process.pid, 'SIGKILL');

/** The partition, its puts counted and the kill placed. */
function counted(part: Partition): Partition {
  return new Proxy(part, {
    get(target, prop) {
      if (prop === 'put') {
        return async (...args: Parameters<Partition['put']>) => {
          writes++;
          say(`put ${target.name} ${args[0]}`);
          const put = target.put(...args);
          if (mode === 'during' && writes === killAt) setTimeout(killNow, Math.random() * 2);
          const version = await put;
          if (mode === 'after' && writes === killAt) killNow();
          return version;
        };
      }
      const v: unknown = Reflect.get(target, prop);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

const store: Store & { close?: () => Promise<void> } = where.startsWith('dynalite:')
  ? dynamoStoreAt(where.slice('dynalite:'.length))
  : await LevelStore.open(`${dataDir}/store`);
const deps = depsOn(store, dataDir);
for (const mount of ['pki', 'pki_int'] as const) await pkiRepository(deps, counted(pkiPart(deps, mount))).ready();
say(`done ${writes}`);
await store.close?.();
