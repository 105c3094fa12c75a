// npm run bench:webhooks [-- --deliveries 2000 --events 200 --endpoints 5]
//   [--only throughput|latency] [--databases pglite,postgres] [--dispatchers 1,4] [--repeat 1]
//   (--help lists them)
// Webhook delivery on the embedded database and, when BENCH_DATABASE_URL (or TEST_DATABASE_URL)
// names a PostgreSQL server, on PostgreSQL:
//  1. throughput: events made by the real services (createMeeting → meeting.started, one delivery
//     per endpoint) drained by runDueWork into a local receiver (an HTTP server on 127.0.0.1 in a
//     worker thread of its own; --receiver inline: in the dispatchers' thread), with 1 dispatcher
//     and with 4 at once (sharing one Services, as the worker and cron share one process, and each
//     with its own, as separate instances would); every X-Service-Delivery must arrive exactly once.
//  2. latency: the in-process worker (interval 1000 ms, kicked as server/runtime/handlers.ts does)
//     and the real recorder HTTP API; events ~20 ms apart, the delay being the receiver's arrival
//     time minus the envelope's created_at. Two sequences of --events each: 'mixed' (meeting
//     started → transcript → summary, round robin) and 'started only' (POST /meetings alone,
//     which shows how meeting.started alone is picked up).
import { FORM_PROFILES } from '../server/rest/form-profiles';
import fs from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { Worker as Thread } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { and, count, eq } from 'drizzle-orm';
import { createAccount, createApiKey } from '../server/accounts/accounts';
import type { Database } from '../server/db/client';
import { deliveries, deliveryAttempts, webhookEndpoints } from '../server/db/schema';
import { WEBHOOK_EVENTS } from '../server/domain';
import { parseEnv } from '../server/env';
import { createAppHandlers, routeFor } from '../server/runtime/app-handlers';
import { serveNode } from '../server/http/serve-node';
import { runDueWork, type WorkCounts } from '../server/worker/run-due-work';
import { startWorker, type Worker } from '../server/worker/worker';
import { createMeeting } from '../server/meetings/create-meeting';
import { createServices, type Services } from '../server/services';
import { createSecretBox } from '../server/webhooks/secret-box';
import { loadSecretKeys } from '../server/webhooks/secret-keys';
import { createEndpoint } from '../server/webhooks/endpoints';
import { createTestDatabase } from '../test/support/test-database';
import { percentile } from './bench-stats';

const { values } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '2000' },
    events: { type: 'string', default: '200' },
    endpoints: { type: 'string', default: '5' },
    'latency-endpoints': { type: 'string', default: '1' },
    'spacing-ms': { type: 'string', default: '20' },
    only: { type: 'string' },
    databases: { type: 'string', default: 'pglite,postgres' },
    dispatchers: { type: 'string', default: '1,4' },
    repeat: { type: 'string', default: '1' },
    'cpu-prof': { type: 'string' },
    receiver: { type: 'string', default: 'thread' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`npm run bench:webhooks -- [options]
  --deliveries N     throughput: deliveries per run (default 2000)
  --endpoints N      throughput: endpoints the deliveries spread over (default 5)
  --events N         latency: events per sequence (default 200)
  --latency-endpoints N, --spacing-ms N   latency: endpoints per event (1), ms between events (20)
  --only throughput|latency   run one of the two parts (default both)
  --databases pglite,postgres  which databases (postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL)
  --dispatchers 1,4  throughput: dispatcher counts; 4 runs both shared Services and a Services each
  --repeat N         throughput: run each measure N times, interleaved (default 1)
  --receiver thread|inline   the receiver in a worker thread of its own (default) or in the
                     dispatchers' thread
  --cpu-prof DIR     throughput: a .cpuprofile of each run's dispatch phase alone (this process:
                     dispatchers and receiver), for Chrome DevTools or speedscope`);
  process.exit(0);
}
const DELIVERIES = Number(values.deliveries);
const EVENTS = Number(values.events);
const ENDPOINTS = Number(values.endpoints);
const LATENCY_ENDPOINTS = Number(values['latency-endpoints']);
const SPACING_MS = Number(values['spacing-ms']);
const WORKER_INTERVAL_MS = 1000;
/** How long the latency run waits for the last deliveries after the last event. */
const SETTLE_TIMEOUT_MS = 30_000;
const ONLY = values.only as 'throughput' | 'latency' | undefined;
if (ONLY !== undefined && ONLY !== 'throughput' && ONLY !== 'latency')
  throw new Error(`--only is throughput or latency, not ${ONLY}`);
