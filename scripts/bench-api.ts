// npm run bench:api [-- --rounds 6 --seconds 3 --concurrency 8 --db postgres,pglite --tree DIR --no-build]
//
// What the /v1 layer costs over a bare Next route. The built app (`next build`, served as
// `npm start` serves it) answers both:
//  - the service: GET /v1/notes?limit=20 (20 notes of 50 segments), GET /v1/notes/:id and
//    GET /v1/notes/search?q=… (a small account), Form A;
//  - the baseline: a bare Next route handler that runs the same SQL (the same functions:
//    authenticateAndCount, listNotes, getNoteOrThrow, searchPassages) and writes the same bytes
//    by hand, without the facade, trpc-to-openapi, zod or the presenters. Its bodies are compared
//    byte for byte with the service's before measuring;
//  - the bare route: the same handler with no authentication at all (no key read, nothing
//    counted), told the account in its query: what a read costs with nothing around it.
// Rounds of the three alternate, in rotated order, on one server; each prints service ÷ baseline
// and service ÷ bare for throughput (median and range of the rounds' ratios), p50 and p99 latency
// ÷ baseline, the server's CPU per request (the Node process tree) and, on PostgreSQL, the
// backends' CPU and the WAL written per request (pg_stat_wal, the whole cluster: run it alone).
//
// The baseline route exists only in a copy of the tree that this script makes and builds (by
// default in the system's temporary folder; --tree to choose): nothing of it is in the source tree
// or in a production build, and the source tree's own .next is never touched. Without
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) naming a PostgreSQL server, only PGlite runs.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
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
  },
});
const ROUNDS = Number(values.rounds);
const ROUND_MS = Number(values.seconds) * 1000;
const CONCURRENCY = Number(values.concurrency);
const root = path.resolve(import.meta.dirname, '..');
const tree = path.resolve(values.tree ?? path.join(os.tmpdir(), 'meeting-notes-bench-api'));
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const SEARCH_QUERY = 'release schedule for the importer';

// ---------------------------------------------------------------------------------------------
// The tree: a copy with the baseline route, built.

const BASELINE_ROUTE = `// Written by scripts/bench-api.ts into its copy of the tree; never part of the service.
import { authenticateAndCount, bearerToken } from '@/server/accounts/authenticate-api-key';
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
    const counted = await authenticateAndCount(db, bearerToken(request.headers.get('authorization')), {
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
// Data: one account with 20 notes of 50 segments, one small account to search.

const LINES = [
  'Good morning, shall we start with the release schedule?',
  'The importer is on track for Friday if the review lands today.',
  'We still need a decision on the budget for the second quarter.',
  'Ana will send the hiring plan before the end of the week.',
  'Customers asked for a faster export of their meeting notes.',
  'Let us keep the retro short and book the room for Tuesday.',
];

async function seed(database: Database) {
  await migrateDatabase(database);
  const services = createServices(parseEnv({ EMBEDDINGS_PROVIDER: 'local' }));
  const make = async (notes: number, segments: number) => {
    const account = await createAccount(database.db, {
      email: `bench-${randomBytes(4).toString('hex')}@example.com`,
      earlyAccess: true,
      plan: 'enterprise',
      dailyLimit: 1_000_000_000,
    });
    const { plaintext } = await createApiKey(database.db, { accountId: account.id, form: 'A' });
    const key = { key: plaintext, accountId: account.id };
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
    return key;
  };
  const listKey = await make(20, 50);
  const searchKey = await make(3, 15);
  // Embeds the passages (the worker's job), so that the server has nothing to do but answer.
  for (let i = 0; i < 20; i++) {
    const counts = await runDueWork(database.db, services, { budgetMs: 30_000 });
    if (Object.values(counts).every((n) => !n)) break;
  }
  return { listKey, searchKey };
}

// ---------------------------------------------------------------------------------------------
// The server and its CPU.

async function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = 3900 + Math.floor(Math.random() * 500);
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
      LOG_LEVEL: 'warn',
      EMBEDDINGS_PROVIDER: 'local',
      NEXT_TELEMETRY_DISABLED: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/Ready on/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
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

async function measure(kind: 'postgres' | 'pglite') {
  let database: Database;
  let env: Record<string, string>;
  let drop = async () => {};
  let dataDir: string | undefined;
  if (kind === 'postgres' && serverUrl) {
    const name = `mn_bench_api_${randomBytes(4).toString('hex')}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    database = await openPostgres(url.toString());
    env = { DATABASE_URL: url.toString() };
    drop = async () => {
      const sql = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    };
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
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    await drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  prepareTree();
  const kinds = values.db.split(',').map((k) => k.trim());
  for (const kind of kinds) {
    if (kind === 'postgres' && !serverUrl) {
      console.log('\npostgres: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server)');
      continue;
    }
    if (kind !== 'postgres' && kind !== 'pglite') throw new Error(`--db: unknown database ${kind}`);
    await measure(kind);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
