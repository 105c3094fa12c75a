// npm run bench:soak [-- --minutes 10 --rate 2 --segments 30 --read-rate 4 --drain-minutes 5
//   --warmup-seconds 60 --db pglite|postgres]   (--help lists them)
// Mixed load through the real server, as a user runs it, for a while: `npm start`'s own command
// (sh scripts/start.sh) on a free port, PGlite in a fresh DATA_DIR or, with --db postgres, a fresh
// database on the server named by BENCH_DATABASE_URL (or TEST_DATABASE_URL). One enterprise
// account with early access is made with the admin CLI before the start (a Form A key, and Form B
// keys enough to stay under Form B's 100 requests a minute per key), and two webhook receivers on
// 127.0.0.1 are registered through POST /v1/webhooks for every event: one answers 200, the other
// 500 to the first attempt of each delivery (by webhook-id) and 200 to the retry.
// For --minutes, two recorder clients create meetings (POST /api/recorder/meetings) and post
// their transcripts (generate_summary true) paced to --rate meetings a second, while readers of
// both forms list notes, get a note and search at --read-rate requests a second in all. Every
// 5 s the resident memory of the server's process tree is read from /proc. When the load stops,
// the events the meetings made (meeting.started for each meeting, meeting.transcribed and
// summary.ready for each transcript) are awaited at both receivers, up to --drain-minutes.
// Reports requests, statuses and p50/p99 latency per route, the RSS slope over the load after the
// warm-up (least squares, MB/min), the webhook events still missing when the load stopped, how long
// they took to arrive, the /api/ready backlog, and the meeting rate achieved. A human summary, then
// one JSON line. It exits non-zero only when the bench itself fails; nothing leaves 127.0.0.1.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { EVENT_TYPES, eventTypeOf, WEBHOOK_EVENTS, type WebhookEvent } from '../server/domain';
import { demoMeetings } from '../server/seed/demo-meetings';
import { percentile } from './bench-stats';
import { benchSegments } from './bench-transcripts';
import { processTree } from './process-tree';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '2' },
    segments: { type: 'string', default: '30' },
    'read-rate': { type: 'string', default: '4' },
    'drain-minutes': { type: 'string', default: '5' },
    'warmup-seconds': { type: 'string', default: '60' },
    db: { type: 'string', default: 'pglite' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`npm run bench:soak -- [options]
  --minutes M          how long the load lasts (default 10)
  --rate R             meetings a second, each created then transcribed (default 2)
  --segments S         transcript segments a meeting (default 30)
  --read-rate N        reads a second in all, half Form A, half Form B (default 4)
  --drain-minutes D    how long to wait for the webhook events after the load (default 5)
  --warmup-seconds W   load left out of the RSS slope (default 60; at most half the load)
  --db pglite|postgres PGlite in a fresh DATA_DIR (default) or a fresh database on the
                       PostgreSQL server of BENCH_DATABASE_URL or TEST_DATABASE_URL`);
  process.exit(0);
}
const positive = (name: string, v: string | undefined): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${v}`);
  return n;
};
const MINUTES = positive('minutes', values.minutes);
const RATE = positive('rate', values.rate);
const SEGMENTS = Math.round(positive('segments', values.segments));
const READ_RATE = positive('read-rate', values['read-rate']);
const DRAIN_MINUTES = positive('drain-minutes', values['drain-minutes']);
const LOAD_MS = MINUTES * 60_000;
const WARMUP_MS = Math.min(Number(values['warmup-seconds']) * 1000 || 0, LOAD_MS / 2);
const DB = values.db;
if (DB !== 'pglite' && DB !== 'postgres') throw new Error(`--db is pglite or postgres, not ${DB}`);
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (DB === 'postgres' && !serverUrl)
  throw new Error('--db postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');

const root = path.resolve(import.meta.dirname, '..');
const RSS_EVERY_MS = 5000;
const REQUEST_TIMEOUT_MS = 60_000;
/** Form B allows 100 requests a minute per key; each key is kept under this many. */
const FORM_B_PER_KEY_MINUTE = 80;
const WRITERS = 2;
const READERS_PER_FORM = 2;
const progress = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const now = () => performance.now();
const round1 = (n: number) => Math.round(n * 10) / 10;

// ---------------------------------------------------------------------------------------------
// What the writers send and the readers ask: the demo meetings' own sentences, cycled.

const segmentsOf = (meeting: number) => benchSegments(meeting, SEGMENTS);
const SEARCHES = [
  'postgres failover',
  'budget for the pilot',
  'what did we decide about the release date',
  'action items for the sprint',
  'renewal discount',
  'hiring decision for the backend role',
  'customer onboarding timeline',
  'board update revenue',
];

// ---------------------------------------------------------------------------------------------
// Requests, counted per route (method + route template).

interface RouteStats {
  statuses: Map<number, number>;
  latencies: number[];
  /** No answer: refused, reset or timed out. */
  failures: number;
}
const routes = new Map<string, RouteStats>();
/** The status each route answers when it works; anything else is counted as unexpected. */
const EXPECTED_STATUS: Record<string, number> = {
  'POST /api/recorder/meetings': 201,
  'POST /v1/webhooks': 201,
};

let baseUrl = '';
async function call(
  route: string,
  pathAndQuery: string,
  opts: { key: string; formB?: boolean; method?: 'GET' | 'POST'; body?: unknown; label?: string },
): Promise<{ status: number; text: string } | null> {
  const name = opts.label ? `${route} ${opts.label}` : route;
  let stats = routes.get(name);
  if (!stats) {
    stats = { statuses: new Map(), latencies: [], failures: 0 };
    routes.set(name, stats);
  }
  const headers: Record<string, string> = { authorization: `Bearer ${opts.key}` };
  if (opts.formB) headers['x-api-form'] = 'B';
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const started = now();
  try {
    const res = await fetch(baseUrl + pathAndQuery, {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    stats.latencies.push(now() - started);
    stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
    return { status: res.status, text };
  } catch {
    stats.failures++;
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Webhook receivers on 127.0.0.1: each delivery (webhook-id) is counted once, as arrived when the
// receiver answered it 2xx.

interface Arrival {
  /** event:meeting id, the event type (aliases resolved) and the envelope's data.id. */
  key: string;
  attempts: number;
  /** Date.now() when the receiver answered 2xx, null while it has not. */
  okAt: number | null;
  /** The envelope's created_at, ms. */
  createdAt: number;
}

class SoakReceiver {
  readonly deliveries = new Map<string, Arrival>();
  /** Key → webhook ids that carried it (more than one: the same event delivered twice). */
  readonly keys = new Map<string, Set<string>>();
  requests = 0;
  private server: http.Server | null = null;
  url = '';

  constructor(
    readonly name: string,
    /** Answer 500 to the first attempt of each delivery. */
    readonly failFirst: boolean,
  ) {}

  async start() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests++;
        const id = String(req.headers['webhook-id'] ?? '');
        let seen = this.deliveries.get(id);
        if (!seen) {
          let key = 'unreadable';
          let createdAt = Number.NaN;
          try {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              event: WebhookEvent;
              created_at: string;
              data: { id: string };
            };
            key = `${eventTypeOf(body.event)}:${body.data.id}`;
            createdAt = Date.parse(body.created_at);
          } catch {
            /* counted under "unreadable" */
          }
          seen = { key, attempts: 0, okAt: null, createdAt };
          this.deliveries.set(id, seen);
          const ids = this.keys.get(key) ?? new Set<string>();
          ids.add(id);
          this.keys.set(key, ids);
        }
        seen.attempts++;
        const fail = this.failFirst && seen.attempts === 1;
        if (!fail && seen.okAt === null) seen.okAt = Date.now();
        res.writeHead(fail ? 500 : 200, { 'content-type': 'text/plain' }).end(fail ? 'not yet' : 'ok');
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hooks/${this.name}`;
  }

  /** When `key` was answered 2xx, or null. */
  arrivedAt(key: string): number | null {
    let first: number | null = null;
    for (const id of this.keys.get(key) ?? []) {
      const at = this.deliveries.get(id)?.okAt ?? null;
      if (at !== null && (first === null || at < first)) first = at;
    }
    return first;
  }

  missing(expected: Set<string>): number {
    let n = 0;
    for (const key of expected) if (this.arrivedAt(key) === null) n++;
    return n;
  }

  report(expected: Set<string>) {
    const delays = [...this.deliveries.values()]
      .filter((d) => d.okAt !== null && Number.isFinite(d.createdAt))
      .map((d) => (d.okAt as number) - d.createdAt)
      .sort((a, b) => a - b);
    return {
      url: this.url,
      answers: this.failFirst ? '500 to the first attempt of each delivery, then 200' : '200',
      requests: this.requests,
      deliveries: this.deliveries.size,
      delivered: [...this.deliveries.values()].filter((d) => d.okAt !== null).length,
      retried: [...this.deliveries.values()].filter((d) => d.attempts > 1).length,
      missing: this.missing(expected),
      duplicates: [...this.keys.values()].filter((ids) => ids.size > 1).length,
      unexpected: [...this.keys.keys()].filter((k) => !expected.has(k)).length,
      event_to_2xx_ms: { p50: round1(percentile(delays, 50)), p99: round1(percentile(delays, 99)) },
    };
  }

  async close() {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

// ---------------------------------------------------------------------------------------------
// The server: admin CLI accounts first, then `npm start`'s command in a process group of its own.

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** VmRSS of pid and every descendant, in MB. */
function treeRssMb(pid: number): number {
  let kb = 0;
  for (const p of processTree(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* ended meanwhile */
    }
  }
  return kb / 1024;
}

/** Least squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
  }
  return sxx === 0 ? Number.NaN : sxy / sxx;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-bench-soak-'));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PORT: String(await freePort()),
  DATA_DIR: path.join(tmp, 'data'),
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  LOG_LEVEL: 'warn',
  NEXT_TELEMETRY_DISABLED: '1',
};
delete env.DATABASE_URL;
delete env.DATABASE_URL_UNPOOLED;
let databaseName: string | null = null;
let server: ChildProcess | null = null;
const serverLog = path.join(tmp, 'server.log');

function stopServer(signal: NodeJS.Signals) {
  const pid = server?.pid;
  if (pid === undefined || server?.exitCode !== null || server.signalCode !== null) return;
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

let cleanedUp = false;
async function cleanUp() {
  if (cleanedUp) return;
  cleanedUp = true;
  const child = server;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    stopServer('SIGTERM');
    // The server finishes or releases its background work (SHUTDOWN_TIMEOUT_MS, 20 s) first.
    if ((await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)])) === false) {
      stopServer('SIGKILL');
      await exited;
    }
  }
  if (databaseName && serverUrl) {
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${databaseName} with (force)`).catch(() => {});
    await admin.end();
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', () => stopServer('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    progress(`bench:soak: ${signal}, stopping the server…`);
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });

function admin(...args: string[]): Record<string, string> {
  const result = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['scripts/admin.ts', ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, string>;
}

function logTail(lines = 40): string {
  try {
    return fs.readFileSync(serverLog, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no server log)';
  }
}

async function startServer(): Promise<number> {
  const log = fs.openSync(serverLog, 'w');
  // What `npm start` runs (package.json): start.sh sets the memory flags and execs node, so the
  // pid is the server's own (whose title Next changes to next-server).
  const child = spawn('sh', ['scripts/start.sh'], {
    cwd: root,
    env,
    stdio: ['ignore', log, log],
    detached: true,
  });
  fs.closeSync(log);
  server = child;
  const pid = child.pid;
  if (pid === undefined) throw new Error('the server did not start');
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`the server exited (${code ?? signal}) before it was ready:\n${logTail()}`)),
    ),
  );
  exited.catch(() => {});
  const ready = (async () => {
    // A stale build is rebuilt first (about a minute, longer on a busy machine).
    const until = now() + 15 * 60_000;
    while (now() < until) {
      try {
        const res = await fetch(`${baseUrl}/api/ready`, { signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        if (res.status === 200) return;
      } catch {
        /* not listening yet */
      }
      await sleep(500);
    }
    throw new Error(`/api/ready did not answer 200 within 15 minutes:\n${logTail()}`);
  })();
  await Promise.race([ready, exited]);
  return pid;
}