const DATABASES = new Set((values.databases ?? '').split(',').map((d) => d.trim()));
const DISPATCHER_COUNTS = (values.dispatchers ?? '')
  .split(',')
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const REPEAT = Math.max(1, Number(values.repeat) || 1);
const CPU_PROF_DIR = values['cpu-prof'];
const RECEIVER_MODE = values.receiver;
if (RECEIVER_MODE !== 'thread' && RECEIVER_MODE !== 'inline')
  throw new Error(`--receiver is thread or inline, not ${RECEIVER_MODE}`);

/** Profiles `run` when --cpu-prof is given, writing <dir>/<name>.cpuprofile. */
async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  if (!CPU_PROF_DIR) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(CPU_PROF_DIR, { recursive: true });
    const file = path.join(CPU_PROF_DIR, `${name}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    process.stderr.write(`profile: ${file}\n`);
  }
}

// The lexical embedder: this measures the webhook path. With the semantic default the same worker
// also embeds every transcript (about 80 ms a passage on one core), which is search's cost, not
// delivery's, and is measured by bench:search; and the bench's fresh database keeps the schema's
// 384 dimensions (`npm start` and `npm run reindex` move a database to the model's).
const makeServices = (kick?: () => void): Services =>
  createServices(parseEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', EMBEDDINGS_PROVIDER: 'local' }), kick);
const round1 = (n: number) => +n.toFixed(1);
const nowMs = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

// ---------------------------------------------------------------------------------------------
// The receiver: answers 200 at once and remembers what arrived when.

interface Arrival {
  deliveryId: string;
  event: string;
  path: string;
  /** Wall-clock ms (sub-ms precision) when the request's headers arrived. */
  at: number;
  /** The envelope's created_at, ms. */
  createdAt: number;
}

/**
 * The receiver's code: an HTTP server on 127.0.0.1 that answers 200 at once and remembers what
 * arrived when. `post` hands a message to whoever started it.
 */
function receiverServer(post: (message: unknown) => void, nowMs: () => number) {
  let arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    const at = nowMs();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      let createdAt = NaN;
      try {
        createdAt = Date.parse(
          (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { created_at: string }).created_at,
        );
      } catch {
        /* counted as NaN */
      }
      arrivals.push({
        deliveryId: String(req.headers['x-service-delivery'] ?? ''),
        event: String(req.headers['x-service-event'] ?? ''),
        path: req.url ?? '',
        at,
        createdAt,
      });
    });
  });
  server.listen(0, '127.0.0.1', () => post({ port: (server.address() as AddressInfo).port }));
  return {
    count: () => arrivals.length,
    /** Hands back what arrived since the last take and starts a new list. */
    take(): Arrival[] {
      const out = arrivals;
      arrivals = [];
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The receiver runs in a worker thread of its own (default), as a receiver is another program: in
 * the dispatchers' thread its HTTP parsing took about a sixth of that thread's busy time
 * (--cpu-prof), which one dispatcher would otherwise spend sending. With --receiver inline it
 * shares the dispatchers' thread.
 */
async function startReceiver() {
  if (RECEIVER_MODE === 'inline') {
    let resolvePort: (port: number) => void = () => {};
    const portKnown = new Promise<number>((resolve) => {
      resolvePort = resolve;
    });
    const inline = receiverServer((m) => resolvePort((m as { port: number }).port), nowMs);
    const port = await portKnown;
    return {
      url: `http://127.0.0.1:${port}`,
      count: async () => inline.count(),
      take: async () => inline.take(),
      close: inline.close,
    };
  }
  // The worker runs plain JavaScript: the function above, as its source text (as tsx compiled
  // it: __name is the helper its compiler adds to keep function names).
  const worker = new Thread(
    `const __name = (f) => f;
     const http = require('node:http');
     const { parentPort } = require('node:worker_threads');
     const nowMs = () => performance.timeOrigin + performance.now();
     const receiver = (${receiverServer.toString()})((m) => parentPort.postMessage(m), nowMs);
     parentPort.on('message', async ({ id, op }) => {
       const result = op === 'count' ? receiver.count() : op === 'take' ? receiver.take() : await receiver.close();
       parentPort.postMessage({ id, result });
     });`,
    { eval: true },
  );
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
  });
  let nextId = 0;
  const pending = new Map<number, (result: unknown) => void>();
  worker.on('message', (m: { id: number; result: unknown }) => {
    pending.get(m.id)?.(m.result);
    pending.delete(m.id);
  });
  const call = <T>(op: 'count' | 'take' | 'close') =>
    new Promise<T>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve as (result: unknown) => void);
      worker.postMessage({ id, op });
    });
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => call<number>('count'),
    /** Hands back what arrived since the last take and starts a new list. */
    take: () => call<Arrival[]>('take'),
    close: async () => {
      await call('close');
      await worker.terminate();
    },
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Every expected delivery id arrived exactly once, and nothing else arrived. */
function checkExactlyOnce(expected: Set<string>, arrivals: Arrival[]) {
  const seen = new Map<string, number>();
  for (const a of arrivals) seen.set(a.deliveryId, (seen.get(a.deliveryId) ?? 0) + 1);
  const duplicates = [...seen.values()].filter((n) => n > 1).length;
  const missing = [...expected].filter((id) => !seen.has(id)).length;
  const unexpected = [...seen.keys()].filter((id) => !expected.has(id)).length;
  const ok = duplicates === 0 && missing === 0 && unexpected === 0 && arrivals.length === expected.size;
  return {
    ok,
    expected: expected.size,
    received: arrivals.length,
    unique: seen.size,
    duplicates,
    missing,
    unexpected,
    summary: ok
      ? `ok: ${expected.size}/${expected.size} exactly once`
      : `FAILED: ${seen.size}/${expected.size} unique, ${duplicates} dup, ${missing} missing, ${unexpected} unexpected`,
  };
}

