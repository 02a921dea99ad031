/**
 * `k=v` arguments as the vault CLI reads them: `k=v`, `k=@file` (the file's text), `k=-`
 * (stdin's text), `@file` or `-` alone (a JSON object merged in); a key given twice becomes a
 * list. Stdin is read at most once. Anything else is a usage error naming the argument.
 */
import { readFileSync } from 'node:fs';
import type { Json } from '../client/client';
import { UsageError } from './args';
import { readStdin, type Io } from './io';

function readFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

function jsonObject(text: string, from: string): Json {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new UsageError(`${from} is not JSON`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${from} is not a JSON object`);
  return v as Json;
}

export async function parseData(args: string[], io: Io): Promise<Json> {
  const out: Json = {};
  let stdinUsed = false;
  const stdin = async () => {
    if (stdinUsed) throw new UsageError('stdin (-) can be read only once');
    stdinUsed = true;
    return readStdin(io);
  };
  const put = (k: string, v: unknown) => {
    if (!Object.hasOwn(out, k)) out[k] = v;
    else out[k] = Array.isArray(out[k]) ? [...(out[k] as unknown[]), v] : [out[k], v];
  };
  for (const a of args) {
    if (a === '-') {
      Object.assign(out, jsonObject(await stdin(), 'stdin'));
      continue;
    }
    if (a.startsWith('@')) {
      Object.assign(out, jsonObject(readFile(a.slice(1)), a.slice(1)));
      continue;
    }
    const eq = a.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid key/value pair "${a}": format must be key=value`);
    const k = a.slice(0, eq);
    const v = a.slice(eq + 1);
    if (v === '-') put(k, await stdin());
    else if (v.startsWith('@')) put(k, readFile(v.slice(1)));
    else put(k, v.startsWith('\\@') ? v.slice(1) : v);
  }
  return out;
}
