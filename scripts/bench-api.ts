// npm run bench:api [-- --rounds 6 --seconds 3 --concurrency 8 --db postgres,pglite --tree DIR --no-build]
//                    [--hot-only --servers 4 --connections 64 --hot-paths get,list]
//
// What the /v1 layer costs over a bare Next route. The built app (`next build`, served as
// `npm start` serves it) answers both:
//  - the service: GET /v1/notes?limit=20 (20 notes of 50 segments), GET /v1/notes/:id and
//    GET /v1/notes/search?q=… (a small account), Form A;
//  - the baseline: a bare Next route handler that runs the same SQL (the same functions:
//    the service's RequestCounter, listNotes, getNoteOrThrow, searchPassages) and writes the same bytes
//    by hand, without the facade, trpc-to-openapi, zod or the presenters. Its bodies are compared
//    byte for byte with the service's before measuring;
//  - the bare route: the same handler with no authentication at all (no key read, nothing
//    counted), told the account in its query: what a read costs with nothing around it.
// Rounds of the three alternate, in rotated order, on one server; each prints service ÷ baseline
// and service ÷ bare for throughput (median and range of the rounds' ratios), p50 and p99 latency
// ÷ baseline, the server's CPU per request (the Node process tree) and, on PostgreSQL, the
// backends' CPU and the WAL written per request (pg_stat_wal, the whole cluster: run it alone).
//
// The hot-account run (PostgreSQL only; --hot-only runs it alone): --servers (4) processes of the
// same build, started as above on free ports, on one database, and --connections (64) keep-alive
// connections spread evenly over them (an undici Pool a server). Two loads alternate in rotated
// rounds: hot, every request with the key of one account; spread, the same requests over 4
// accounts with the same data (connection i uses account i mod 4; every server sees all four).
// Each account is an enterprise account (daily limit 1,000,000,000) with one Form A key and one
// note of 50 segments; the requests are GET /v1/notes/:id (--hot-paths get,list adds
// GET /v1/notes?limit=20). It prints the throughput of each and hot ÷ spread (median and range of
// the rounds' ratios, goal ≥ 0.9×), p50 and p99 latency and hot p99 ÷ spread p99 (goal ≤ 1.5×),
// CPU per request and the backends seen waiting on a lock; any answer but a 200 fails the run.
//
// The baseline route exists only in a copy of the tree that this script makes and builds (by
// default in the system's temporary folder; --tree to choose): nothing of it is in the source tree
// or in a production build, and the source tree's own .next is never touched. Without
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) naming a PostgreSQL server, only PGlite runs.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { Pool } from 'undici';
import { createAccount, createApiKey } from '../server/accounts/accounts';
import { migrateDatabase, openPglite, openPostgres, type Database } from '../server/db/client';
import { parseEnv } from '../server/env';
import { createMeeting } from '../server/meetings/create-meeting';
import { storeTranscript } from '../server/meetings/store-transcript';
import { createServices } from '../server/services';
import { runDueWork } from '../server/worker/run-due-work';
import { percentile } from './bench-stats';
import { processTree } from './process-tree';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8' },
    db: { type: 'string', default: 'postgres,pglite' },
    tree: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'hot-only': { type: 'boolean', default: false },
    servers: { type: 'string', default: '4' },
    connections: { type: 'string', default: '64' },
    'hot-paths': { type: 'string', default: 'get' },
  },
});
const ROUNDS = Number(values.rounds);
const ROUND_MS = Number(values.seconds) * 1000;
const CONCURRENCY = Number(values.concurrency);
const SERVERS = Number(values.servers);
const CONNECTIONS = Number(values.connections);
/** Accounts of the spread load; the hot load uses the first. */
const SPREAD_ACCOUNTS = 4;
/** Requests each server answers before the hot-account run measures (half of them spread, half hot). */
const WARMUP_PER_SERVER = 400;
const HOT_PATHS = values['hot-paths'].split(',').map((p) => p.trim());
for (const [flag, n, min] of [
  ['--rounds', ROUNDS, 1],
  ['--seconds', ROUND_MS / 1000, 0.1],
  ['--concurrency', CONCURRENCY, 1],
  ['--servers', SERVERS, 1],
  ['--connections', CONNECTIONS, SERVERS],
] as const)
  if (!Number.isFinite(n) || n < min || (flag !== '--seconds' && !Number.isInteger(n)))
    throw new Error(
      `${flag}: expected ${flag === '--seconds' ? 'a number' : 'an integer'} of at least ${min}`,
    );
if (HOT_PATHS.some((p) => p !== 'get' && p !== 'list'))
  throw new Error('--hot-paths: a comma-separated list of get and list');
const root = path.resolve(import.meta.dirname, '..');
const tree = path.resolve(values.tree ?? path.join(os.tmpdir(), 'meeting-notes-bench-api'));
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const SEARCH_QUERY = 'release schedule for the importer';
const SECRETS_KEY = randomBytes(32).toString('hex');