/** The secret box the services use (same SECRETS_KEY / DATA_DIR key). */
const sealer = createSecretBox(loadSecretKeys(parseEnv({})));

async function accountWithEndpoints(database: Database, receiver: Receiver, tag: string, endpoints: number) {
  const account = await createAccount(database.db, {
    email: `bench-${tag}-${Date.now()}@example.com`,
    plan: 'enterprise',
    earlyAccess: true,
  });
  for (let i = 0; i < endpoints; i++) {
    await createEndpoint(database.db, {
      accountId: account.id,
      url: `${receiver.url}/${tag}/${i}`,
      events: [...WEBHOOK_EVENTS],
      form: 'A',
      // Sealed as registration seals it: every attempt opens it.
      secret: sealer.seal(FORM_PROFILES.A.newWebhookSecret()),
    });
  }
  return account;
}

async function deliveryIdsOf(database: Database, accountId: string): Promise<Set<string>> {
  const rows = await database.db
    .select({ id: deliveries.id })
    .from(deliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, deliveries.endpointId))
    .where(eq(webhookEndpoints.accountId, accountId));
  return new Set(rows.map((r) => r.id));
}

/** The database's view after a run: delivery statuses and attempts of the account. */
async function databaseState(database: Database, accountId: string) {
  const statuses = await database.db
    .select({ status: deliveries.status, n: count() })
    .from(deliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, deliveries.endpointId))
    .where(eq(webhookEndpoints.accountId, accountId))
    .groupBy(deliveries.status);
  const [attempts] = await database.db
    .select({ n: count() })
    .from(deliveryAttempts)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, deliveryAttempts.endpointId))
    .where(and(eq(webhookEndpoints.accountId, accountId)));
  return {
    statuses: Object.fromEntries(statuses.map((s) => [s.status, Number(s.n)])),
    attempts: Number(attempts?.n ?? 0),
  };
}

// ---------------------------------------------------------------------------------------------
// 1. Throughput

