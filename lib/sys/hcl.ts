/**
 * A reader for the HCL (version 1) subset that policy documents are written in: `key = value`
 * items, labelled blocks (`path "secret/*" { ... }`), strings, numbers, booleans, lists,
 * objects, heredocs and the three comment styles. JSON is HCL too, so both arrive here and come
 * out as one tree of items; repeated keys stay repeated (a policy may name a path twice).
 */
import { InvalidInput } from '../domain-errors';

export type HclValue = string | number | boolean | HclValue[] | HclObject;
export interface HclItem {
  /** The key followed by its labels: `path "a/*" { }` is ["path", "a/*"]. */
  keys: string[];
  value: HclValue;
}
export interface HclObject {
  items: HclItem[];
}

export const isHclObject = (v: HclValue): v is HclObject => typeof v === 'object' && !Array.isArray(v);

const MAX_DEPTH = 32;

/** Parses HCL text; 400 naming the line on a syntax error. */
export function parseHcl(text: string): HclObject {
  const p = new Parser(text);
  const items = p.items(0, true);
  return { items };
}

/** The same tree from a parsed JSON value (objects become items, in order). */
export function fromJson(value: unknown, depth = 0): HclValue {
  if (depth > MAX_DEPTH) throw new InvalidInput('failed to parse policy: the document is nested too deeply');
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((v) => fromJson(v, depth + 1));
  if (value && typeof value === 'object') {
    return { items: Object.entries(value).map(([k, v]) => ({ keys: [k], value: fromJson(v, depth + 1) })) };
  }
  throw new InvalidInput('failed to parse policy: null is not a value');
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  private fail(what: string): never {
    const line = this.s.slice(0, this.i).split('\n').length;
    throw new InvalidInput(`failed to parse policy: line ${line}: ${what}`);
  }

  /** Skips white space and comments; returns the next character ('' at the end). */
  private peek(): string {
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) return '';
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') this.i++;
      else if (c === '#' || (c === '/' && this.s[this.i + 1] === '/')) {
        const end = this.s.indexOf('\n', this.i);
        this.i = end === -1 ? this.s.length : end;
      } else if (c === '/' && this.s[this.i + 1] === '*') {
        const end = this.s.indexOf('*/', this.i + 2);
        if (end === -1) this.fail('unterminated comment');
        this.i = end + 2;
      } else return c;
    }
  }

  items(depth: number, top: boolean): HclItem[] {
    if (depth > MAX_DEPTH) this.fail('nested too deeply');
    const out: HclItem[] = [];
    for (;;) {
      const c = this.peek();
      if (c === '') {
        if (!top) this.fail('missing "}"');
        return out;
      }
      if (c === '}') {
        if (top) this.fail('unexpected "}"');
        this.i++;
        return out;
      }
      if (c === ',') {
        this.i++;
        continue;
      }
      out.push(this.item(depth));
    }
  }

  private item(depth: number): HclItem {
    const keys = [this.key()];
    for (;;) {
      const c = this.peek();
      if (c === '=' || c === ':') {
        this.i++;
        if (keys.length > 1) this.fail(`"${keys[0]}" has labels and must be followed by a block`);
        return { keys, value: this.value(depth) };
      }
      if (c === '{') {
        this.i++;
        return { keys, value: { items: this.items(depth + 1, false) } };
      }
      if (c === '"' || /[A-Za-z_]/.test(c)) keys.push(this.key());
      else this.fail(`expected "=" or "{" after "${keys[0]}"`);
    }
  }

  private key(): string {
    const c = this.peek();
    if (c === '"') return this.string();
    const m = /^[A-Za-z_][A-Za-z0-9_.-]*/.exec(this.s.slice(this.i, this.i + 256));
    if (!m) this.fail('expected a key');
    this.i += m[0].length;
    return m[0];
  }

  private value(depth: number): HclValue {
    if (depth > MAX_DEPTH) this.fail('nested too deeply');
    const c = this.peek();
    if (c === '"') return this.string();
    if (c === '[') return this.list(depth);
    if (c === '{') {
      this.i++;
      return { items: this.items(depth + 1, false) };
    }
    if (c === '<' && this.s.startsWith('<<', this.i)) return this.heredoc();
    const word = /^(true|false|-?\d+(\.\d+)?([eE][+-]?\d+)?)(?![A-Za-z0-9_])/.exec(this.s.slice(this.i, this.i + 64));
    if (!word) this.fail('expected a value');
    this.i += word[0].length;
    return word[0] === 'true' ? true : word[0] === 'false' ? false : Number(word[0]);
  }

  private list(depth: number): HclValue[] {
    this.i++;
    const out: HclValue[] = [];
    for (;;) {
      const c = this.peek();
      if (c === ']') {
        this.i++;
        return out;
      }
      if (c === '') this.fail('missing "]"');
      out.push(this.value(depth + 1));
      const next = this.peek();
      if (next === ',') this.i++;
      else if (next !== ']') this.fail('expected "," or "]" in a list');
    }
  }

  private string(): string {
    let out = '';
    this.i++;
    for (;;) {
      const c = this.s[this.i++];
      if (c === undefined || c === '\n') this.fail('unterminated string');
      if (c === '"') return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.s[this.i++];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/' };
      if (e !== undefined && simple[e] !== undefined) out += simple[e];
      else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.s.slice(this.i, this.i + 4))) {
        out += String.fromCharCode(parseInt(this.s.slice(this.i, this.i + 4), 16));
        this.i += 4;
      } else this.fail('invalid escape in a string');
    }
  }

  private heredoc(): string {
    const m = /^<<(-?)([A-Za-z_][A-Za-z0-9_]*)\r?\n/.exec(this.s.slice(this.i, this.i + 80));
    if (!m) this.fail('invalid heredoc');
    this.i += m[0].length;
    const lines: string[] = [];
    for (;;) {
      if (this.i >= this.s.length) this.fail(`heredoc without its closing "${m[2]}"`);
      const end = this.s.indexOf('\n', this.i);
      const line = this.s.slice(this.i, end === -1 ? this.s.length : end).replace(/\r$/, '');
      this.i = end === -1 ? this.s.length : end + 1;
      if (line.trim() === m[2]) return lines.join('\n') + (lines.length ? '\n' : '');
      lines.push(line);
    }
  }
}