// ---------------------------------------------------------------------------------------------
// The tree: a copy with the baseline route, built.

const BASELINE_ROUTE = `// Written by scripts/bench-api.ts into its copy of the tree; never part of the service.
import { bearerToken } from '@/server/accounts/authenticate-api-key';
import { getDatabase } from '@/server/db';
import { encodeCursor } from '@/server/http/opaque-cursor';
import { getNoteOrThrow } from '@/server/notes/get-note';
import { listNotes } from '@/server/notes/list-notes';
import type { NoteRecord } from '@/server/notes/note-record';
import { renderSummaryText } from '@/server/notes/summary';
import { ACCOUNT_DAY, KEY_MINUTE } from '@/server/rate-limit/plan-limits';
import { appServices } from '@/server/runtime/handlers';
import { searchPassages } from '@/server/search/search-passages';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const rules = { A: [ACCOUNT_DAY], B: [KEY_MINUTE, ACCOUNT_DAY] };
const segments = (n: NoteRecord) =>
  n.transcript.map((s) => ({ sequence: s.sequence, speaker: s.speaker, content: s.content, start_time: s.startTime }));
const listItem = (n: NoteRecord) => ({
  id: n.id, title: n.title ?? '', platform: n.platform, duration_seconds: n.durationSeconds,
  created_at: n.createdAt.toISOString(), ended_at: n.endedAt.toISOString(), transcript: segments(n),
});

export async function GET(request: Request, { params }: { params: Promise<{ kind: string }> }) {
  const { kind } = await params;
  const url = new URL(request.url);
  const { db } = await getDatabase();
  // ?account=: no authentication at all (the bare route); otherwise the key, counted as /v1 counts it.
  let accountId = url.searchParams.get('account');
  if (!accountId) {
    const counted = await appServices().requests.authenticateAndCount(db, bearerToken(request.headers.get('authorization')), {
      form: 'A', rules, now: new Date(),
    });
    if (!counted || !counted.limit.allowed) return new Response('{}', { status: 401 });
    accountId = counted.principal.account.id;
  }
  let body: unknown;
  if (kind === 'notes') {
    const page = await listNotes(db, accountId, { limit: Number(url.searchParams.get('limit') ?? 20) });
    const last = page.notes.at(-1);
    body = { data: page.notes.map(listItem), next_cursor: page.hasMore && last ? encodeCursor(last) : null, has_more: page.hasMore };
  } else if (kind === 'note') {
    const n = await getNoteOrThrow(db, accountId, url.searchParams.get('id') ?? '');
    body = {
      id: n.id, title: n.title ?? '', platform: n.platform, duration_seconds: n.durationSeconds,
      created_at: n.createdAt.toISOString(), ended_at: n.endedAt.toISOString(), language: n.language,
      transcript: segments(n),
      summary: n.summaryText ?? (n.summary ? renderSummaryText(n.summary) : null),
      action_items: (n.summary?.action_items ?? []).map((a) => ({ text: a.task, assignee: a.owner })),
    };
  } else {
    const hits = await searchPassages(db, appServices(), accountId, url.searchParams.get('q') ?? '', Number(url.searchParams.get('limit') ?? 10));
    body = { data: hits.map((h) => ({ note_id: h.noteId, title: h.title ?? '', snippet: h.snippet, score: h.score, start_time: h.startTime })) };
  }
  return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
}
`;

