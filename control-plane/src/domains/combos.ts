import { COMBO_CAP_DEFAULT, COMBO_CAP_MAX, DNS_LABEL_MAX, type ComboSlot, type DomainComboSpec } from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';
import { WORD_LISTS } from './words.js';

/*
 * Domain combinations (docs/api/domains.md): each slot is a set of tokens, a name is one token of
 * every slot in order plus a top-level domain. Counting and drawing never enumerate: a slot of n
 * positions over an alphabet of a characters holds a^n tokens, and the k-th name is read as a
 * mixed-radix number (the top-level domain its most significant digit, then the slots in order,
 * each token's characters most significant first), all in BigInt.
 */

const DIGITS = '0123456789';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const VOWELS = 'aeiou';
const CONSONANTS = [...LETTERS].filter((ch) => !VOWELS.includes(ch)).join('');
const LITERAL = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The tokens of one slot: how many, the longest, and the i-th (0 <= i < count) in order. */
export interface TokenSet {
  count: bigint;
  max_length: number;
  at(i: bigint): string;
}

/** `n` positions over the characters of `alphabet` (sorted), those in `exclude` left out: |alphabet|^n tokens. */
function positions(alphabet: string, n: number, exclude: Set<string>): TokenSet {
  const chars = [...alphabet].filter((ch) => !exclude.has(ch)).sort();
  const base = BigInt(chars.length);
  return {
    count: base ** BigInt(n),
    max_length: n,
    at(i) {
      let out = '';
      let rest = i;
      for (let p = 0; p < n; p++) {
        out = chars[Number(rest % base)]! + out;
        rest /= base;
      }
      return out;
    },
  };
}

/** The words of `words` with none of `exclude`'s characters. */
function wordSet(words: readonly string[], exclude: Set<string>): TokenSet {
  const kept = words.filter((w) => ![...w].some((ch) => exclude.has(ch)));
  return { count: BigInt(kept.length), max_length: kept.reduce((m, w) => Math.max(m, w.length), 0), at: (i) => kept[Number(i)]! };
}

/** A field-level 400 (docs/api/conventions.md `details.fields`). */
function invalid(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path}: ${message}`, { fields: [{ path, message }] });
}

/** Length variant `1`-`6` of a number or letter slot (default 1). */
function lengthOf(slot: ComboSlot, path: string): number {
  const v = slot.variant ?? '1';
  if (!/^[1-6]$/.test(v)) throw invalid(`${path}.variant`, `${slot.kind} slots take a length 1-6${slot.kind === 'letter' ? ', vowel or consonant' : ''}`);
  return Number(v);
}

/**
 * The token set of slot `slot` at `slots[index]`, tokens containing a character of `exclude`
 * dropped. @throws ApiError VALIDATION_FAILED naming the slot's field
 */
export function slotTokens(slot: ComboSlot, index: number, exclude: Set<string>): TokenSet {
  const path = `slots[${index}]`;
  if (slot.kind !== 'literal' && slot.literal !== undefined) throw invalid(`${path}.literal`, 'only literal slots take a literal');
  switch (slot.kind) {
    case 'number':
      return positions(DIGITS, lengthOf(slot, path), exclude);
    case 'letter':
      if (slot.variant === 'vowel') return positions(VOWELS, 1, exclude);
      if (slot.variant === 'consonant') return positions(CONSONANTS, 1, exclude);
      return positions(LETTERS, lengthOf(slot, path), exclude);
    case 'word': {
      const list = WORD_LISTS[slot.variant ?? 'tech'];
      if (!list) throw invalid(`${path}.variant`, `word lists: ${Object.keys(WORD_LISTS).join(', ')}`);
      return wordSet(list, exclude);
    }
    case 'literal': {
      if (slot.variant !== undefined) throw invalid(`${path}.variant`, 'literal slots take no variant');
      const text = slot.literal?.toLowerCase();
      if (text === undefined || !LITERAL.test(text)) throw invalid(`${path}.literal`, 'required: lower-case letters, digits and single inner hyphens');
      return wordSet([text], exclude);
    }
  }
}

/** `cap` as docs/api/domains.md rules it: absent or <= 0 → 1000, above 5000 → 5000. */
export function effectiveCap(cap: number | undefined): number {
  if (cap === undefined || cap <= 0) return COMBO_CAP_DEFAULT;
  return Math.min(cap, COMBO_CAP_MAX);
}

/** A spec made ready to count and draw from. */
export interface Combos {
  slots: TokenSet[];
  tlds: string[];
  /** Names the spec makes. */
  total: bigint;
}

/**
 * Read a spec (already schema-checked): the token set of each slot, the top-level domains
 * (repeats dropped, order kept), the exact total. @throws ApiError VALIDATION_FAILED for a slot's
 * variant or literal, or when the longest name's label would exceed 63 characters (RFC 1035)
 */
export function buildCombos(spec: DomainComboSpec): Combos {
  const exclude = new Set([...(spec.exclude ?? '').toLowerCase()]);
  const slots = spec.slots.map((s, i) => slotTokens(s, i, exclude));
  const longest = slots.reduce((n, s) => n + s.max_length, 0);
  if (longest > DNS_LABEL_MAX) throw invalid('slots', `the longest name's label would be ${longest} characters; a DNS label holds at most ${DNS_LABEL_MAX}`);
  const tlds = [...new Set(spec.tlds)];
  const total = slots.reduce((n, s) => n * s.count, BigInt(tlds.length));
  return { slots, tlds, total };
}

/** The `index`-th name (0 <= index < total): top-level domain most significant, then the slots in order. */
export function nameAt(c: Combos, index: bigint): string {
  const per_tld = c.total / BigInt(c.tlds.length);
  let rest = index % per_tld;
  const parts: string[] = [];
  for (let j = c.slots.length - 1; j >= 0; j--) {
    const s = c.slots[j]!;
    parts.unshift(s.at(rest % s.count));
    rest /= s.count;
  }
  return `${parts.join('')}.${c.tlds[Number(index / per_tld)]}`;
}

/**
 * `n` names drawn evenly over all of them: the k-th is name floor(k * total / n) (so with n =
 * total every name once, in order). @returns [] when the spec makes none
 */
export function drawEvenly(c: Combos, n: number): string[] {
  if (c.total === 0n || n <= 0) return [];
  const count = BigInt(n) > c.total ? c.total : BigInt(n);
  const out: string[] = [];
  for (let k = 0n; k < count; k++) out.push(nameAt(c, (k * c.total) / count));
  return out;
}
