// npm run bench:ingest [-- --meetings 40 --segments 30 --threads 1,2 --rounds 1 --db pglite|postgres]
// How fast meetings become searchable with the default semantic embedder: N meetings of S
// segments recorded through the recorder API as fast as it takes them, the in-process worker
// embedding them in the background. Reports meetings a minute made searchable, passages embedded
// a second (and per model thread), time-to-searchable p50/p95 per meeting, and search latency
// while idle and during the ingestion; then the same number of meetings recorded with the worker
// stopped and drained as a backlog (the model's capacity alone, and the cores it kept busy), and
// as many again drained while a search runs every 250 ms (search latency beside the backlog, over
// the same search on the same data while idle). Each
// thread count runs in a process of its own (one model pool per process). With --rounds N the
// thread counts run in turn N times (1, 2, 1, 2, …) and the ratios' medians over the rounds are
// reported too: this machine's speed drifts by ±10% between runs, so one pair of runs can put a
// ratio on either side of a goal. PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL.
import { spawnSync } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { and, eq, sql } from 'drizzle-orm';
import { createAccount, createApiKey } from '../server/accounts/accounts';
import { queryRows } from '../server/db/client';
import { jobs } from '../server/db/schema';
import { assertDimensions } from '../server/search/embedding-dimensions';
import { parseEnv } from '../server/env';
import { serveNode } from '../server/http/serve-node';
import { createAppHandlers, routeFor } from '../server/runtime/app-handlers';
import { createServices, embeddingThreads, type Services } from '../server/services';
import { startWorker } from '../server/worker/worker';
import { createTestDatabase } from '../test/support/test-database';
import { percentile } from './bench-stats';
import { benchSegments } from './bench-transcripts';

const { values } = parseArgs({
  options: {
    meetings: { type: 'string', default: '40' },
    segments: { type: 'string', default: '30' },
    threads: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    db: { type: 'string', default: 'pglite' },
    child: { type: 'boolean', default: false },
  },
});
const MEETINGS = Number(values.meetings);
const SEGMENTS = Number(values.segments);
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

const segmentsOf = (meeting: number) => benchSegments(meeting, SEGMENTS);

const ms = (v: number) => Math.round(v * 10) / 10;
/** Ratios to two places: a goal such as 1.8× is not met by 1.76 rounded up. */
const times = (v: number) => Math.round(v * 100) / 100;
const summary = (sorted: number[]) => ({ p50: ms(percentile(sorted, 50)), p95: ms(percentile(sorted, 95)) });

