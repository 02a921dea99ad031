/**
 * The regular expressions of `matches` / `not matches`, in the reference catalog's syntax (Go's
 * regexp, which is RE2), run by re2js, a JavaScript port of RE2: no backtracking, so matching
 * takes time linear in the input and one pattern cannot hold the event loop as a backtracking
 * one can. The semantics are Go's `regexp.MatchString`: the pattern may match anywhere in the
 * value; `^`/`$` anchor at the value's ends unless `(?m)`; `.` skips `\n` unless `(?s)`; flags
 * only inline (`(?i)`, `(?m)`, `(?s)`, `(?U)`); `\d`, `\w`, `\s`, `\b` are ASCII.
 *
 * Linear is not yet cheap: compiling costs about the program's size, and matching up to size ×
 * length steps. So a pattern is at most MAX_PATTERN_LENGTH characters, one filter's patterns
 * expand (repetitions counted out, `patternSize`) to at most MAX_PATTERN_SIZE together before
 * anything is compiled, and one answer's matching may take at most MATCH_BUDGET steps, each
 * test charging (value length + 1) × (pattern size + PER_CHARACTER) before it runs. Past any bound, and
 * for what RE2 cannot compile (back-references, lookaround), the filter is a 400 naming it.
 */
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';
import { filterError } from './parse';

export const MAX_PATTERN_LENGTH = 512;
export const MAX_PATTERN_SIZE = 1024;
export const MATCH_BUDGET = 2 ** 22;
/** What any pattern costs per character beyond its size (the DFA's own work), in the same steps. */
const PER_CHARACTER = 32;

/**
 * An estimate of the size of a pattern's compiled program (RE2 instructions; seldom below it,
 * never by more than a few), read from its text before anything is compiled: a literal,
 * class, escape or anchor counts 1; a group its contents plus 2; `*`, `+`, `?`, `|` add 1; a
 * repetition `{n,m}` counts what it repeats n times, and m - n times more with 1 each for the
 * branch (`{n,}`: once more).
 */
export function patternSize(p: string): number {
  const open: number[] = [];
  let sum = 0; // of the innermost open group
  let last = 0; // the last atom, what a repetition applies to
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    const count = c === '{' ? /^\{(\d{1,6})(?:(,)(\d{0,6}))?\}/.exec(p.slice(i, i + 16)) : null;
    if (count) {
      // n copies, then each optional one (or the open-ended star) with a branch of its own.
      const n = Number(count[1]);
      const optional = count[2] === undefined ? 0 : count[3] ? Math.max(Number(count[3]) - n, 0) : 1;
      const repeated = Math.max(last * n + (last + 1) * optional, 1);
      sum += repeated - last;
      last = repeated;
      i += count[0].length;
    } else if (c === '*' || c === '+' || c === '?' || c === '|') {
      sum += 1;
      last += c === '|' ? 0 : 1;
      i += 1;
    } else if (c === '(') {
      open.push(sum);
      sum = 0;
      i += 1;
    } else if (c === ')') {
      last = sum + 2;
      sum = (open.pop() ?? 0) + last;
      i += 1;
    } else {
      const end = c === '\\' ? escapeEnd(p, i) : c === '[' ? classEnd(p, i) : i + 1;
      sum += c === '\\' && p[i + 1] === 'Q' ? end - i : 1; // \Q…\E: each character
      last = 1;
      i = end;
    }
  }
  return open.reduce((a, b) => a + b, sum) + 2;
}

/** Where an escape starting at `i` ends: `\Q…\E`, `\x{…}`, `\p{…}`, `\pL`, `\xHH`, or two characters. */
function escapeEnd(p: string, i: number): number {
  const k = p[i + 1];
  if (k === 'Q') {
    const e = p.indexOf('\\E', i + 2);
    return e === -1 ? p.length : e + 2;
  }
  if ((k === 'x' || k === 'p' || k === 'P') && p[i + 2] === '{') {
    const e = p.indexOf('}', i + 3);
    return e === -1 ? p.length : e + 1;
  }
  if (k === 'p' || k === 'P') return i + 3;
  if (k === 'x') return i + 4;
  return i + 2;
}

/** Where a class starting at `i` ends: after its `]` (a leading `]` is a member; `[:alpha:]`, escapes). */
function classEnd(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '^') j += 1;
  if (p[j] === ']') j += 1;
  while (j < p.length) {
    if (p[j] === ']') return j + 1;
    if (p[j] === '\\') j += 2;
    else if (p.startsWith('[:', j) && p.includes(':]', j + 2)) j = p.indexOf(':]', j + 2) + 2;
    else j += 1;
  }
  return p.length;
}

/** Why RE2 refuses a pattern, said plainly where it is a Perl feature RE2 leaves out. */
function refusalOf(err: RE2JSException): string {
  if (err instanceof RE2JSSyntaxException) {
    const at = err.getPattern() ?? '';
    if (/^\(\?(=|!|<=|<!)/.test(at)) return `lookaround is not RE2 syntax (${err.message})`;
    if (/^\\([1-9]|k)/.test(at)) return `back-references are not RE2 syntax (${err.message})`;
  }
  return err.message;
}

const shown = (raw: string) => JSON.stringify(raw.length > 64 ? `${raw.slice(0, 64)}…` : raw);

/**
 * The patterns of one filter: compiled within the size bound, and tested within the step
 * budget of the current evaluation (`startEvaluation` begins one per answer).
 */
export class Patterns {
  private size = 0;
  private steps = 0;

  /** A test for one pattern; a 400 for a pattern that is too long or large or not RE2. */
  compile(raw: string): (value: string) => boolean {
    if (raw.length > MAX_PATTERN_LENGTH)
      throw filterError(`regular expression ${shown(raw)} is longer than ${MAX_PATTERN_LENGTH} characters`);
    const size = patternSize(raw);
    this.size += size;
    if (this.size > MAX_PATTERN_SIZE)
      throw filterError(
        `regular expression ${shown(raw)} is too large: the filter's regular expressions together expand to more than ${MAX_PATTERN_SIZE} instructions, each {n,m} repetition counted out`,
      );
    let re: RE2JS;
    try {
      re = RE2JS.compile(raw);
    } catch (err) {
      if (err instanceof RE2JSException) throw filterError(`failed to compile regular expression ${shown(raw)}: ${refusalOf(err)}`);
      throw err;
    }
    return (value) => {
      this.steps += (value.length + 1) * (size + PER_CHARACTER);
      if (this.steps > MATCH_BUDGET)
        throw filterError(
          `matching regular expressions would take more than ${MATCH_BUDGET} steps (characters × pattern size) over this answer; select fewer or shorter values (put other conditions first with "and") or use a smaller pattern`,
        );
      return re.test(value);
    };
  }

  startEvaluation(): void {
    this.steps = 0;
  }
}
