import { stemmer } from 'stemmer';
import type { EmbeddingProvider } from './provider';
import { foldWord, isStopWord } from './stop-words';

// The built-in embedder (D19 `local`): a lexical model, deterministic, offline and fast. It does
// not understand synonyms; it matches words, their inflections (Porter stems), phrases (bigrams)
// and near-spellings (character n-grams).
//
// Text → tokens: letter/digit runs of the original text, folded (NFKD, diacritics stripped,
// lowercase), split on apostrophes and punctuation; "fail-over" is kept as its parts plus the
// compound "failover"; digit groups joined by "." or "," stay one number ("3.5"; "1,000" and
// "1.000" both read as "1000" when the group after the separator has exactly three digits).
// Stop words (English, German, French) are dropped; the rest are stemmed.
//
// Features, three families, each weighted 1 + ln(tf) and scaled to unit length before mixing:
//   unigrams  stems (and compounds)                                    weight 1.0  (~53% of the mass)
//   bigrams   adjacent stems of the filtered stream, not across . ! ?  weight 0.5  (~13%)
//   chars     3- to 5-grams of each folded word (a hyphenated compound weight 0.8  (~34%)
//             counts as one word), padded as "<word>"
// so that a shared word counts most, a shared phrase adds to it and a near-spelling or another
// inflection still counts. (Weights tuned on a small set of meeting passages and queries; char
// n-grams of unstemmed words tolerate typos better than those of stems.)
// Each feature is hashed once (32-bit FNV-1a over UTF-16 code units, murmur3's fmix32 finaliser);
// the low 31 bits pick the component, the top bit the sign, so collisions cancel on average
// instead of piling up. The result is L2-normalised.
//
// A text without any feature (empty, punctuation, stop words only) gets a fixed dense vector with
// components ±1/√d (signs from a hash of the index): unit length as the interface requires, nearly
// orthogonal to every real text (|cos| ≈ 1/√d), equal for all such texts.
//
// Anything that changes the vectors (lists, weights, hashing) must change MODEL, so that stored
// vectors show as stale and `npm run reindex` replaces them.

export const LOCAL_MODEL = 'local-lexical-v1';

const WEIGHT_UNIGRAM = 1.0;
const WEIGHT_BIGRAM = 0.5;
const WEIGHT_CHAR = 0.8;
const CHAR_MIN = 3;
const CHAR_MAX = 5;
/** Longer words (hashes, URLs run together) contribute n-grams of their first characters only. */
const CHAR_WORD_MAX = 40;

export interface Token {
  /** The stem used as a feature, e.g. "failov" for "Failovers". */
  token: string;
  /** The folded word before stemming, e.g. "failovers". */
  word: string;
  /** Offsets in the original text (UTF-16 code units): text.slice(start, end) is the word. */
  start: number;
  end: number;
}

// ---------------------------------------------------------------------------------------------
// Tokenisation