function prepareTree() {
  if (tree === root)
    throw new Error('--tree must not be the tree the script runs from: it writes a route into it');
  console.log(`Tree: ${tree} (a copy of ${root})`);
  fs.mkdirSync(tree, { recursive: true });
  // A fresh copy each time, but for the linked node_modules and Next's build cache.
  for (const entry of fs.readdirSync(tree))
    if (entry !== 'node_modules' && entry !== '.next') fs.rmSync(path.join(tree, entry), { recursive: true });
  const excluded = [
    'node_modules',
    '.next',
    '.data',
    '.git',
    'e2e/.state',
    'test-results',
    'playwright-report',
  ];
  const copy = spawnSync(
    'sh',
    [
      '-c',
      'tar -C "$1" -cf - $2 . | tar -C "$3" -xf -',
      'copy',
      root,
      excluded.map((p) => `--exclude=./${p}`).join(' '),
      tree,
    ],
    { stdio: 'inherit' },
  );
  if (copy.status !== 0) throw new Error('copying the tree failed');
  // What is measured: the working tree as it is, uncommitted changes included.
  const git = (...args: string[]) =>
    spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' }).stdout ?? '';
  const changed = git('status', '--porcelain', '--', 'app', 'server', 'proxy.ts', 'instrumentation.ts')
    .split('\n')
    .filter(Boolean).length;
  console.log(
    `Source: ${git('rev-parse', '--short', 'HEAD').trim() || '(not a git checkout)'}${
      changed ? `, with ${changed} uncommitted change${changed === 1 ? '' : 's'} under app/ and server/` : ''
    }`,
  );
  // Turbopack compiles nothing outside the tree, so a symlinked node_modules will not do: a copy
  // made of hard links (instant, no space) of the one the script runs with.
  const modules = path.join(tree, 'node_modules');
  if (fs.lstatSync(modules, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(modules);
  // Made again each time (a few seconds): a copy linked before the dependencies last changed
  // would lack the new ones, and npm rewrites its own lock file in place, so no file tells.
  fs.rmSync(modules, { recursive: true, force: true });
  if (!fs.existsSync(modules)) {
    const link = spawnSync('cp', ['-al', fs.realpathSync(path.join(root, 'node_modules')), modules], {
      stdio: 'inherit',
    });
    if (link.status !== 0) throw new Error('linking node_modules into the tree failed');
  }
  const route = path.join(tree, 'app', 'api', 'bench-baseline', '[kind]', 'route.ts');
  fs.mkdirSync(path.dirname(route), { recursive: true });
  fs.writeFileSync(route, BASELINE_ROUTE);
  const buildId = path.join(tree, '.next', 'BUILD_ID');
  if (values['no-build'] && fs.existsSync(buildId)) {
    // The route is as built: dated before the build, so that `npm start` does not build again.
    const before = new Date(fs.statSync(buildId).mtimeMs - 1000);
    for (const p of [
      route,
      path.dirname(route),
      path.dirname(path.dirname(route)),
      path.join(tree, 'app', 'api'),
    ])
      fs.utimesSync(p, before, before);
    return;
  }
  console.log('next build in the copy…');
  const build = spawnSync(process.execPath, [path.join(tree, 'node_modules/next/dist/bin/next'), 'build'], {
    cwd: tree,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (build.status !== 0) throw new Error('next build failed');
}

// ---------------------------------------------------------------------------------------------
// Data: one account with 20 notes of 50 segments, one small account to search (the comparison);
// four accounts with one note of 50 segments each (the hot-account run).

const LINES = [
  'Good morning, shall we start with the release schedule?',
  'The importer is on track for Friday if the review lands today.',
  'We still need a decision on the budget for the second quarter.',
  'Ana will send the hiring plan before the end of the week.',
  'Customers asked for a faster export of their meeting notes.',
  'Let us keep the retro short and book the room for Tuesday.',
];

interface Key {
  key: string;
  accountId: string;
}

/** An enterprise account (early access, a daily limit never reached) with one Form A key and
 * `notes` notes of `segments` segments; two calls with the same numbers make the same data. */
async function seedAccount(
  database: Database,
  services: ReturnType<typeof createServices>,
  notes: number,
  segments: number,
): Promise<Key> {
  const account = await createAccount(database.db, {
    email: `bench-${randomBytes(4).toString('hex')}@example.com`,
    earlyAccess: true,
    plan: 'enterprise',
    dailyLimit: 1_000_000_000,
  });
  const { plaintext } = await createApiKey(database.db, { accountId: account.id, form: 'A' });
  for (let i = 0; i < notes; i++) {
    const { id } = await createMeeting(database.db, services, account.id, {
      title: `Weekly sync ${i}`,
      platform: 'zoom',
    });
    await storeTranscript(database.db, services, account.id, id, {
      durationSeconds: segments * 6,
      generateSummary: false,
      segments: Array.from({ length: segments }, (_, s) => ({
        speaker: ['Ana', 'Ben', 'Chen'][s % 3] ?? 'Ana',
        content: `${LINES[(s + i) % LINES.length]} (${i}.${s})`,
        startTime: s * 6,
        endTime: s * 6 + 5,
      })),
    });
  }
  return { key: plaintext, accountId: account.id };
}

/** Embeds the passages (the worker's job), so that the servers have nothing to do but answer. */
async function runWorkerDry(database: Database, services: ReturnType<typeof createServices>) {
  for (let i = 0; i < 20; i++) {
    const counts = await runDueWork(database.db, services, { budgetMs: 30_000 });
    if (Object.values(counts).every((n) => !n)) break;
  }
}

async function seed(database: Database) {
  await migrateDatabase(database);
  const services = createServices(parseEnv({ EMBEDDINGS_PROVIDER: 'local' }));
  const listKey = await seedAccount(database, services, 20, 50);
  const searchKey = await seedAccount(database, services, 3, 15);
  await runWorkerDry(database, services);
  return { listKey, searchKey };
}

// ---------------------------------------------------------------------------------------------
// The server and its CPU.

/** Servers this script started and has not seen exit: stopped at the end, on failure and on exit. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
/** Databases this script made and has not dropped yet: dropped on SIGINT and SIGTERM too. */
const databases = new Set<() => Promise<void>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    for (const child of running) child.kill('SIGTERM');
    const drops = Promise.allSettled([...databases].map((drop) => drop()));
    const later = new Promise((resolve) => setTimeout(resolve, 10_000));
    void Promise.race([drops, later]).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });

/** A port nothing listens on now: the one the system hands out for listen(0). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

interface Server {
  url: string;
  child: ChildProcess;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  // As `npm start` starts it (package.json's start script), without npm itself in between.
  const { scripts } = JSON.parse(fs.readFileSync(path.join(tree, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const child = spawn('sh', ['-c', `exec ${scripts.start}`], {
    cwd: tree,
    env: {
      ...process.env,
      PATH: `${path.join(tree, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
      ...env,
      PORT: String(port),
      WORKER: 'off',
      // The servers share one database, so they share one key for webhook secrets, as a
      // deployment's instances must (and none warns that it made its own).
      SECRETS_KEY,
      LOG_LEVEL: 'warn',
      EMBEDDINGS_PROVIDER: 'local',
      NEXT_TELEMETRY_DISABLED: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`server on port ${port} not ready after 180 s: ${out}`)),
        180_000,
      );
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        if (/Ready on/.test(out)) {
          clearTimeout(timer);
          // Read on (and dropped), so that a full pipe never blocks the server.
          child.stdout?.off('data', onData);
          child.stdout?.resume();
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited (${code}): ${out}`));
      });
    });
  } catch (err) {
    await stopServer(child);
    throw err;
  }
  return { url: `http://127.0.0.1:${port}`, child };
}

/** SIGTERM (the server's own shutdown), SIGKILL if it has not exited 15 s later. */
async function stopServer(child: ChildProcess) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  running.delete(child);
}

/** CPU seconds used so far by a process and all its descendants. */
function treeCpuSeconds(pid: number): number {
  return pidsCpuSeconds(processTree(pid));
}

function pidsCpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      /* gone */
    }
  }
  return ticks / CLK_TCK;
}

