/**
 * The rules of the edge (issue 24), checked on the source of lib/: domain code throws domain
 * errors only, no side table describes a path, a result or a request, engines never build lease
 * records, no import runs back up from sys or the edge to the composition root, and few
 * functions run longer than 40 lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importGraph } from './import-graph';

const LIB = join(import.meta.dirname, '..', '..', 'lib');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : name.endsWith('.ts') ? [full] : [];
  });
}
const rel = (f: string) => relative(LIB, f).split(sep).join('/');
const sources = files(LIB).map((f) => ({ path: rel(f), text: readFileSync(f, 'utf8') }));

/** Wire code: path declarations, the HTTP layer, the catalog's surface. */
const isWire = (path: string) =>
  path.includes('/paths/') || path.startsWith('http/') || path === 'catalog/app.ts' || path.startsWith('catalog/http/');

describe('the edge', () => {
  it('keeps the HTTP error classes (lib/errors.ts) at the wire: domain code throws domain errors', () => {
    const graph = importGraph(LIB);
    const outside = [...graph].filter(([file, to]) => to.includes('errors.ts') && !isWire(file) && file !== 'errors.ts').map(([f]) => f);
    expect(outside).toEqual([]);
  });

  /** Caches kept per store object, which describe no path, result or request. */
  const PER_STORE_CACHES = [
    'ssh/ssh-store.ts',
    'ssh/sign-cache.ts',
    'auth/approle/approle-store.ts',
    'pki/crl.ts',
    'pki/cache.ts',
    'pki/repository.ts',
    'pki/ocsp.ts',
    'kv/record-cache.ts',
  ];

  it('keeps no side table about paths, results or requests (facts live on the declaration, the result or the context)', () => {
    const tables = sources.filter((s) => /new Weak(Map|Set)\b/.test(s.text)).map((s) => s.path);
    expect(tables.filter((p) => !PER_STORE_CACHES.includes(p))).toEqual([]);
    for (const p of PER_STORE_CACHES.filter((p) => tables.includes(p))) {
      expect(sources.find((s) => s.path === p)!.text, p).toMatch(/new WeakMap<(object|Store)\b/);
    }
  });

  it('lets engines return their secrets: no engine builds a lease record (leases.create)', () => {
    const engines = ['pki/', 'ssh/', 'cloud-a/', 'cloud-b/', 'cloud-common/', 'kv/', 'catalog/', 'auth/'];
    const hits = sources.filter((s) => engines.some((e) => s.path.startsWith(e)) && /leases\.create\(/.test(s.text)).map((s) => s.path);
    expect(hits).toEqual([]);
  });

  it('keeps sys and the edge below the composition root and the login methods', () => {
    const graph = importGraph(LIB);
    const up = [...graph]
      .filter(([file]) => file.startsWith('sys/') || file.startsWith('http/'))
      .flatMap(([file, to]) =>
        to.filter((t) => t === 'composition.ts' || t.startsWith('auth/') || t === 'sys-function.ts').map((t) => `${file} -> ${t}`),
      );
    const edgeToSys = [...graph]
      .filter(([file]) => file.startsWith('http/'))
      .flatMap(([file, to]) => to.filter((t) => t.startsWith('sys/')).map((t) => `${file} -> ${t}`));
    expect([...up, ...edgeToSys]).toEqual([]);
  });
});

/** Every function of lib/ longer than `max` lines (first to last line; nested functions on their own). */
function longFunctions(max: number): string[] {
  const out: string[] = [];
  for (const s of sources) {
    const src = ts.createSourceFile(s.path, s.text, ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (ts.isFunctionLike(n) && (n as ts.FunctionLikeDeclaration).body) {
        const from = src.getLineAndCharacterOfPosition(n.getStart()).line;
        const to = src.getLineAndCharacterOfPosition(n.getEnd()).line;
        if (to - from + 1 > max) out.push(`${s.path}:${from + 1} (${to - from + 1} lines)`);
      }
      ts.forEachChild(n, visit);
    };
    visit(src);
  }
  return out;
}

describe('size', () => {
  it('has at most 10 functions longer than 40 lines in lib/', () => {
    const long = longFunctions(40);
    expect(long.length, long.join('\n')).toBeLessThanOrEqual(10);
  });
});