interface Part {
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

function stemOf(folded: string): string {
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

function scan(text: string): Part[] {
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

// ---------------------------------------------------------------------------------------------
// Features and hashing

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 16777619;

function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

const SEED_UNIGRAM = Math.imul(FNV_OFFSET ^ 0x75, FNV_PRIME); // 'u'
const SEED_BIGRAM = Math.imul(FNV_OFFSET ^ 0x62, FNV_PRIME); // 'b'
const SEED_CHAR = Math.imul(FNV_OFFSET ^ 0x63, FNV_PRIME); // 'c'

interface Features {
  unigrams: Map<number, number>;
  bigrams: Map<number, number>;
  chars: Map<number, number>;
}

function bump(map: Map<number, number>, key: number): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function addCharNgrams(map: Map<number, number>, word: string): void {
  // n-grams of "<word>" without building the padded string
  const len = Math.min(word.length, CHAR_WORD_MAX);
  const padded = len + 2;
  const codeAt = (i: number) => (i === 0 ? 60 : i === padded - 1 ? 62 : word.charCodeAt(i - 1));
  for (let i = 0; i + CHAR_MIN <= padded; i++) {
    let h = SEED_CHAR;
    const last = Math.min(i + CHAR_MAX, padded);
    for (let j = i; j < last; j++) {
      h = Math.imul(h ^ codeAt(j), FNV_PRIME);
      if (j - i + 1 >= CHAR_MIN) bump(map, fmix32(h));
    }
  }
}

function extractFeatures(text: string): Features {
  const parts = scan(text);
  const unigrams = new Map<number, number>();
  const bigrams = new Map<number, number>();
  const chars = new Map<number, number>();
  let prevStem: string | undefined;
  for (let i = 0; i < parts.length; ) {
    // one surface word: a lone part or a hyphenated group
    const group = parts[i]!.group;
    let j = i;
    let anyContent = false;
    let allLetters = true;
    let compound = '';
    while (j < parts.length && parts[j]!.group === group) {
      const p = parts[j]!;
      compound += p.folded;
      if (!/\p{L}/u.test(p.folded)) allLetters = false;
      if (!p.stop) {
        anyContent = true;
        bump(unigrams, fmix32(fnv(SEED_UNIGRAM, p.stem)));
        if (prevStem !== undefined && !p.breakBefore) {
          bump(bigrams, fmix32(fnv(Math.imul(fnv(SEED_BIGRAM, prevStem) ^ 0x1f, FNV_PRIME), p.stem)));
        }
        prevStem = p.stem;
      } else if (p.breakBefore) {
        prevStem = undefined;
      }
      j++;
    }
    if (anyContent) {
      if (j - i > 1 && allLetters) {
        bump(unigrams, fmix32(fnv(SEED_UNIGRAM, stemOf(compound))));
        addCharNgrams(chars, compound);
      } else {
        for (let k = i; k < j; k++) if (!parts[k]!.stop) addCharNgrams(chars, parts[k]!.folded);
      }
    }
    i = j;
  }
  return { unigrams, bigrams, chars };
}

/** Calls add(key, weight) for every feature, each family scaled to length WEIGHT_family. */
function forEachWeighted(f: Features, add: (key: number, weight: number) => void): boolean {
  let any = false;
  const family = (map: Map<number, number>, familyWeight: number) => {
    if (map.size === 0) return;
    any = true;
    let sumSq = 0;
    for (const tf of map.values()) {
      const w = tf === 1 ? 1 : 1 + Math.log(tf);
      sumSq += w * w;
    }
    const scale = familyWeight / Math.sqrt(sumSq);
    for (const [key, tf] of map) add(key, (tf === 1 ? 1 : 1 + Math.log(tf)) * scale);
  };
  family(f.unigrams, WEIGHT_UNIGRAM);
  family(f.bigrams, WEIGHT_BIGRAM);
  family(f.chars, WEIGHT_CHAR);
  return any;
}

const emptyVectors = new Map<number, readonly number[]>();

function emptyVector(dimensions: number): number[] {
  let v = emptyVectors.get(dimensions);
  if (!v) {
    const c = 1 / Math.sqrt(dimensions);
    const seed = fnv(FNV_OFFSET, '<empty>');
    v = Array.from({ length: dimensions }, (_, i) =>
      fmix32(seed ^ Math.imul(i + 1, 0x9e3779b1)) < 0 ? -c : c,
    );
    emptyVectors.set(dimensions, v);
  }
  return v.slice();
}

/** The local embedding of one text (synchronous; see LocalEmbedder). */
export function embedLocal(text: string, dimensions = 384): number[] {
  const vec = new Float64Array(dimensions);
  const any = forEachWeighted(extractFeatures(text), (key, w) => {
    vec[(key & 0x7fffffff) % dimensions]! += key < 0 ? -w : w;
  });
  let sumSq = 0;
  for (let i = 0; i < dimensions; i++) sumSq += vec[i]! * vec[i]!;
  if (!any || sumSq === 0) return emptyVector(dimensions);
  const inv = 1 / Math.sqrt(sumSq);
  const out = new Array<number>(dimensions);
  for (let i = 0; i < dimensions; i++) out[i] = vec[i]! * inv;
  return out;
}

function sparseOf(text: string): Map<number, number> | undefined {
  const sparse = new Map<number, number>();
  const any = forEachWeighted(extractFeatures(text), (key, w) => sparse.set(key, (sparse.get(key) ?? 0) + w));
  return any ? sparse : undefined;
}

function sparseCosine(a: Map<number, number>, b: Map<number, number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [k, v] of small) {
    const o = large.get(k);
    if (o !== undefined) dot += v * o;
  }
  let na = 0;
  for (const v of a.values()) na += v * v;
  let nb = 0;
  for (const v of b.values()) nb += v * v;
  return dot / Math.sqrt(na * nb);
}

/**
 * Returns a scorer of texts against one query: the cosine of their local embeddings taken before
 * folding into a fixed dimension, so free of hash collisions. 0 when either text has no content
 * words. Use it to pick the segment of a passage that best matches a query, or to centre a snippet.
 */
export function lexicalScorer(query: string): (text: string) => number {
  const q = sparseOf(query);
  return (text) => {
    if (!q) return 0;
    const t = sparseOf(text);
    return t ? sparseCosine(q, t) : 0;
  };
}

/** Cosine similarity of the local embeddings of two texts, in [0, 1]; see lexicalScorer. */
export function lexicalSimilarity(a: string, b: string): number {
  return lexicalScorer(a)(b);
}

// ---------------------------------------------------------------------------------------------

export interface LocalEmbedderOptions {
  /** Length of every vector; the database's dimension (default 384). */
  dimensions?: number;
}

/** Texts embedded between two yields to the event loop, so a big reindex does not stall requests. */
const CHUNK = 256;

export class LocalEmbedder implements EmbeddingProvider {
  readonly model = LOCAL_MODEL;
  readonly dimensions: number;

  constructor({ dimensions = 384 }: LocalEmbedderOptions = {}) {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 65_536) {
      throw new Error(`Embedding dimensions must be an integer from 1 to 65536, got ${dimensions}`);
    }
    this.dimensions = dimensions;
  }

  /** Synchronous form of embed() for one text. */
  embedText(text: string): number[] {
    return embedLocal(text, this.dimensions);
  }

  async embed(texts: string[], opts: { signal?: AbortSignal } = {}): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i++) {
      if (i > 0 && i % CHUNK === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      if (i % CHUNK === 0) opts.signal?.throwIfAborted();
      const text = texts[i];
      if (typeof text !== 'string') throw new TypeError(`embed: texts[${i}] is not a string`);
      out.push(embedLocal(text, this.dimensions));
    }
    return out;
  }
}