// ---------------------------------------------------------------------------------------------
// Load.

interface Round {
  requests: number;
  seconds: number;
  latencies: number[];
  cpu: number;
  dbCpu: number;
  walBytes: number;
}

async function load(
  pool: Pool,
  target: string,
  key: string,
  ms: number,
): Promise<Omit<Round, 'cpu' | 'dbCpu' | 'walBytes'>> {
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + ms;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const res = await pool.request({
          method: 'GET',
          path: target,
          headers: { authorization: `Bearer ${key}` },
        });
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) throw new Error(`${target}: ${res.statusCode}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { requests: latencies.length, seconds: (performance.now() - start) / 1000, latencies };
}

async function body(pool: Pool, target: string, key: string): Promise<string> {
  const res = await pool.request({
    method: 'GET',
    path: target,
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${target}: ${res.statusCode} ${text}`);
  return text;
}

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const fixed = (n: number, d = 2) => n.toFixed(d);

/** A fresh database on the PostgreSQL server, and how to drop it. */
async function createPostgresDatabase(server: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mn_bench_api_${randomBytes(4).toString('hex')}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  const drop = async () => {
    databases.delete(drop);
    const sql = postgres(server, { max: 1, onnotice: () => {} });
    await sql.unsafe(`drop database if exists ${name} with (force)`);
    await sql.end();
  };
  databases.add(drop);
  return { url: url.toString(), drop };
}