async function readyBacklog(): Promise<unknown> {
  try {
    const res = await fetch(`${baseUrl}/api/ready`, { signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as { status?: string; backlog?: unknown };
    return { http_status: res.status, status: body.status ?? null, backlog: body.backlog ?? null };
  } catch (err) {
    return { error: String(err) };
  }
}

/** queued/due per job kind and for deliveries, on one line. */
function backlogLine(answer: unknown): string {
  const b = (answer as { backlog?: Record<string, unknown> | null }).backlog;
  if (!b) return JSON.stringify(answer);
  const part = (name: string, q: unknown) => {
    const { depth, due } = (q ?? {}) as { depth?: number; due?: number };
    return `${name} ${depth ?? '?'} queued / ${due ?? '?'} due`;
  };
  const jobs = Object.entries((b.jobs ?? {}) as Record<string, unknown>).map(([k, q]) => part(k, q));
  return [...jobs, part('deliveries', b.deliveries)].join(', ');
}

// ---------------------------------------------------------------------------------------------
// Paced clients: task i is due at startAt + i / rate; `clients` of them take the next due task in
// turn. A client that falls behind runs the next at once; none starts a task at or after endAt.

async function paced(opts: {
  rate: number;
  clients: number;
  startAt: number;
  endAt: number;
  task: (i: number, lateMs: number) => Promise<void>;
}): Promise<number> {
  let next = 0;
  const client = async () => {
    for (;;) {
      const due = opts.startAt + (next * 1000) / opts.rate;
      if (due >= opts.endAt || now() >= opts.endAt) return;
      const i = next++;
      await sleep(due - now());
      await opts.task(i, Math.max(0, now() - due));
    }
  };
  await Promise.all(Array.from({ length: opts.clients }, client));
  return next;
}

// ---------------------------------------------------------------------------------------------

const receivers = [new SoakReceiver('ok', false), new SoakReceiver('flaky', true)];
let exitCode = 0;
try {
  if (DB === 'postgres' && serverUrl) {
    databaseName = `mn_bench_soak_${randomBytes(4).toString('hex')}`;
    const adminSql = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await adminSql.unsafe(`create database ${databaseName}`);
    await adminSql.end();
    const url = new URL(serverUrl);
    url.pathname = `/${databaseName}`;
    env.DATABASE_URL = url.toString();
  }
  baseUrl = `http://127.0.0.1:${env.PORT}`;

  progress(`bench:soak: ${DB}; accounts with the admin CLI…`);
  const account = admin(
    'account:create',
    '--email',
    'soak@bench.test',
    '--plan',
    'enterprise',
    '--early-access',
    '--form',
    'A',
  ) as { account_id: string; api_key: string };
  const keyA = account.api_key;
  const formBRatePerMinute = (READ_RATE / 2) * 60;
  const keysB = Array.from(
    { length: Math.max(1, Math.ceil(formBRatePerMinute / FORM_B_PER_KEY_MINUTE)) },
    (_, i) =>
      admin('key:create', '--account', account.account_id, '--form', 'B', '--name', `soak B ${i + 1}`)
        .api_key as string,
  );

  progress(`bench:soak: starting the server (sh scripts/start.sh) on ${baseUrl}…`);
  const startedAt = now();
  const pid = await startServer();
  const readySeconds = (now() - startedAt) / 1000;
  // start.mjs rebuilds first when the build is older than a source (package.json included).
  const rebuilt = fs.readFileSync(serverLog, 'utf8').includes('Building (');
  progress(
    `bench:soak: ready in ${round1(readySeconds)} s${rebuilt ? ', the build included' : ''} (pid ${pid})`,
  );

  const rss: { at: number; mb: number }[] = [];
  const sampleRss = () => rss.push({ at: now(), mb: treeRssMb(pid) });
  sampleRss();
  const sampler = setInterval(sampleRss, RSS_EVERY_MS);

  for (const r of receivers) {
    await r.start();
    const res = await call('POST /v1/webhooks', '/v1/webhooks', {
      key: keyA,
      method: 'POST',
      body: { url: r.url, events: [...WEBHOOK_EVENTS] },
    });
    if (res?.status !== 201) throw new Error(`POST /v1/webhooks answered ${res?.status}: ${res?.text}`);
  }

  // The load.
  const expected = new Set<string>();
  const transcribed: string[] = [];
  const writerLate: number[] = [];
  let meetingsCreated = 0;
  let meetingsTranscribed = 0;
  let reads = 0;
  const loadStart = now();
  const loadEnd = loadStart + LOAD_MS;
  progress(
    `bench:soak: load for ${MINUTES} min: ${RATE} meetings/s of ${SEGMENTS} segments, ${READ_RATE} reads/s (Form B over ${keysB.length} key(s))`,
  );

  const writing = paced({
    rate: RATE,
    clients: WRITERS,
    startAt: loadStart,
    endAt: loadEnd,
    task: async (i, late) => {
      writerLate.push(late);
      const demo = demoMeetings[i % demoMeetings.length];
      const created = await call('POST /api/recorder/meetings', '/api/recorder/meetings', {
        key: keyA,
        method: 'POST',
        body: {
          title: `${demo?.title ?? 'Meeting'} (soak ${i})`,
          platform: demo?.platform ?? 'zoom',
          started_at: new Date(Date.now() - SEGMENTS * 6000).toISOString(),
        },
      });
      if (created?.status !== 201) return;
      const id = (JSON.parse(created.text) as { id: string }).id;
      meetingsCreated++;
      expected.add(`meeting.started:${id}`);
      const stored = await call(
        'POST /api/recorder/meetings/:id/transcript',
        `/api/recorder/meetings/${id}/transcript`,
        { key: keyA, method: 'POST', body: { segments: segmentsOf(i), generate_summary: true } },
      );
      if (stored?.status !== 200) return;
      meetingsTranscribed++;
      transcribed.push(id);
      for (const type of EVENT_TYPES) expected.add(`${type}:${id}`);
    },
  });

  const reader = (form: 'A' | 'B') => {
    const formB = form === 'B';
    const label = `(Form ${form})`;
    return paced({
      rate: READ_RATE / 2,
      clients: READERS_PER_FORM,
      startAt: loadStart,
      endAt: loadEnd,
      task: async (i) => {
        reads++;
        const key = formB ? (keysB[i % keysB.length] as string) : keyA;
        const op = i % 3;
        const id = transcribed[Math.floor(Math.random() * transcribed.length)];
        if (op === 1 && id !== undefined)
          await call('GET /v1/notes/:id', `/v1/notes/${id}`, { key, formB, label });
        else if (op === 2) {
          const q = encodeURIComponent(SEARCHES[i % SEARCHES.length] as string);
          await call('GET /v1/notes/search', `/v1/notes/search?q=${q}&limit=${formB ? 5 : 10}`, {
            key,
            formB,
            label,
          });
        } else await call('GET /v1/notes', '/v1/notes?limit=20', { key, formB, label });
      },
    });
  };

  const status = setInterval(() => {
    const errors = [...routes.values()].reduce(
      (a, s) => a + s.failures + [...s.statuses].reduce((b, [code, n]) => b + (code >= 500 ? n : 0), 0),
      0,
    );
    progress(
      `  ${Math.round((now() - loadStart) / 1000)} s: ${meetingsTranscribed} meetings transcribed, ${reads} reads, ` +
        `${errors} 5xx/failed, RSS ${Math.round(rss.at(-1)?.mb ?? 0)} MB, webhooks delivered ${receivers
          .map((r) => `${r.name} ${[...r.deliveries.values()].filter((d) => d.okAt !== null).length}`)
          .join(', ')}`,
    );
  }, 30_000);

  const [meetingsStarted] = await Promise.all([writing, reader('A'), reader('B')]);
  clearInterval(status);
  const stopAt = now();
  const stopWall = Date.now();
  const loadSeconds = (stopAt - loadStart) / 1000;
  sampleRss();
  const rssAtStop = rss.at(-1)?.mb ?? Number.NaN;
  const missingAtStop = Object.fromEntries(receivers.map((r) => [r.name, r.missing(expected)]));
  const backlogAtStop = await readyBacklog();
  progress(
    `bench:soak: load stopped after ${round1(loadSeconds)} s; waiting up to ${DRAIN_MINUTES} min for ${expected.size} events × ${receivers.length} endpoints…`,
  );

  // The drain.
  const drainUntil = now() + DRAIN_MINUTES * 60_000;
  while (receivers.some((r) => r.missing(expected) > 0) && now() < drainUntil) await sleep(500);
  const drained = receivers.every((r) => r.missing(expected) === 0);
  let lastArrival = stopWall;
  for (const r of receivers)
    for (const key of expected) lastArrival = Math.max(lastArrival, r.arrivedAt(key) ?? stopWall);
  const drainSeconds = drained ? (lastArrival - stopWall) / 1000 : null;
  const backlogAfterDrain = await readyBacklog();
  clearInterval(sampler);
  sampleRss();

  // The figures.
  const window = rss.filter((s) => s.at >= loadStart + WARMUP_MS && s.at <= stopAt);
  const rssSlope = slope(window.map((s) => ({ x: (s.at - loadStart) / 60_000, y: s.mb })));
  const routeRows = [...routes].map(([name, s]) => {
    const sorted = [...s.latencies].sort((a, b) => a - b);
    const template = name.replace(/ \(Form [AB]\)$/, '');
    const ok = EXPECTED_STATUS[template] ?? 200;
    let fiveXx = 0;
    let unexpected = 0;
    for (const [code, n] of s.statuses) {
      if (code >= 500) fiveXx += n;
      else if (code !== ok) unexpected += n;
    }
    return {
      route: name,
      requests: [...s.statuses.values()].reduce((a, n) => a + n, 0) + s.failures,
      statuses: Object.fromEntries([...s.statuses].sort(([a], [b]) => a - b)),
      '5xx': fiveXx,
      other_unexpected: unexpected,
      no_answer: s.failures,
      p50_ms: round1(percentile(sorted, 50)),
      p99_ms: round1(percentile(sorted, 99)),
    };
  });
  const target = Math.ceil((LOAD_MS / 1000) * RATE);
  const achievedRate = meetingsTranscribed / loadSeconds;
  const sortedLate = writerLate.sort((a, b) => a - b);
  const logLines = fs.readFileSync(serverLog, 'utf8').split('\n');
  const result = {
    database: DB,
    minutes: MINUTES,
    segments: SEGMENTS,
    ready_seconds: round1(readySeconds),
    rebuilt_before_start: rebuilt,
    load_seconds: round1(loadSeconds),
    meetings: {
      target_rate_per_s: RATE,
      target,
      started: meetingsStarted,
      created: meetingsCreated,
      transcribed: meetingsTranscribed,
      achieved_rate_per_s: Math.round(achievedRate * 1000) / 1000,
      matched_target: meetingsStarted >= target,
      writer_late_ms: { p50: round1(percentile(sortedLate, 50)), p99: round1(percentile(sortedLate, 99)) },
    },
    reads: {
      target_rate_per_s: READ_RATE,
      sent: reads,
      achieved_rate_per_s: Math.round((reads / loadSeconds) * 1000) / 1000,
      form_b_keys: keysB.length,
    },
    routes: routeRows,
    total_5xx: routeRows.reduce((a, r) => a + r['5xx'], 0),
    total_other_unexpected: routeRows.reduce((a, r) => a + r.other_unexpected, 0),
    total_no_answer: routeRows.reduce((a, r) => a + r.no_answer, 0),
    rss: {
      every_s: RSS_EVERY_MS / 1000,
      warmup_s: WARMUP_MS / 1000,
      samples_in_slope: window.length,
      slope_mb_per_min: round1(rssSlope),
      at_ready_mb: Math.round(rss[0]?.mb ?? Number.NaN),
      at_slope_start_mb: Math.round(window[0]?.mb ?? Number.NaN),
      at_stop_mb: Math.round(rssAtStop),
      after_drain_mb: Math.round(rss.at(-1)?.mb ?? Number.NaN),
      peak_mb: Math.round(Math.max(...rss.map((s) => s.mb))),
    },
    webhooks: {
      endpoints: receivers.length,
      expected_events: expected.size,
      expected_deliveries: expected.size * receivers.length,
      missing_at_stop: missingAtStop,
      drained,
      drain_seconds: drainSeconds === null ? null : round1(drainSeconds),
      drain_limit_minutes: DRAIN_MINUTES,
      receivers: Object.fromEntries(receivers.map((r) => [r.name, r.report(expected)])),
    },
    backlog_at_stop: backlogAtStop,
    backlog_after_drain: backlogAfterDrain,
    server_log: {
      warn: logLines.filter((l) => l.includes('"level":"warn"')).length,
      error: logLines.filter((l) => l.includes('"level":"error"')).length,
    },
  };

  const m = result.meetings;
  console.log(
    `\nbench:soak on ${DB}: ${round1(loadSeconds)} s of load after ${result.ready_seconds} s to ready${rebuilt ? ' (the build included)' : ''}`,
  );
  console.log(
    `meetings: ${m.transcribed} transcribed of ${m.target} targeted (${m.created} created), ` +
      (m.matched_target
        ? `the target rate of ${RATE}/s held (${m.achieved_rate_per_s}/s)`
        : `the writers fell behind: ${m.achieved_rate_per_s}/s against ${RATE}/s`) +
      `; writers late p50 ${m.writer_late_ms.p50} ms, p99 ${m.writer_late_ms.p99} ms`,
  );
  console.log(`reads: ${reads} (${result.reads.achieved_rate_per_s}/s against ${READ_RATE}/s)`);
  console.table(
    routeRows.map((r) => ({
      route: r.route,
      requests: r.requests,
      statuses: Object.entries(r.statuses)
        .map(([code, n]) => `${code}×${n}`)
        .join(' '),
      '5xx': r['5xx'],
      'other non-2xx': r.other_unexpected,
      'no answer': r.no_answer,
      'p50 ms': r.p50_ms,
      'p99 ms': r.p99_ms,
    })),
  );
  console.log(
    `5xx: ${result.total_5xx}; other unexpected statuses: ${result.total_other_unexpected}; no answer: ${result.total_no_answer}`,
  );
  console.log(
    `RSS of the server's process tree: ${result.rss.at_ready_mb} MB at ready, ${result.rss.at_slope_start_mb} MB after ` +
      `${result.rss.warmup_s} s of warm-up, ${result.rss.at_stop_mb} MB at stop, ${result.rss.after_drain_mb} MB after the drain, ` +
      `peak ${result.rss.peak_mb} MB; slope ${result.rss.slope_mb_per_min} MB/min over ${window.length} samples`,
  );
  console.log(
    `webhooks: ${expected.size} events × ${receivers.length} endpoints; missing at stop: ${receivers
      .map((r) => `${r.name} ${missingAtStop[r.name]}`)
      .join(', ')}; ` +
      (drained
        ? `all arrived ${result.webhooks.drain_seconds} s after the stop`
        : `not all arrived within ${DRAIN_MINUTES} min (missing ${receivers
            .map((r) => `${r.name} ${r.missing(expected)}`)
            .join(', ')})`),
  );
  for (const [name, r] of Object.entries(result.webhooks.receivers))
    console.log(
      `  ${name} (${r.answers}): ${r.requests} requests, ${r.delivered} deliveries answered 2xx, ${r.retried} retried, ` +
        `${r.duplicates} events delivered twice, ${r.unexpected} unexpected; event → 2xx p50 ${r.event_to_2xx_ms.p50} ms, p99 ${r.event_to_2xx_ms.p99} ms`,
    );
  console.log(`backlog at stop: ${backlogLine(backlogAtStop)}`);
  console.log(`backlog after the drain: ${backlogLine(backlogAfterDrain)}`);
  console.log(`server log: ${result.server_log.warn} warn, ${result.server_log.error} error lines`);
  console.log(JSON.stringify(result));
} catch (err) {
  console.error(`bench:soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  exitCode = 1;
} finally {
  for (const r of receivers) await r.close();
  await cleanUp();
}
process.exit(exitCode);
