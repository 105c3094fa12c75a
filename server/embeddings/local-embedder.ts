import { type Part, scan, stemOf } from '../text/tokenize';
import type { EmbeddingProvider } from './provider';

// The built-in `local` embedder: a lexical model, deterministic, offline and fast. It does
// not understand synonyms; it matches words, their inflections (Porter stems), phrases (bigrams)
// and near-spellings (character n-grams).
//
// Text → tokens: see server/text/tokenize.ts; "fail-over" counts as its parts plus the
// compound "failover".
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

// The tokenizer lives in server/text/tokenize.ts (shared with snippets and the browser's
// highlighting); re-exported here for the callers that embed and tokenize alike.
export { type Token, tokenize } from '../text/tokenize';

export const LOCAL_MODEL = 'local-lexical-v1';

const WEIGHT_UNIGRAM = 1.0;
const WEIGHT_BIGRAM = 0.5;
const WEIGHT_CHAR = 0.8;
const CHAR_MIN = 3;
const CHAR_MAX = 5;
/** Longer words (hashes, URLs run together) contribute n-grams of their first characters only. */
const CHAR_WORD_MAX = 40;

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

/** The parts of each surface word (a lone part, or the parts of a hyphenated group), in order. */
function surfaceWords(parts: Part[]): Part[][] {
  const words: Part[][] = [];
  for (const p of parts) {
    const word = words.at(-1);
    if (word && word[0]?.group === p.group) word.push(p);
    else words.push([p]);
  }
  return words;
}

function extractFeatures(text: string): Features {
  const unigrams = new Map<number, number>();
  const bigrams = new Map<number, number>();
  const chars = new Map<number, number>();
  let prevStem: string | undefined;
  for (const word of surfaceWords(scan(text))) {
    let anyContent = false;
    let allLetters = true;
    let compound = '';
    for (const p of word) {
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
    }
    if (anyContent) {
      if (word.length > 1 && allLetters) {
        bump(unigrams, fmix32(fnv(SEED_UNIGRAM, stemOf(compound))));
        addCharNgrams(chars, compound);
      } else {
        for (const p of word) if (!p.stop) addCharNgrams(chars, p.folded);
      }
    }
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
    const i = (key & 0x7fffffff) % dimensions;
    vec[i] = (vec[i] ?? 0) + (key < 0 ? -w : w); // i is in range: the default never applies
  });
  let sumSq = 0;
  for (const x of vec) sumSq += x * x;
  if (!any || sumSq === 0) return emptyVector(dimensions);
  const inv = 1 / Math.sqrt(sumSq);
  return Array.from(vec, (x) => x * inv);
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
  readonly provider = 'local';
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
