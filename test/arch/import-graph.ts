/**
 * The import graph of lib/: every relative import, export-from and dynamic import() of every
 * lib/**\/*.ts file, type-only ones included (a type import still ties two modules' designs).
 * Read with the TypeScript compiler's own pre-processor, so comments and strings never count.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type Graph = Map<string, string[]>;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** lib-relative file -> the lib files it imports. */
export function importGraph(root: string): Graph {
  const graph: Graph = new Map();
  for (const file of tsFiles(root)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => resolveImport(file, f.fileName))
      .filter((t): t is string => t !== undefined && t.startsWith(root));
    graph.set(relative(root, file), [...new Set(targets.map((t) => relative(root, t)))]);
  }
  return graph;
}

/** Every strongly connected group of more than one file (or a file importing itself), each sorted. */
export function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}
