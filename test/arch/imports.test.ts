/**
 * Architecture rules checked on the source: no import circle in lib/, the shared types module
 * imports nothing, policy evaluation does not reach into the HTTP layer, and config, routing and
 * the IaC read one list of engine types and reserved prefixes (infra/surfaces.json).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import surfaces from '../../infra/surfaces.json';
import { ENGINE_TYPES, parseMounts, RESERVED } from '../../lib/config';
import { ENGINES } from '../../lib/engine-list';
import { CATALOG_PREFIXES, functionFor, SYS_PREFIXES } from '../../lib/routing';
import { circles, importGraph } from './import-graph';

const ROOT = join(__dirname, '..', '..');
const LIB = join(ROOT, 'lib');
const require = createRequire(import.meta.url);
const infra = require('../../infra/functions.cjs') as { SYS_PREFIXES: string[]; CATALOG_PREFIXES: string[] };

describe('import graph of lib/', () => {
  const graph = importGraph(LIB);

  it('reads imports, export-from and dynamic imports', () => {
    expect(graph.get('engines.ts')).toContain('engine-list.ts');
    expect(graph.get('engine-list.ts')).toContain('pki/engine.ts');
    expect(graph.get('http/auth.ts')).toContain('types.ts');
  });

  it('finds a circle when there is one', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('keeps the shared types free of dependencies', () => {
    expect(graph.get('types.ts')).toEqual([]);
  });

  it('keeps policy evaluation, the authorizer and the composition root off the HTTP layer', () => {
    for (const file of ['sys/policy-rules.ts', 'sys/acl.ts', 'sys/authorizer.ts', 'deps.ts']) {
      expect({ file, imports: (graph.get(file) ?? []).filter((t) => t.startsWith('http/')) }).toEqual({ file, imports: [] });
    }
  });
});

describe('engine types and reserved prefixes', () => {
  it('config, routing and infra read the same lists from infra/surfaces.json', () => {
    expect(SYS_PREFIXES).toEqual(surfaces.sys_prefixes);
    expect(CATALOG_PREFIXES).toEqual(surfaces.catalog_prefixes);
    expect(infra.SYS_PREFIXES).toEqual(surfaces.sys_prefixes);
    expect(infra.CATALOG_PREFIXES).toEqual(surfaces.catalog_prefixes);
    expect([...RESERVED].sort()).toEqual([...surfaces.sys_prefixes, ...surfaces.catalog_prefixes].sort());
    expect(ENGINE_TYPES).toEqual(surfaces.engine_types);
  });

  it('keeps the catalog prefixes health, status, session and event', () => {
    expect(surfaces.catalog_prefixes).toEqual(expect.arrayContaining(['kv', 'catalog', 'agent', 'health', 'status', 'session', 'event']));
  });

  it('lists no prefix or engine type a second time in the files that read them', () => {
    for (const file of ['lib/config.ts', 'lib/routing.ts', 'infra/functions.cjs']) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      // 'catalog' is also a function's name, which routing returns.
      const words = [
        ...surfaces.catalog_prefixes.filter((w) => w !== 'catalog'),
        ...(file === 'lib/config.ts' ? surfaces.engine_types : []),
      ];
      for (const word of words) {
        expect({ file, listed: text.includes(`'${word}'`) }).toEqual({ file, listed: false });
      }
    }
  });

  it('has one engine module per engine type', () => {
    expect(ENGINES.map((e) => e.type).sort()).toEqual([...surfaces.engine_types].sort());
  });

  it('refuses every reserved prefix as a mount path and routes each to its function', () => {
    for (const p of RESERVED) {
      expect(() => parseMounts([{ path: p, type: 'pki' }])).toThrow(`mount path ${p} is taken`);
      expect(functionFor(`/v1/${p}/x`, [])).toBe(surfaces.sys_prefixes.includes(p) ? 'sys' : 'catalog');
    }
  });
});
