import { stemmer } from 'stemmer';
import { foldWord, isStopWord } from './stop-words';

// The search tokenizer: one reading of words for the local embedder (server/embeddings/
// local-embedder.ts), for snippets (server/search/make-snippet.ts) and for the browser's
// highlighting of matches (components/notes/highlight.tsx). server/text is a leaf: pure and
// client-safe, it imports nothing but the stemmer package (no node: modules, no other server code).
//
// Text → tokens: letter/digit runs of the original text, folded (NFKD, diacritics stripped,
// lowercase), split on apostrophes and punctuation; "fail-over" is kept as its parts (the
// embedder adds the compound "failover"); digit groups joined by "." or "," stay one number
// ("3.5"; "1,000" and "1.000" both read as "1000" when the group after the separator has
// exactly three digits). Stop words (English, German, French) are dropped; the rest are stemmed.
//
// A change here changes the local embedder's vectors: change its LOCAL_MODEL with it.

export interface Token {
  /** The stem used as a feature, e.g. "failov" for "Failovers". */
  token: string;
  /** The folded word before stemming, e.g. "failovers". */
  word: string;
  /** Offsets in the original text (UTF-16 code units): text.slice(start, end) is the word. */
  start: number;
  end: number;
}

/** A word (or a piece of a hyphenated one) as the scanner reads it; see scan(). */
export interface Part {
  start: number;
  end: number;
  folded: string;
  /** Parts joined by hyphens share a group; a lone word is its own group. */
  group: number;
  stop: boolean;
  stem: string;
  /** A sentence boundary (. ! ? ; or a line break) lies between this part and the previous one. */
  breakBefore: boolean;
}

const ATOM = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
const ASCII_ALNUM = /^[\x30-\x39\x41-\x5a\x61-\x7a]+$/;
const ASCII_LOWER_LETTERS = /^[a-z]+$/;

const isDigitCode = (c: number) => c >= 48 && c <= 57;
const isHyphenCode = (c: number) => c === 45 || c === 0x2010 || c === 0x2011;
const isBreakCode = (c: number) => c === 46 || c === 33 || c === 63 || c === 59 || c === 10 || c === 13;

function foldAtom(atom: string): string {
  return ASCII_ALNUM.test(atom) ? atom.toLowerCase() : foldWord(atom);
}

const stemCache = new Map<string, string>();
const STEM_CACHE_MAX = 50_000;

/** The Porter stem of a folded word of ASCII letters; any other word is its own stem. */
export function stemOf(folded: string): string {
  if (!ASCII_LOWER_LETTERS.test(folded)) return folded; // numbers, "40k", non-Latin scripts
  let s = stemCache.get(folded);
  if (s === undefined) {
    s = stemmer(folded);
    if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
    stemCache.set(folded, s);
  }
  return s;
}

function hasBreak(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (isBreakCode(text.charCodeAt(i))) return true;
  return false;
}

/** Every word of a text, stop words included (marked), each folded and, unless a stop word, stemmed. */
export function scan(text: string): Part[] {
  const parts: Part[] = [];
  let group = 0;
  let prev: Part | undefined;
  let prevIsNumber = false;
  ATOM.lastIndex = 0;
  for (let m = ATOM.exec(text); m !== null; m = ATOM.exec(text)) {
    const atom = m[0];
    const start = m.index;
    const end = start + atom.length;
    if (prev && prev.end + 1 === start) {
      const sep = text.charCodeAt(prev.end);
      // "3.5", "1,000", "1.000.000": one number
      if (
        (sep === 46 || sep === 44) &&
        prevIsNumber &&
        isDigitCode(text.charCodeAt(prev.end - 1)) &&
        isDigitCode(text.charCodeAt(start))
      ) {
        const folded = foldAtom(atom);
        const thousands = /^\d{3}$/.test(folded);
        prev.folded += thousands ? folded : `.${folded}`;
        prev.end = end;
        prev.stem = prev.folded;
        continue;
      }
      if (isHyphenCode(sep)) {
        const folded = foldAtom(atom);
        if (folded.length === 0) continue;
        prev = { start, end, folded, group, stop: isStopWord(folded), stem: '', breakBefore: false };
        prevIsNumber = /^\d/.test(folded);
        parts.push(prev);
        continue;
      }
    }
    const folded = foldAtom(atom);
    if (folded.length === 0) continue;
    group++;
    const breakBefore = prev !== undefined && hasBreak(text, prev.end, start);
    prev = { start, end, folded, group, stop: isStopWord(folded), stem: '', breakBefore };
    prevIsNumber = /^\d/.test(folded);
    parts.push(prev);
  }
  for (const p of parts) if (!p.stop && p.stem === '') p.stem = stemOf(p.folded);
  return parts;
}

/**
 * The content tokens of a text, in order: folded, stop words removed, stemmed, each with its
 * offsets in the original text (for snippets and highlighting).
 */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const p of scan(text)) {
    if (!p.stop) out.push({ token: p.stem, word: p.folded, start: p.start, end: p.end });
  }
  return out;
}

/**
 * The spans of `text` to mark as matching `query` (the words whose stem is a stem of the query),
 * in order, so "budgets" lights up for "budget". Stop words are never marked: they carry no
 * meaning in the search either.
 */
export function matchSpans(text: string, query: string): { start: number; end: number }[] {
  const stems = new Set(tokenize(query).map((t) => t.token));
  if (stems.size === 0) return [];
  return tokenize(text)
    .filter((t) => stems.has(t.token))
    .map(({ start, end }) => ({ start, end }));
}
