/*
 * The size a regular expression expands to, read from its text without compiling it. Compiling
 * costs time in proportion to that size (re2js writes counted repetitions out in full before it
 * compiles: `x{1000}` becomes a thousand copies of `x`), so a pattern of 140 `x{1000}` takes about
 * a second to compile only to be refused as too large. patterns.ts refuses such a pattern from this
 * estimate first.
 */

/** Estimates stop growing here (a pattern's repetitions can multiply past any useful number). */
const SIZE_CAP = 1e15;

interface Group {
  /** A capture (or look-around): two instructions around its contents. */
  capture: boolean;
  /** Finished branches of more than one character: their summed size and how many. */
  branches_size: number;
  branches: number;
  /** Finished branches of exactly one character: RE2 merges them into one class. */
  char_branches: number;
  /** The branch being read: its size, how many atoms, whether its only atom is one character. */
  size: number;
  atoms: number;
  one_char: boolean;
  /** Size of the branch's last atom, the operand of a repetition that follows. */
  last: number;
}

const group = (capture: boolean): Group => ({ capture, branches_size: 0, branches: 0, char_branches: 0, size: 0, atoms: 0, one_char: false, last: 0 });
const cap = (n: number) => Math.min(n, SIZE_CAP);

function endBranch(g: Group): void {
  if (g.atoms === 1 && g.one_char) g.char_branches++;
  else {
    g.branches_size = cap(g.branches_size + g.size);
    g.branches++;
  }
  Object.assign(g, { size: 0, atoms: 0, one_char: false, last: 0 });
}

function groupSize(g: Group): number {
  endBranch(g);
  const n = g.branches + (g.char_branches > 0 ? 1 : 0);
  return cap(g.branches_size + (g.char_branches > 0 ? 1 : 0) + Math.max(0, n - 1) + (g.capture ? 2 : 0));
}

function atom(g: Group, size: number, one_char: boolean): void {
  g.size = cap(g.size + size);
  g.last = size;
  g.atoms++;
  g.one_char = one_char;
}

/** Apply a repetition of `min` to `max` (-1: unbounded) to the last atom, as RE2's simplifier writes it out. */
function repeat(g: Group, min: number, max: number): void {
  const sub = g.last;
  const size = max === -1 ? (min === 0 ? 2 + sub : 1 + min * sub) : max * sub + (max - min);
  g.size = cap(g.size - sub + size);
  g.last = cap(size);
  g.one_char = false;
}

/** Index just past the `]` that closes the class opened at `cps[i - 1]` (`[`), RE2 syntax. */
function classEnd(cps: string[], i: number): number {
  if (cps[i] === '^') i++;
  if (cps[i] === ']') i++; // a `]` first is a literal
  while (i < cps.length && cps[i] !== ']') {
    if (cps[i] === '\\') i += 2;
    else if (cps[i] === '[' && cps[i + 1] === ':') {
      const end = cps.indexOf(']', i + 2);
      i = end < 0 ? cps.length : end + 1;
    } else i++;
  }
  return i + 1;
}

/** Index just past `{…}` when `cps[i]` opens one, else `i + skip` (the escapes \p, \P, \x). */
function pastBraces(cps: string[], i: number, skip: number): number {
  if (cps[i] !== '{') return i + skip;
  const end = cps.indexOf('}', i);
  return end < 0 ? cps.length : end + 1;
}

/** Escapes of one character or class (`\d`, `\pL`, `\x41`, `\.`): the rest (`\b`, `\B`, `\A`, `\z`) match a position. */
const POSITION_ESCAPES = new Set(['b', 'B', 'A', 'z']);
/** A counted repetition at the start of the text: `{n}`, `{n,}` or `{n,m}`. */
const COUNTED = /^\{(\d{1,9})(,(\d{0,9}))?\}/;

/**
 * An estimate of the instructions RE2 compiles `pattern` to, from its text alone, in time linear
 * in its length: each literal character, class, `.` and escape counts 1, an anchor 1, a capture
 * (or look-around) adds 2, an alternation sums its branches plus one split per extra branch
 * (one-character branches count once together: RE2 merges them into a class), and a repetition
 * writes its operand out as RE2's simplifier does: `x*` 2 + |x|, `x+` and `x?` 1 + |x|, `x{n}`
 * n·|x|, `x{n,m}` m·|x| + (m − n), `x{n,}` 1 + n·|x|. This is the measure RE2 bounds its own
 * parser with (re2js Parser.calcSize, Go regexp/syntax calcSize), before the prefix factoring
 * that can shrink alternations. Capped at 1e15. Syntax errors are not detected (the compiler
 * names them); what does not parse counts as literal characters.
 * @example regexExpandedSize('x{1000}'.repeat(140)) // 140000
 * @example regexExpandedSize('(a|b|c)+') // 4: a capture of one merged class, plus the loop
 */
export function regexExpandedSize(pattern: string): number {
  const cps = Array.from(pattern);
  const stack: Group[] = [];
  let g = group(false);
  let i = 0;
  while (i < cps.length) {
    const c = cps[i++]!;
    switch (c) {
      case '(': {
        let capture = true;
        if (cps[i] === '?') {
          const next = cps[i + 1];
          const named = (next === 'P' && cps[i + 2] === '<') || (next === '<' && cps[i + 2] !== '=' && cps[i + 2] !== '!');
          if (named) {
            const end = cps.indexOf('>', i);
            i = end < 0 ? cps.length : end + 1;
          } else if (next === '=' || next === '!' || next === '<') {
            i += next === '<' ? 3 : 2; // look-around
          } else {
            let j = i + 1;
            while (j < cps.length && /^[A-Za-z-]$/.test(cps[j]!)) j++;
            if (cps[j] === ')') { // flags for the rest of the group: `(?i)`
              i = j + 1;
              break;
            }
            i = cps[j] === ':' ? j + 1 : j;
            capture = false;
          }
        }
        stack.push(g);
        g = group(capture);
        break;
      }
      case ')': {
        const outer = stack.pop();
        if (!outer) {
          atom(g, 1, true);
          break;
        }
        const size = groupSize(g);
        g = outer;
        atom(g, size, false);
        break;
      }
      case '|':
        endBranch(g);
        break;
      case '*':
      case '+':
      case '?':
        repeat(g, c === '+' ? 1 : 0, c === '?' ? 1 : -1);
        if (cps[i] === '?') i++; // non-greedy
        break;
      case '{': {
        const m = COUNTED.exec(cps.slice(i - 1, i + 22).join(''));
        if (!m) {
          atom(g, 1, true);
          break;
        }
        i += m[0].length - 1;
        const min = Number(m[1]);
        repeat(g, min, m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]));
        if (cps[i] === '?') i++;
        break;
      }
      case '[':
        i = classEnd(cps, i);
        atom(g, 1, true);
        break;
      case '\\': {
        const e = cps[i++];
        if (e === 'Q') {
          while (i < cps.length && !(cps[i] === '\\' && cps[i + 1] === 'E')) {
            atom(g, 1, true);
            i++;
          }
          i += 2;
          break;
        }
        if (e === 'p' || e === 'P') i = pastBraces(cps, i, 1);
        else if (e === 'x') i = pastBraces(cps, i, 2);
        atom(g, 1, e === undefined || !POSITION_ESCAPES.has(e));
        break;
      }
      case '^':
      case '$':
        atom(g, 1, false);
        break;
      default:
        atom(g, 1, true);
    }
  }
  while (stack.length > 0) { // unclosed groups: the compiler names the error
    const size = groupSize(g);
    g = stack.pop()!;
    atom(g, size, false);
  }
  return groupSize(g);
}
