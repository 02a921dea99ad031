/**
 * The reference catalog's `?filter` grammar (its boolean-expression library), parsed by
 * recursive descent in the grammar's own order:
 *
 *   Or    := And ("or" Or)?          And := Not ("and" And)?
 *   Not   := "not" Not | "(" Or ")" | Match
 *   Match := Selector ("==" | "!=" | "contains" | "not contains" | "matches" | "not matches") Value
 *          | Selector "is" ["not"] ("empty" | "nil")
 *          | Value ("in" | "not in") Selector
 *   Selector := Ident ("." Ident | "." Digits | "[" String "]")* | "\"/json/pointer\""
 *   Value    := Selector (its text) | Number | String ("…" or `…`)
 *
 * Collection expressions (`any`/`all … as …`) are refused with a 400 naming them.
 */
import { InvalidInput } from '../../domain-errors';

export type MatchOp = '==' | '!=' | 'in' | 'not in' | 'is empty' | 'is not empty' | 'matches' | 'not matches' | 'is nil' | 'is not nil';

export type Expr =
  | { kind: 'or' | 'and'; left: Expr; right: Expr }
  | { kind: 'not'; operand: Expr }
  | { kind: 'match'; selector: string[]; op: MatchOp; value?: string };

export const MAX_FILTER_LENGTH = 4096;
const MAX_DEPTH = 256;
const IDENT = /[A-Za-z][A-Za-z0-9_/]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?=[\s)]|$)/y;
const SPACE = /[ \t\r\n]*/y;
const POINTER_SEGMENT = /^[\p{L}\p{N}\-_.~:|]+$/u;

