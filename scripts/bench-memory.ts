// npm run bench:memory [-- --db pglite,postgres --settle 20 --requests 60 --runs 1]
// The resident memory of the `npm start` process tree, as a user starts it.
// For each database it runs `npm start` in this tree (which builds first if the build is stale)
// on a port of its own — PGlite in a fresh DATA_DIR (so the first-run demo seed happens, as for a
// new user), PostgreSQL in a fresh database on BENCH_DATABASE_URL's server with one account and
// key made here — waits for "Ready on", lets it settle, and sums VmRSS over the tree (npm, its
// shell, the server) from /proc. Then it sends requests as a user would (notes list, a note,
// search, the sign-in page) and measures again after the same settling. Several runs give a
// range; nothing leaves 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { createAccount, createApiKey } from '../server/accounts/accounts';
import { migrateDatabase, openPostgres } from '../server/db/client';
import { processTree } from './process-tree';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    settle: { type: 'string', default: '20' },
    requests: { type: 'string', default: '60' },
    runs: { type: 'string', default: '1' },
  },
});
const root = path.resolve(import.meta.dirname, '..');
const serverUrl = process.env.BENCH_DATABASE_URL;
const kinds = (values.db ?? (serverUrl ? 'pglite,postgres' : 'pglite')).split(',').map((s) => s.trim());
for (const k of kinds) if (k !== 'pglite' && k !== 'postgres') throw new Error(`--db: unknown database ${k}`);
if (kinds.includes('postgres') && !serverUrl) throw new Error('--db postgres needs BENCH_DATABASE_URL');
const postgresServer = (): string => {
  if (!serverUrl) throw new Error('BENCH_DATABASE_URL is not set');
  return serverUrl;
};
const positive = (name: string, v: string | undefined) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${v}`);
  return n;
};
const SETTLE_S = positive('settle', values.settle);
const REQUESTS = positive('requests', values.requests);
const RUNS = positive('runs', values.runs);
const progress = (line: string) => process.stderr.write(`${line}\n`);

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

/** VmRSS of pid and every descendant, in MB, with each process's own figure. */
function treeRss(pid: number): { total: number; processes: { command: string; mb: number }[] } {
  const processes: { command: string; mb: number }[] = [];
  for (const p of processTree(pid)) {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      const command = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' ');
      processes.push({ command, mb: Math.round(kb / 1024) });
    } catch {
      /* gone */
    }
  }
  return { total: processes.reduce((a, p) => a + p.mb, 0), processes };
}

async function prepareKey(kind: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (kind === 'pglite') return null; // the demo seed prints one
  const name = `mn_bench_memory_${process.pid}_${Date.now()}`;
  const admin = postgres(postgresServer(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(postgresServer());
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  const database = await openPostgres(url.toString(), { max: 2 });
  try {
    await migrateDatabase(database);
    const account = await createAccount(database.db, {
      email: 'bench-memory@example.com',
      earlyAccess: true,
    });
    return (await createApiKey(database.db, { accountId: account.id })).plaintext;
  } finally {
    await database.close();
  }
}

async function dropDatabase(env: NodeJS.ProcessEnv) {
  if (!env.DATABASE_URL) return;
  const name = new URL(env.DATABASE_URL).pathname.slice(1);
  const admin = postgres(postgresServer(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}

function waitForReady(child: ChildProcess, timeoutMs: number): Promise<{ url: string; key: string | null }> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`npm start: no "Ready on" in ${timeoutMs} ms:\n${out}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /Ready on (http:\/\/\S+)/.exec(out);
      if (ready) {
        clearTimeout(timer);
        resolve({ url: ready[1] ?? '', key: /API key:\s+(\S+)/.exec(out)?.[1] ?? null });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${out}`));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends the requests; returns the first one's time (a search: the model's first use). */
async function exercise(url: string, key: string): Promise<number> {
  const auth = { authorization: `Bearer ${key}` };
  let first = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const which = (i + 2) % 4;
    const started = performance.now();
    const res =
      which === 0
        ? await fetch(`${url}/v1/notes?limit=20`, { headers: auth })
        : which === 1
          ? await fetch(`${url}/v1/notes?limit=20`, { headers: { ...auth, 'x-api-form': 'B' } })
          : which === 2
            ? await fetch(`${url}/v1/notes/search?q=${encodeURIComponent('database failover')}`, {
                headers: auth,
              })
            : await fetch(`${url}/sign-in`);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`request ${i} answered ${res.status}`);
    if (i === 0) first = performance.now() - started;
  }
  return first;
}

interface Row {
  database: string;
  run: number;
  /** From spawning `npm start` to its "Ready on" (the build is already there). */
  'ready s': number;
  'first search ms': number;
  'idle MB (tree)': number;
  'idle MB (server)': number;
  'after requests MB (tree)': number;
  'after requests MB (server)': number;
}

const rows: Row[] = [];
for (const kind of kinds) {
  for (let run = 1; run <= RUNS; run++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-bench-memory-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      NODE_ENV: 'production',
    };
    delete env.DATABASE_URL;
    const presetKey = await prepareKey(kind, env);
    progress(`${kind} run ${run}: npm start…`);
    const spawned = performance.now();
    const child = spawn('npm', ['start'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error('npm start did not start');
    try {
      const { url, key: demoKey } = await waitForReady(child, 600_000);
      const ready = (performance.now() - spawned) / 1000;
      const key = presetKey ?? demoKey;
      if (!key) throw new Error('npm start printed no API key');
      await sleep(SETTLE_S * 1000);
      const idle = treeRss(pid);
      const firstSearch = await exercise(url, key);
      await sleep(SETTLE_S * 1000);
      const after = treeRss(pid);
      const server = (t: typeof idle) => Math.max(...t.processes.map((p) => p.mb));
      progress(`  idle: ${idle.processes.map((p) => `${p.command} ${p.mb} MB`).join('; ')}`);
      rows.push({
        database: kind,
        run,
        'ready s': +ready.toFixed(1),
        'first search ms': Math.round(firstSearch),
        'idle MB (tree)': idle.total,
        'idle MB (server)': server(idle),
        'after requests MB (tree)': after.total,
        'after requests MB (server)': server(after),
      });
    } finally {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(undefined)));
      await dropDatabase(env);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
}
console.table(rows);
console.log(JSON.stringify({ settleSeconds: SETTLE_S, requests: REQUESTS, rows }));