async function measure(kind: 'postgres' | 'pglite') {
  let database: Database;
  let env: Record<string, string>;
  let drop = async () => {};
  let dataDir: string | undefined;
  if (kind === 'postgres' && serverUrl) {
    const made = await createPostgresDatabase(serverUrl);
    database = await openPostgres(made.url);
    env = { DATABASE_URL: made.url };
    drop = made.drop;
  } else {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-bench-api-'));
    database = await openPglite(dataDir);
    env = { DATA_DIR: dataDir };
  }
  const { listKey, searchKey } = await seed(database);
  await database.close();
  const server = await startServer(env);
  const serverPid = server.child.pid ?? 0;
  const pool = new Pool(server.url, { connections: CONCURRENCY, pipelining: 1 });
  // On PostgreSQL, the backends serving the app (the server's pool), for their CPU.
  const monitor = env.DATABASE_URL ? postgres(env.DATABASE_URL, { max: 1, onnotice: () => {} }) : null;
  /** WAL written by the whole cluster so far (bytes); 0 on PGlite. */
  const walBytes = async () =>
    monitor ? Number((await monitor`select wal_bytes::text as b from pg_stat_wal`)[0]?.b ?? 0) : 0;
  const backends = async () =>
    monitor
      ? (
          await monitor`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`
        ).map((r) => Number(r.pid))
      : [];
  try {
    const list = JSON.parse(await body(pool, '/v1/notes?limit=20', listKey.key)) as {
      data: { id: string }[];
    };
    const noteId = list.data[5]?.id ?? '';
    const q = encodeURIComponent(SEARCH_QUERY);
    const cases = [
      {
        name: 'list (20 notes × 50 segments)',
        key: listKey,
        service: '/v1/notes?limit=20',
        baseline: '/api/bench-baseline/notes?limit=20',
        bare: `/api/bench-baseline/notes?limit=20&account=${listKey.accountId}`,
      },
      {
        name: 'get (50 segments)',
        key: listKey,
        service: `/v1/notes/${noteId}`,
        baseline: `/api/bench-baseline/note?id=${noteId}`,
        bare: `/api/bench-baseline/note?id=${noteId}&account=${listKey.accountId}`,
      },
      {
        name: 'search (small account)',
        key: searchKey,
        service: `/v1/notes/search?q=${q}`,
        baseline: `/api/bench-baseline/search?q=${q}`,
        bare: `/api/bench-baseline/search?q=${q}&account=${searchKey.accountId}`,
      },
    ];
    console.log(`\n${kind}: ${ROUNDS} rounds of ${ROUND_MS / 1000} s per side, ${CONCURRENCY} connections`);
    const rows: string[][] = [];
    for (const c of cases) {
      const [a, b, bare] = [
        await body(pool, c.service, c.key.key),
        await body(pool, c.baseline, c.key.key),
        await body(pool, c.bare, c.key.key),
      ];
      if (a !== b) throw new Error(`${c.name}: the baseline's body differs from the service's`);
      if (a !== bare) throw new Error(`${c.name}: the bare route's body differs from the service's`);
      const sides = { service: [] as Round[], baseline: [] as Round[], bare: [] as Round[] };
      // Warm all three (JIT, connection pools, prepared statements).
      for (const side of ['service', 'baseline', 'bare'] as const) await load(pool, c[side], c.key.key, 1000);
      const orders = [
        ['service', 'baseline', 'bare'],
        ['baseline', 'bare', 'service'],
        ['bare', 'service', 'baseline'],
      ] as const;
      for (let r = 0; r < ROUNDS; r++) {
        for (const side of orders[r % orders.length] ?? orders[0]) {
          const pids = await backends();
          const cpu0 = treeCpuSeconds(serverPid);
          const db0 = pidsCpuSeconds(pids);
          const wal0 = await walBytes();
          const round = await load(pool, c[side], c.key.key, ROUND_MS);
          sides[side].push({
            ...round,
            cpu: treeCpuSeconds(serverPid) - cpu0,
            dbCpu: pidsCpuSeconds(pids) - db0,
            walBytes: (await walBytes()) - wal0,
          });
        }
      }
      const rps = (rs: Round) => rs.requests / rs.seconds;
      const ratios = sides.service.map((s, i) => rps(s) / rps(sides.baseline[i] ?? s));
      const bareRatios = sides.service.map((s, i) => rps(s) / rps(sides.bare[i] ?? s));
      const pooled = (rs: Round[]) => rs.flatMap((r) => r.latencies).sort((x, y) => x - y);
      const sum = (rs: Round[], f: (r: Round) => number) => rs.reduce((t, r) => t + f(r), 0);
      const perRequest = (rs: Round[], f: (r: Round) => number) =>
        (1000 * sum(rs, f)) / sum(rs, (r) => r.requests);
      const [s, bl, none] = [sides.service, sides.baseline, sides.bare];
      const perRequestTotal = (rs: Round[], f: (r: Round) => number) =>
        sum(rs, f) / sum(rs, (r) => r.requests);
      const sLat = pooled(s);
      const bLat = pooled(bl);
      rows.push([
        c.name,
        `${fixed(median(ratios))}× (${fixed(Math.min(...ratios))}–${fixed(Math.max(...ratios))})`,
        `${fixed(median(bareRatios))}× (${fixed(Math.min(...bareRatios))}–${fixed(Math.max(...bareRatios))})`,
        `${fixed(median(s.map(rps)), 0)} / ${fixed(median(bl.map(rps)), 0)} / ${fixed(median(none.map(rps)), 0)}`,
        `${fixed(percentile(sLat, 50) / percentile(bLat, 50))}× (${fixed(percentile(sLat, 50), 1)} / ${fixed(percentile(bLat, 50), 1)} ms)`,
        `${fixed(percentile(sLat, 99) / percentile(bLat, 99))}× (${fixed(percentile(sLat, 99), 1)} / ${fixed(percentile(bLat, 99), 1)} ms)`,
        `${fixed(perRequest(s, (r) => r.cpu) / perRequest(bl, (r) => r.cpu))}× (${fixed(perRequest(s, (r) => r.cpu))} / ${fixed(perRequest(bl, (r) => r.cpu))} ms)`,
        kind === 'postgres'
          ? `${fixed(perRequest(s, (r) => r.dbCpu))} / ${fixed(perRequest(bl, (r) => r.dbCpu))} / ${fixed(perRequest(none, (r) => r.dbCpu))} ms`
          : '(in the server)',
        kind === 'postgres'
          ? `${fixed(
              perRequestTotal(s, (r) => r.walBytes),
              0,
            )} / ${fixed(
              perRequestTotal(bl, (r) => r.walBytes),
              0,
            )} / ${fixed(
              perRequestTotal(none, (r) => r.walBytes),
              0,
            )}`
          : '—',
      ]);
    }
    const header = [
      'endpoint',
      'throughput service ÷ baseline (range)',
      'throughput service ÷ bare, no auth (range)',
      'req/s service / baseline / bare',
      'p50 ÷ baseline',
      'p99 ÷ baseline',
      'server CPU/request ÷ baseline',
      'DB CPU/request service / baseline / bare',
      'WAL bytes/request service / baseline / bare',
    ];
    console.log(`| ${header.join(' | ')} |`);
    console.log(`| ${header.map(() => '---').join(' | ')} |`);
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  } finally {
    await pool.close();
    await monitor?.end();
    await stopServer(server.child);
    await drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The hot-account run: several servers, one account against four.

interface HotRound {
  requests: number;
  seconds: number;
  latencies: number[];
  /** Answers other than 200 by status ('error' for a request that failed), and the first one. */
  failures: Map<string, number>;
  firstFailure?: string;
  cpu: number;
  dbCpu: number;
  /** CPU seconds of this process (the load), for the cores the whole run kept busy. */
  clientCpu: number;
  /** Backends of the database seen waiting on a heavyweight lock (Lock: a row, a transaction) and
   * on a lightweight one (LWLock: a buffer's content…), summed over the samples; and the samples. */
  lockWaits: number;
  lwLockWaits: number;
  samples: number;
}

/** Which server and which account of the spread load each connection uses: the connections in
 * even blocks, one a server, and in each block the accounts in turn (connection i: account i mod 4). */
const connectionPlan = Array.from({ length: CONNECTIONS }, (_, i) => ({
  server: Math.floor((i * SERVERS) / CONNECTIONS),
  account: i % SPREAD_ACCOUNTS,
}));

/**
 * Every connection sends requests one after the other until `stop` says so: with the hot account's
 * key (load 'hot') or its own account's (load 'spread'), through its server's pool, cycling through
 * the paths of that account.
 */
async function hotLoad(
  pools: Pool[],
  keys: Key[],
  paths: string[][],
  mode: 'hot' | 'spread',
  stop: (server: number) => boolean,
): Promise<Pick<HotRound, 'requests' | 'seconds' | 'latencies' | 'failures' | 'firstFailure'>> {
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  let firstFailure: string | undefined;
  const start = performance.now();
  await Promise.all(
    connectionPlan.map(async (c) => {
      const account = mode === 'hot' ? 0 : c.account;
      const key = keys[account]?.key ?? '';
      const targets = paths[account] ?? [];
      const pool = pools[c.server];
      if (!pool) throw new Error(`no pool for server ${c.server}`);
      for (let j = 0; !stop(c.server); j++) {
        const target = targets[j % targets.length] ?? '';
        const t = performance.now();
        let status: string;
        let text = '';
        try {
          const res = await pool.request({
            method: 'GET',
            path: target,
            headers: { authorization: `Bearer ${key}` },
          });
          status = String(res.statusCode);
          if (res.statusCode === 200) await res.body.arrayBuffer();
          else text = await res.body.text();
        } catch (err) {
          status = 'error';
          text = err instanceof Error ? err.message : String(err);
        }
        latencies.push(performance.now() - t);
        if (status !== '200') {
          failures.set(status, (failures.get(status) ?? 0) + 1);
          firstFailure ??= `${mode} ${target} on server ${c.server + 1}: ${status} ${text.slice(0, 300)}`;
        }
      }
    }),
  );
  return {
    requests: latencies.length,
    seconds: (performance.now() - start) / 1000,
    latencies,
    failures,
    firstFailure,
  };
}

/** A body with what differs between two accounts' copies of the same data (ids, times) left out. */
function comparable(text: string): string {
  const strip = (n: Record<string, unknown>) => {
    const { id: _id, created_at: _created, ended_at: _ended, ...rest } = n;
    return rest;
  };
  const body = JSON.parse(text) as Record<string, unknown> & { data?: Record<string, unknown>[] };
  return JSON.stringify(body.data ? { ...body, data: body.data.map(strip) } : strip(body));
}

async function measureHot(server: string) {
  const made = await createPostgresDatabase(server);
  const env = { DATABASE_URL: made.url };
  const servers: Server[] = [];
  const pools: Pool[] = [];
  let monitor: postgres.Sql | undefined;
  try {
    const database = await openPostgres(made.url);
    let keys: Key[];
    try {
      await migrateDatabase(database);
      const services = createServices(parseEnv({ EMBEDDINGS_PROVIDER: 'local' }));
      keys = [];
      for (let a = 0; a < SPREAD_ACCOUNTS; a++) keys.push(await seedAccount(database, services, 1, 50));
      await runWorkerDry(database, services);
    } finally {
      await database.close();
    }
    // One after the other: each start prepares the database (migrations, checked) before it serves.
    for (let s = 0; s < SERVERS; s++) servers.push(await startServer(env));
    for (let s = 0; s < SERVERS; s++) {
      const url = servers[s]?.url ?? '';
      pools.push(
        new Pool(url, {
          connections: connectionPlan.filter((c) => c.server === s).length,
          pipelining: 1,
        }),
      );
    }
    console.log(`\nServers: ${servers.map((s) => `${s.url} (pid ${s.child.pid})`).join(', ')}`);
    // Each account's paths; the bodies must be the same for all accounts but for ids and times, on
    // every server.
    const paths: string[][] = [];
    for (const [a, key] of keys.entries()) {
      const list = await body(pools[0] as Pool, '/v1/notes?limit=20', key.key);
      const noteId = (JSON.parse(list) as { data: { id: string }[] }).data[0]?.id;
      if (!noteId) throw new Error(`account ${a + 1}: no note listed`);
      paths.push(HOT_PATHS.map((p) => (p === 'get' ? `/v1/notes/${noteId}` : '/v1/notes?limit=20')));
    }
    for (const [i, target] of (paths[0] ?? []).entries()) {
      const expected = comparable(await body(pools[0] as Pool, target, keys[0]?.key ?? ''));
      for (const [a, key] of keys.entries())
        for (const [s, pool] of pools.entries()) {
          const got = comparable(await body(pool, paths[a]?.[i] ?? '', key.key));
          if (got !== expected)
            throw new Error(`${target}: account ${a + 1}'s body on server ${s + 1} differs from account 1's`);
        }
    }
    // Warm every server (JIT, its database pool, prepared statements), with every account.
    for (const mode of ['spread', 'hot'] as const) {
      const done = pools.map(() => 0);
      const warm = await hotLoad(pools, keys, paths, mode, (s) => {
        done[s] = (done[s] ?? 0) + 1;
        return (done[s] ?? 0) > WARMUP_PER_SERVER / 2;
      });
      if (warm.failures.size) throw new Error(`warming up: ${warm.firstFailure}`);
    }

    monitor = postgres(made.url, { max: 1, onnotice: () => {} });
    const sql = monitor;
    const backends = async () =>
      (
        await sql`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`
      ).map((r) => Number(r.pid));
    const serverCpu = () => servers.reduce((t, s) => t + treeCpuSeconds(s.child.pid ?? 0), 0);
    const what = HOT_PATHS.map((p) => (p === 'get' ? 'GET /v1/notes/:id' : 'GET /v1/notes?limit=20')).join(
      ' and ',
    );
    console.log(
      `postgres, hot account: ${SERVERS} servers, ${CONNECTIONS} connections (${connectionPlan.filter((c) => c.server === 0).length} on server 1), ` +
        `${ROUNDS} rounds of ${ROUND_MS / 1000} s per load; ${what}, 1 note of 50 segments an account; ` +
        `hot = 1 account, spread = ${SPREAD_ACCOUNTS} accounts`,
    );
    const sides = { hot: [] as HotRound[], spread: [] as HotRound[] };
    const orders = [
      ['hot', 'spread'],
      ['spread', 'hot'],
    ] as const;
    const rps = (r: HotRound) => r.requests / r.seconds;
    for (let r = 0; r < ROUNDS; r++) {
      for (const mode of orders[r % orders.length] ?? orders[0]) {
        const pids = await backends();
        const cpu0 = serverCpu();
        const db0 = pidsCpuSeconds(pids);
        const client0 = process.cpuUsage();
        // Backends waiting on a lock, sampled ten times a second while the load runs (a failed sample
        // ends the sampling, not the run: the load reports its own failures).
        let sampling = true;
        let lockWaits = 0;
        let lwLockWaits = 0;
        let samples = 0;
        const sampler = (async () => {
          while (sampling) {
            const [row] = await sql`select
                count(*) filter (where wait_event_type = 'Lock')::int as lock,
                count(*) filter (where wait_event_type = 'LWLock')::int as lwlock
              from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
            lockWaits += Number(row?.lock ?? 0);
            lwLockWaits += Number(row?.lwlock ?? 0);
            samples++;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        })().catch(() => {});
        const end = performance.now() + ROUND_MS;
        const round = await hotLoad(pools, keys, paths, mode, () => performance.now() >= end);
        const client = process.cpuUsage(client0);
        sampling = false;
        await sampler;
        sides[mode].push({
          ...round,
          cpu: serverCpu() - cpu0,
          dbCpu: pidsCpuSeconds(pids) - db0,
          clientCpu: (client.user + client.system) / 1e6,
          lockWaits,
          lwLockWaits,
          samples,
        });
      }
      const [h, sp] = [sides.hot[r], sides.spread[r]];
      if (h && sp)
        console.log(
          `  round ${r + 1}: hot ${fixed(rps(h), 0)} req/s, spread ${fixed(rps(sp), 0)} req/s, hot ÷ spread ${fixed(rps(h) / rps(sp))}×`,
        );
    }
    const pooled = (rs: HotRound[]) => rs.flatMap((r) => r.latencies).sort((x, y) => x - y);
    const sum = (rs: HotRound[], f: (r: HotRound) => number) => rs.reduce((t, r) => t + f(r), 0);
    const perRequestMs = (rs: HotRound[], f: (r: HotRound) => number) =>
      (1000 * sum(rs, f)) / sum(rs, (r) => r.requests);
    const failures = (rs: HotRound[]) => {
      const all = new Map<string, number>();
      for (const r of rs) for (const [k, n] of r.failures) all.set(k, (all.get(k) ?? 0) + n);
      return all;
    };
    const failureText = (m: Map<string, number>) =>
      m.size ? [...m].map(([k, n]) => `${n} × ${k}`).join(', ') : '0';
    const samples = (rs: HotRound[]) =>
      Math.max(
        1,
        sum(rs, (r) => r.samples),
      );
    const rows = (['hot', 'spread'] as const).map((mode) => {
      const rs = sides[mode];
      const lat = pooled(rs);
      return [
        mode === 'hot' ? 'hot (1 account)' : `spread (${SPREAD_ACCOUNTS} accounts)`,
        `${fixed(median(rs.map(rps)), 0)} (${fixed(Math.min(...rs.map(rps)), 0)}–${fixed(Math.max(...rs.map(rps)), 0)})`,
        `${fixed(percentile(lat, 50), 1)} ms`,
        `${fixed(percentile(lat, 99), 1)} ms`,
        `${fixed(perRequestMs(rs, (r) => r.cpu))} ms`,
        `${fixed(perRequestMs(rs, (r) => r.dbCpu))} ms`,
        `${fixed(sum(rs, (r) => r.lockWaits) / samples(rs), 2)} / ${fixed(sum(rs, (r) => r.lwLockWaits) / samples(rs), 2)}`,
        fixed(sum(rs, (r) => r.cpu + r.dbCpu + r.clientCpu) / sum(rs, (r) => r.seconds), 2),
        failureText(failures(rs)),
      ];
    });
    const header = [
      'load',
      'req/s (median, range of rounds)',
      'p50',
      'p99',
      'server CPU/request (all servers)',
      'DB CPU/request',
      'backends waiting on Lock / LWLock (mean of samples)',
      'cores busy (servers + DB + load)',
      'non-200',
    ];
    console.log(`| ${header.join(' | ')} |`);
    console.log(`| ${header.map(() => '---').join(' | ')} |`);
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    const ratios = sides.hot.map((h, i) => rps(h) / rps(sides.spread[i] ?? h));
    const [hLat, sLat] = [pooled(sides.hot), pooled(sides.spread)];
    const p99Ratio = percentile(hLat, 99) / percentile(sLat, 99);
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT MET');
    console.log(
      `throughput hot ÷ spread: ${fixed(median(ratios))}× (rounds ${fixed(Math.min(...ratios))}–${fixed(Math.max(...ratios))}); goal ≥ 0.9×: ${verdict(median(ratios) >= 0.9)}`,
    );
    console.log(
      `p50 hot ÷ spread: ${fixed(percentile(hLat, 50) / percentile(sLat, 50))}×; p99 hot ÷ spread: ${fixed(p99Ratio)}× (${fixed(percentile(hLat, 99), 1)} / ${fixed(percentile(sLat, 99), 1)} ms); goal ≤ 1.5×: ${verdict(p99Ratio <= 1.5)}`,
    );
    const failed = [...sides.hot, ...sides.spread].find((r) => r.failures.size);
    if (failed)
      throw new Error(
        `answers other than 200 (hot: ${failureText(failures(sides.hot))}; spread: ${failureText(
          failures(sides.spread),
        )}); the first: ${failed.firstFailure}`,
      );
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await monitor?.end();
    await Promise.all(servers.map((s) => stopServer(s.child)));
    // Any server that failed to start has been stopped by startServer; none of ours is left.
    await Promise.all([...running].map((child) => stopServer(child)));
    await made.drop();
  }
}

async function main() {
  const kinds = values.db.split(',').map((k) => k.trim());
  for (const kind of kinds)
    if (kind !== 'postgres' && kind !== 'pglite') throw new Error(`--db: unknown database ${kind}`);
  if (values['hot-only'] && !serverUrl)
    throw new Error(
      '--hot-only: the hot-account run needs PostgreSQL (set BENCH_DATABASE_URL or TEST_DATABASE_URL)',
    );
  prepareTree();
  if (!values['hot-only'])
    for (const kind of kinds) {
      if (kind === 'postgres' && !serverUrl) {
        console.log(
          '\npostgres: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server)',
        );
        continue;
      }
      await measure(kind as 'postgres' | 'pglite');
    }
  if (serverUrl && (values['hot-only'] || kinds.includes('postgres'))) await measureHot(serverUrl);
  else
    console.log(
      `\nhot account: skipped (PostgreSQL only, PGlite being one process; ${
        serverUrl ? '--db has no postgres' : 'set BENCH_DATABASE_URL or TEST_DATABASE_URL'
      })`,
    );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