async function throughput(database: Database, receiver: Receiver, dispatchers: number, shared: boolean) {
  const tag = `tp${dispatchers}${shared ? 's' : 'o'}`;
  const account = await accountWithEndpoints(database, receiver, tag, ENDPOINTS);
  const meetings = Math.ceil(DELIVERIES / ENDPOINTS);
  const madeAt = performance.now();
  for (let i = 0; i < meetings; i++) {
    await createMeeting(database.db, { kick: () => {} }, account.id, {
      title: `Webhook bench ${i}`,
      platform: 'zoom',
    });
  }
  const eventSeconds = (performance.now() - madeAt) / 1000;
  const expected = await deliveryIdsOf(database, account.id);

  const base = makeServices();
  const services = Array.from({ length: dispatchers }, (_, i) => (shared || i === 0 ? base : makeServices()));
  await receiver.take();
  const started = performance.now();
  const counts: WorkCounts[] = await profiled(`${database.kind}-${tag}-${Date.now()}`, () =>
    Promise.all(services.map((s) => runDueWork(database.db, s, { budgetMs: 600_000 }))),
  );
  const seconds = (performance.now() - started) / 1000;
  const arrivals = await receiver.take();
  await Promise.all([...new Set(services)].map((s) => s.webhooks.sender.close()));

  const check = checkExactlyOnce(expected, arrivals);
  const state = await databaseState(database, account.id);
  const succeeded = counts.reduce((n, c) => n + c.deliveries_succeeded, 0);
  const dbOk =
    state.statuses.succeeded === expected.size &&
    state.attempts === expected.size &&
    succeeded === expected.size;
  const label =
    dispatchers === 1
      ? '1 dispatcher'
      : `${dispatchers} dispatchers (${shared ? 'one shared Services' : 'a Services each'})`;
  process.stderr.write(
    `${database.kind}: ${label}: ${expected.size} deliveries in ${seconds.toFixed(2)} s, ${check.summary}\n`,
  );
  return {
    measure: `throughput, ${label}`,
    dispatchers,
    shared_services: shared,
    events: meetings,
    events_per_second_made: Math.round(meetings / eventSeconds),
    deliveries: expected.size,
    seconds: +seconds.toFixed(2),
    deliveries_per_second: Math.round(expected.size / seconds),
    succeeded_per_dispatcher: counts.map((c) => c.deliveries_succeeded),
    exactly_once: check,
    database_check: { ok: dbOk, ...state, reported_succeeded: succeeded },
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Event → first attempt, through the recorder API and the in-process worker

const SUMMARY = {
  context: 'Webhook latency bench',
  decisions: ['Ship v2'],
  action_items: [{ task: 'Update mocks', owner: 'Ana', deadline: 'Friday' }],
  participants: ['Ana'],
  next_step: 'Review on Monday',
  budget_mentioned: null,
  sentiment: 'positive',
};
const SEGMENTS = [
  { speaker: 'Ana', content: 'Let us start with the release plan.', start_time: 0, end_time: 2.1 },
  { speaker: 'Ben', content: 'We ship version two on Friday.', start_time: 2.1, end_time: 4.5 },
];

type LatencyMode = 'mixed' | 'started only';

async function latency(database: Database, receiver: Receiver, mode: LatencyMode) {
  const account = await accountWithEndpoints(
    database,
    receiver,
    mode === 'mixed' ? 'lat-mixed' : 'lat-started',
    LATENCY_ENDPOINTS,
  );
  const { plaintext: key } = await createApiKey(database.db, { accountId: account.id });

  // As server/runtime/handlers.ts wires it: the services' kick is the worker's.
  let worker: Worker | null = null;
  const services = makeServices(() => worker?.kick());
  worker = startWorker({
    getDatabase: async () => database,
    services: () => services,
    intervalMs: WORKER_INTERVAL_MS,
  });
  const handlers = createAppHandlers({
    getDatabase: async () => database,
    services,
    cron: { secret: undefined, openWithoutSecret: false },
  });
  const server = await serveNode((p) => routeFor(handlers, p));

  const requestTimes: number[] = [];
  async function post(path: string, json: unknown): Promise<{ id: string }> {
    const start = performance.now();
    const res = await fetch(`${server.url}/api/recorder${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
    const body = await res.text();
    requestTimes.push(performance.now() - start);
    if (res.status !== 200 && res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${body}`);
    return JSON.parse(body) as { id: string };
  }
  let meetingId = '';
  /** Event i: mixed, the round robin meeting.started, meeting.transcribed, summary.ready; else meeting.started. */
  async function produce(i: number) {
    if (mode === 'started only' || i % 3 === 0)
      meetingId = (await post('/meetings', { title: `Latency ${i}`, platform: 'zoom' })).id;
    else if (i % 3 === 1)
      await post(`/meetings/${meetingId}/transcript`, { segments: SEGMENTS, generate_summary: false });
    else await post(`/meetings/${meetingId}/summary`, { summary: SUMMARY });
  }
  async function settle(expected: number) {
    const until = performance.now() + SETTLE_TIMEOUT_MS;
    while ((await receiver.count()) < expected && performance.now() < until) await sleep(10);
  }

  try {
    // Warm-up: one meeting's three events, not measured.
    await receiver.take();
    for (let i = 0; i < 3; i++) await produce(i);
    await settle(3 * LATENCY_ENDPOINTS);
    await receiver.take();
    requestTimes.length = 0;
    const before = await deliveryIdsOf(database, account.id);

    const started = performance.now();
    for (let i = 0; i < EVENTS; i++) {
      await sleep(started + i * SPACING_MS - performance.now());
      await produce(i);
    }
    const producedSeconds = (performance.now() - started) / 1000;
    await settle(EVENTS * LATENCY_ENDPOINTS);
    const arrivals = await receiver.take();
    const expected = new Set(
      [...(await deliveryIdsOf(database, account.id))].filter((id) => !before.has(id)),
    );
    const check = checkExactlyOnce(expected, arrivals);

    const firstArrival = new Map<string, Arrival>();
    for (const a of arrivals) if (!firstArrival.has(a.deliveryId)) firstArrival.set(a.deliveryId, a);
    const stats = (list: Arrival[]) => {
      const delays = list.map((a) => a.at - a.createdAt).sort((x, y) => x - y);
      return {
        n: delays.length,
        p50_ms: round1(percentile(delays, 50)),
        p99_ms: round1(percentile(delays, 99)),
        max_ms: round1(delays[delays.length - 1] ?? NaN),
      };
    };
    const all = [...firstArrival.values()];
    const byEvent = Object.fromEntries(
      ['meeting.started', 'meeting.transcribed', 'summary.ready'].map((e) => [
        e,
        stats(all.filter((a) => a.event === e)),
      ]),
    );
    const sortedRequests = [...requestTimes].sort((a, b) => a - b);
    process.stderr.write(
      `${database.kind}: latency (${mode}): ${all.length} first attempts, ${check.summary}\n`,
    );
    return {
      mode,
      events: EVENTS,
      endpoints: LATENCY_ENDPOINTS,
      spacing_ms: SPACING_MS,
      worker_interval_ms: WORKER_INTERVAL_MS,
      produced_in_seconds: +producedSeconds.toFixed(2),
      recorder_request_p50_ms: round1(percentile(sortedRequests, 50)),
      recorder_request_p99_ms: round1(percentile(sortedRequests, 99)),
      all: stats(all),
      by_event: byEvent,
      exactly_once: check,
    };
  } finally {
    await worker.stop();
    await server.close();
    await services.webhooks.sender.close();
  }
}

// ---------------------------------------------------------------------------------------------

async function bench(database: Database, receiver: Receiver) {
  const started = performance.now();
  const runs = [];
  if (ONLY !== 'latency') {
    for (let r = 0; r < REPEAT; r++) {
      for (const n of DISPATCHER_COUNTS) {
        runs.push(await throughput(database, receiver, n, true));
        if (n > 1) runs.push(await throughput(database, receiver, n, false));
      }
    }
  }
  const latencies = [];
  if (ONLY !== 'throughput') {
    latencies.push(await latency(database, receiver, 'mixed'));
    latencies.push(await latency(database, receiver, 'started only'));
  }
  const seconds = +((performance.now() - started) / 1000).toFixed(1);

  const table = [
    ...runs.map((r) => ({
      measure: r.measure,
      deliveries: r.deliveries,
      seconds: r.seconds,
      'deliveries/s': r.deliveries_per_second,
      'p50 ms': '',
      'p99 ms': '',
      'max ms': '',
      check: `${r.exactly_once.summary}${r.database_check.ok ? '' : ' (database disagrees)'}`,
    })),
    ...latencies.flatMap((lat) =>
      Object.entries(
        lat.mode === 'mixed' ? { 'all events': lat.all, ...lat.by_event } : { 'meeting.started': lat.all },
      )
        .filter(([, s]) => s.n > 0)
        .map(([name, s], i) => ({
          measure: `event → first attempt (${lat.mode}), ${name}`,
          deliveries: s.n,
          seconds: '',
          'deliveries/s': '',
          'p50 ms': s.p50_ms,
          'p99 ms': s.p99_ms,
          'max ms': s.max_ms,
          check: i === 0 ? lat.exactly_once.summary : '',
        })),
    ),
  ];
  console.log(`\n${database.kind} (${seconds} s)`);
  console.table(table);
  return { database: database.kind, seconds, throughput: runs, latency: latencies };
}

const scriptStarted = performance.now();
const receiver = await startReceiver();
const results = [];
try {
  if (DATABASES.has('pglite')) {
    const embedded = await createTestDatabase({ serverUrl: null });
    try {
      results.push(await bench(embedded, receiver));
    } finally {
      await embedded.close();
    }
  }
  const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!DATABASES.has('postgres')) {
    // not asked for
  } else if (serverUrl) {
    const pg = await createTestDatabase({ serverUrl });
    try {
      results.push(await bench(pg, receiver));
    } finally {
      await pg.close();
    }
  } else {
    console.error('(set BENCH_DATABASE_URL to a PostgreSQL server to measure it too)');
  }
} finally {
  await receiver.close();
}
console.log(
  JSON.stringify({
    deliveries: DELIVERIES,
    events: EVENTS,
    endpoints: ENDPOINTS,
    receiver: RECEIVER_MODE,
    run_seconds: +((performance.now() - scriptStarted) / 1000).toFixed(1),
    results,
  }),
);