export function filterError(message: string): InvalidInput {
  return new InvalidInput(`Failed to create boolean expression evaluator: ${message}`);
}

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly text: string) {}

  fail(what: string): never {
    throw filterError(`${what} at position ${this.pos + 1}`);
  }

  private skip(): void {
    SPACE.lastIndex = this.pos;
    SPACE.exec(this.text);
    this.pos = SPACE.lastIndex;
  }

  private peekWord(): string | undefined {
    this.skip();
    IDENT.lastIndex = this.pos;
    return IDENT.exec(this.text)?.[0];
  }

  /** Consumes the keyword sequence (each a whole word) when it comes next. */
  private keywords(...words: string[]): boolean {
    const start = this.pos;
    for (const w of words) {
      if (this.peekWord() !== w) {
        this.pos = start;
        return false;
      }
      this.pos += w.length;
    }
    return true;
  }

  private symbol(s: string): boolean {
    this.skip();
    if (!this.text.startsWith(s, this.pos)) return false;
    this.pos += s.length;
    return true;
  }

  parse(): Expr {
    const e = this.or();
    this.skip();
    if (this.pos < this.text.length) this.fail(`unexpected ${JSON.stringify(this.text.slice(this.pos, this.pos + 16))}`);
    return e;
  }

  private or(): Expr {
    const left = this.and();
    return this.keywords('or') ? { kind: 'or', left, right: this.or() } : left;
  }

  private and(): Expr {
    const left = this.not();
    return this.keywords('and') ? { kind: 'and', left, right: this.and() } : left;
  }

  private not(): Expr {
    if (++this.depth > MAX_DEPTH) this.fail(`more than ${MAX_DEPTH} nested expressions`);
    const e = this.notOrGroup();
    this.depth -= 1;
    return e;
  }

  private notOrGroup(): Expr {
    const w = this.peekWord();
    if (w === 'any' || w === 'all') this.fail(`collection expressions ("${w} … as …") are not supported`);
    if (this.keywords('not')) return { kind: 'not', operand: this.not() };
    if (this.symbol('(')) {
      const inner = this.or();
      if (!this.symbol(')')) this.fail('unmatched parentheses');
      return inner;
    }
    return this.match();
  }

  private match(): Expr {
    const start = this.pos;
    const term = this.term();
    if (this.keywords('in') || this.keywords('not', 'in')) {
      const op: MatchOp = this.text.slice(start, this.pos).trimEnd().endsWith('not in') ? 'not in' : 'in';
      return { kind: 'match', selector: this.selector(), op, value: term.text };
    }
    if (!term.path) this.fail('expected a selector');
    return { kind: 'match', selector: term.path, ...this.operator() };
  }

  private operator(): { op: MatchOp; value?: string } {
    if (this.symbol('==')) return { op: '==', value: this.value() };
    if (this.symbol('!=')) return { op: '!=', value: this.value() };
    if (this.keywords('contains')) return { op: 'in', value: this.value() };
    if (this.keywords('not', 'contains')) return { op: 'not in', value: this.value() };
    if (this.keywords('matches')) return { op: 'matches', value: this.value() };
    if (this.keywords('not', 'matches')) return { op: 'not matches', value: this.value() };
    for (const [words, op] of [
      [['is', 'empty'], 'is empty'],
      [['is', 'not', 'empty'], 'is not empty'],
      [['is', 'nil'], 'is nil'],
      [['is', 'not', 'nil'], 'is not nil'],
    ] as const) {
      if (this.keywords(...words)) return { op };
    }
    return this.fail('expected an operator (==, !=, contains, not contains, matches, not matches, is empty, is not empty, in, not in)');
  }

  /** A selector, a number or a string: which it is depends on the operator that follows. */
  private term(): { text: string; path?: string[] } {
    this.skip();
    const c = this.text[this.pos];
    if (c === '"' && this.text[this.pos + 1] === '/') {
      // A JSON-pointer selector when it is one, else (as a value) a plain string.
      const text = this.string();
      const path = pointer(text);
      return path ? { text, path } : { text };
    }
    if (c === '"' || c === '`') return { text: this.string() };
    NUMBER.lastIndex = this.pos;
    const n = NUMBER.exec(this.text);
    if (n) {
      this.pos = NUMBER.lastIndex;
      return { text: n[0] };
    }
    const path = this.selectorPath();
    return { text: path.join('.'), path };
  }

  private value(): string {
    return this.term().text;
  }

  private selector(): string[] {
    const t = this.term();
    if (!t.path) this.fail('invalid selector');
    return t.path;
  }

  private selectorPath(): string[] {
    const first = this.peekWord();
    if (!first) this.fail('expected a selector or a value');
    this.pos += first.length;
    const path = [first];
    for (;;) {
      if (this.text[this.pos] === '.') {
        const m = /^\.([A-Za-z][A-Za-z0-9_/]*|[0-9]+)/.exec(this.text.slice(this.pos));
        if (!m?.[1]) this.fail('expected a name after "."');
        path.push(m[1]);
        this.pos += m[0].length;
      } else if (this.text[this.pos] === '[') {
        this.pos += 1;
        this.skip();
        const c = this.text[this.pos];
        if (c !== '"' && c !== '`') this.fail('invalid index');
        path.push(this.string());
        if (!this.symbol(']')) this.fail('unclosed index expression');
      } else {
        return path;
      }
    }
  }

  /** A "double-quoted" (escapes as in Go) or `raw` string literal. */
  private string(): string {
    const quote = this.text[this.pos];
    const end = this.text.indexOf(quote ?? '', this.pos + 1);
    if (end === -1) this.fail('unterminated string literal');
    const body = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    return quote === '`' ? body : unescape(body, this);
  }
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v' };

function unescape(body: string, p: Parser): string {
  return body.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.?)/g, (_, e: string) => {
    if (e.length > 1) return String.fromCharCode(parseInt(e.slice(1), 16));
    const out = Object.hasOwn(ESCAPES, e) ? ESCAPES[e] : undefined;
    return out ?? p.fail(`invalid escape "\\${e}" in a string literal`);
  });
}

/** A JSON-pointer selector, "/Meta/env": its segments (~1 is "/", ~0 is "~"); undefined if it is none. */
function pointer(text: string): string[] | undefined {
  const parts = text.slice(1).split('/');
  if (!parts.every((s) => POINTER_SEGMENT.test(s))) return undefined;
  return parts.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function parseFilter(text: string): Expr {
  if (text.length > MAX_FILTER_LENGTH) throw filterError(`the expression is longer than ${MAX_FILTER_LENGTH} characters`);
  if (text.trim() === '') throw filterError('the expression is empty');
  return new Parser(text).parse();
}