async function child(threads: number) {
  const database = await createTestDatabase({ serverUrl: values.db === 'postgres' ? serverUrl : null });
  let worker: ReturnType<typeof startWorker> | null = null;
  const env = parseEnv({ EMBEDDINGS_PROVIDER: 'semantic', EMBEDDING_THREADS: String(threads) });
  // The database takes the model's dimensions, as the server's start does.
  await assertDimensions(database.db, env.EMBEDDINGS_DIMENSIONS);
  const services: Services = {
    ...createServices(env),
    kick: () => worker?.kick(),
  };
  const handlers = createAppHandlers({
    getDatabase: async () => database,
    services,
    cron: { secret: undefined, openWithoutSecret: false },
  });
  const server = await serveNode((p) => routeFor(handlers, p));
  const account = await createAccount(database.db, {
    email: `ingest-${Date.now()}@example.com`,
    plan: 'enterprise',
    earlyAccess: true,
  });
  const { plaintext: key } = await createApiKey(database.db, { accountId: account.id });
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(server.url + path, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    const body = await res.text();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${body}`);
    return JSON.parse(body) as { id?: string };
  };
  const search = async () => {
    const started = performance.now();
    await call('/v1/notes/search?q=what%20did%20we%20decide%20about%20the%20budget&limit=5');
    return performance.now() - started;
  };

  const passagesStored = async () =>
    (
      (await queryRows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from passages where account_id = ${account.id}`,
      )) as [{ n: number }]
    )[0].n;
  const embeddingsWaiting = async () =>
    (
      await database.db
        .select({ id: jobs.id })
        .from(jobs)
        .where(and(eq(jobs.accountId, account.id), eq(jobs.kind, 'embed_transcript')))
    ).length;

  // The model loads once (and compiles), not inside the measurement.
  const loadStarted = performance.now();
  await services.embedder.embed(['warm up']);
  const loadMs = performance.now() - loadStarted;
  worker = startWorker({ getDatabase: async () => database, services: () => services, intervalMs: 200 });
  const idle: number[] = [];
  for (let i = 0; i < 100; i++) idle.push(await search());

  const recordedAt = new Map<string, number>();
  const searchableAt = new Map<string, number>();
  const during: number[] = [];
  const first = performance.now();
  let recording = true;
  const watcher = (async () => {
    while (recording || searchableAt.size < recordedAt.size) {
      const waiting = new Set(
        (
          await database.db
            .select({ meeting: jobs.meetingId })
            .from(jobs)
            .where(and(eq(jobs.accountId, account.id), eq(jobs.kind, 'embed_transcript')))
        ).map((r) => r.meeting),
      );
      const now = performance.now();
      for (const id of recordedAt.keys())
        if (!waiting.has(id) && !searchableAt.has(id)) searchableAt.set(id, now);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const searcher = (async () => {
    while (recording || searchableAt.size < recordedAt.size) {
      during.push(await search());
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  for (let i = 0; i < MEETINGS; i++) {
    const { id } = await call('/api/recorder/meetings', {
      method: 'POST',
      body: JSON.stringify({ title: `Ingest ${i}`, platform: 'zoom' }),
    });
    await call(`/api/recorder/meetings/${id}/transcript`, {
      method: 'POST',
      body: JSON.stringify({ segments: segmentsOf(i), generate_summary: false }),
    });
    recordedAt.set(id as string, performance.now());
  }
  recording = false;
  await Promise.all([watcher, searcher]);
  const wallSeconds = (Math.max(...searchableAt.values()) - first) / 1000;
  const passages = await passagesStored();
  const toSearchable = [...recordedAt]
    .map(([id, at]) => (searchableAt.get(id) as number) - at)
    .sort((a, b) => a - b);

  // The model's capacity alone: the same number of meetings recorded with the worker stopped,
  // then the backlog drained with nothing else to do (recording shares the cores above). Then as
  // many again drained while a search runs every 250 ms, for what a search waits while a backlog
  // is embedded, against the same search on the same data with nothing running (and what the
  // searches take from the drain).
  const drain = async (label: string, searching: boolean) => {
    if (worker) await worker.stop();
    worker = null;
    for (let i = 0; i < MEETINGS; i++) {
      const { id } = await call('/api/recorder/meetings', {
        method: 'POST',
        body: JSON.stringify({ title: `${label} ${i}`, platform: 'zoom' }),
      });
      await call(`/api/recorder/meetings/${id}/transcript`, {
        method: 'POST',
        body: JSON.stringify({ segments: segmentsOf(nextMeeting++), generate_summary: false }),
      });
    }
    // A search's time with nothing else running, on the same data as the searches beside the
    // drain (the account's first searches, above, find it empty).
    const idleHere: number[] = [];
    if (searching) for (let i = 0; i < 100; i++) idleHere.push(await search());
    const before = await passagesStored();
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    // How long the server's thread was kept from its requests: with PGlite the database's
    // statements run on it too.
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    worker = startWorker({ getDatabase: async () => database, services: () => services, intervalMs: 200 });
    worker.kick();
    const searches: number[] = [];
    while ((await embeddingsWaiting()) > 0) {
      if (searching) searches.push(await search());
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    loopDelay.disable();
    const drained = (await passagesStored()) - before;
    return {
      passages: drained,
      seconds: ms(seconds),
      passages_per_second: ms(drained / seconds),
      // This process's CPU time (main thread and model threads) over the drain's wall time.
      cores_busy: ms((cpu.user + cpu.system) / 1e6 / seconds),
      event_loop_delay_ms: { p99: ms(loopDelay.percentile(99) / 1e6), max: ms(loopDelay.max / 1e6) },
      ...(searching && {
        search_idle_ms: summary(idleHere.sort((a, b) => a - b)),
        search_ms: summary(searches.sort((a, b) => a - b)),
        search_over_idle_p95: ms(percentile(searches, 95) / percentile(idleHere, 95)),
      }),
    };
  };
  let nextMeeting = MEETINGS;
  const backlogDrain = await drain('Backlog', false);
  const searchedDrain = await drain('Searched backlog', true);
  await worker?.stop();
  await server.close();
  await database.close();
  return {
    database: values.db,
    threads,
    meetings: MEETINGS,
    segments_per_meeting: SEGMENTS,
    passages,
    model_load_ms: Math.round(loadMs),
    wall_seconds: ms(wallSeconds),
    meetings_per_minute: ms((MEETINGS / wallSeconds) * 60),
    passages_per_second: ms(passages / wallSeconds),
    passages_per_second_per_thread: ms(passages / wallSeconds / threads),
    time_to_searchable_ms: summary(toSearchable),
    search_idle_ms: summary(idle.sort((a, b) => a - b)),
    search_during_ms: summary(during.sort((a, b) => a - b)),
    search_during_over_idle_p95: ms(percentile(during, 95) / percentile(idle, 95)),
    backlog_drain: backlogDrain,
    backlog_drain_while_searching: searchedDrain,
  };
}

if (values.child) {
  const result = await child(Number(values.threads));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} else {
  if (values.db === 'postgres' && !serverUrl)
    throw new Error('--db postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const counts = (values.threads ?? `1,${embeddingThreads(parseEnv({}))}`)
    .split(',')
    .map(Number)
    .filter((n, i, all) => n > 0 && all.indexOf(n) === i);
  const ROUNDS = Math.max(1, Number(values.rounds));
  type Result = {
    threads: number;
    passages_per_second: number;
    backlog_drain: { passages_per_second: number };
    backlog_drain_while_searching: { passages_per_second: number; search_over_idle_p95: number };
    time_to_searchable_ms: { p95: number };
  };
  /** Each round's search p95 beside the drain ÷ idle, by thread count. */
  const besideDrain = new Map<number, number[]>();
  /** Each round's ratios of a thread count to one thread. */
  const ratios: {
    threads: number;
    recording: number;
    drain: number;
    drainSearching: number;
    searchable: number;
  }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const results: Result[] = [];
    for (const threads of counts) {
      process.stderr.write(
        `bench:ingest: ${values.db}, ${threads} thread(s), ${MEETINGS} meetings of ${SEGMENTS} segments${ROUNDS > 1 ? `, round ${round} of ${ROUNDS}` : ''}…\n`,
      );
      const run = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          import.meta.filename,
          '--child',
          '--threads',
          String(threads),
          '--meetings',
          String(MEETINGS),
          '--segments',
          String(SEGMENTS),
          '--db',
          values.db as string,
        ],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, LOG_LEVEL: 'warn' },
        },
      );
      if (run.status !== 0) throw new Error(`the run with ${threads} thread(s) failed`);
      results.push(JSON.parse(run.stdout.trim().split('\n').at(-1) as string));
    }
    for (const r of results) {
      console.log(JSON.stringify(r));
      besideDrain.set(r.threads, [
        ...(besideDrain.get(r.threads) ?? []),
        r.backlog_drain_while_searching.search_over_idle_p95,
      ]);
    }
    const one = results.find((r) => r.threads === 1);
    for (const r of results) {
      if (!one || r === one) continue;
      const ratio = {
        threads: r.threads,
        recording: r.passages_per_second / one.passages_per_second,
        drain: r.backlog_drain.passages_per_second / one.backlog_drain.passages_per_second,
        drainSearching:
          r.backlog_drain_while_searching.passages_per_second /
          one.backlog_drain_while_searching.passages_per_second,
        searchable: r.time_to_searchable_ms.p95 / one.time_to_searchable_ms.p95,
      };
      ratios.push(ratio);
      console.log(
        `${r.threads} threads ÷ 1 thread: passages/s while recording ${times(ratio.recording)}×, draining a backlog ${times(ratio.drain)}× (while searching ${times(ratio.drainSearching)}×); time-to-searchable p95 ${times(ratio.searchable)}×`,
      );
    }
  }
  if (ROUNDS > 1) {
    for (const [threads, each] of besideDrain)
      console.log(`${threads} thread(s), search p95 beside the drain ÷ idle, each round: ${each.join(', ')}`);
    for (const threads of counts.filter((n) => n !== 1)) {
      const rounds = ratios.filter((r) => r.threads === threads);
      if (rounds.length === 0) continue; // No run with one thread to compare with.
      const median = (of: (r: (typeof rounds)[number]) => number) => {
        const v = rounds.map(of).sort((a, b) => a - b);
        return times(((v[(v.length - 1) >> 1] as number) + (v[v.length >> 1] as number)) / 2);
      };
      console.log(
        `median of ${ROUNDS} rounds, ${threads} threads ÷ 1 thread: passages/s while recording ${median((r) => r.recording)}×, draining a backlog ${median((r) => r.drain)}× (while searching ${median((r) => r.drainSearching)}×); time-to-searchable p95 ${median((r) => r.searchable)}× (drain each round: ${rounds.map((r) => times(r.drain)).join(', ')}; while searching: ${rounds.map((r) => times(r.drainSearching)).join(', ')})`,
      );
    }
  }
}
