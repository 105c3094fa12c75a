// npm run bench:auth [-- --pairs 40 --warmup 4 --accounts 200 --db pglite,postgres --mail smtp|log]
// Does "Forgot password?" answer in the same time whether or not the address has an account?
// The real handlers on a real socket (as the tests serve them) with the in-process worker of
// `npm start` (kicked as server/runtime/handlers.ts kicks it), the client address taken from
// X-Forwarded-For with TRUST_PROXY=1 as behind one proxy, and mail to a local SMTP server
// (--mail log: the mailer's log transport instead). The client runs in a thread of its own, as a
// real client is another program: on the server's thread, its reading of an answer would wait
// for whatever the server (and its worker) does next, and time that too. --accounts accounts are
// made first; then --pairs pairs of `account.requestPasswordReset` over HTTP, one for an address
// with an account and one without, alternating which goes first. Every request has an address and a client
// address of its own, so no throttle refuses one (5 an hour per address, 20 per client). Before
// each request the bench waits until the job queue is empty, so a request never shares the
// server with the background work of the one before it.
// Prints, per database, the median and p90 answer time of each kind, the difference of the
// medians, in how many pairs the known address was slower, and the two-sided sign test's p for
// that count (a count near half the pairs, p well above 0.05, is no signal), and how long after
// the answer the mail arrived. PostgreSQL runs when BENCH_DATABASE_URL (or TEST_DATABASE_URL)
// names a server.
import { parseArgs } from 'node:util';
import { Worker as Thread } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import { createAccount } from '../server/accounts/accounts';
import { installForwardedForPeer } from '../server/auth/client-address';
import { queryRows, type Database } from '../server/db/client';
import { parseEnv } from '../server/env';
import { serveNode } from '../server/http/serve-node';
import { createAppHandlers, routeFor } from '../server/runtime/app-handlers';
import { authSettings } from '../server/auth/auth-options';
import { createServices, type Services } from '../server/services';
import { startWorker, type Worker } from '../server/worker/worker';
import { startSmtpCapture } from '../test/support/smtp-capture';
import { createTestDatabase } from '../test/support/test-database';
import { percentile } from './bench-stats';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '40' },
    warmup: { type: 'string', default: '4' },
    accounts: { type: 'string', default: '200' },
    db: { type: 'string' },
    mail: { type: 'string', default: 'smtp' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`npm run bench:auth -- [options]
  --pairs N        measured pairs (known, unknown address), alternating which goes first (default 40)
  --warmup N       pairs sent first and not counted (default 4)
  --accounts N     accounts in the database; at least pairs + warmup (default 200)
  --db LIST        pglite,postgres (postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL)
  --mail smtp|log  mail to a local SMTP server (default) or the mailer's log transport`);
  process.exit(0);
}
const positive = (name: string, v: string | undefined, min = 1) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer of at least ${min}`);
  return n;
};
const PAIRS = positive('pairs', values.pairs);
const WARMUP = positive('warmup', values.warmup, 0);
const ACCOUNTS = Math.max(positive('accounts', values.accounts), PAIRS + WARMUP);
const MAIL = values.mail;
if (MAIL !== 'smtp' && MAIL !== 'log') throw new Error(`--mail is smtp or log, not ${MAIL}`);
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const DATABASES = (values.db ?? (serverUrl ? 'pglite,postgres' : 'pglite')).split(',').map((d) => d.trim());
for (const d of DATABASES) if (d !== 'pglite' && d !== 'postgres') throw new Error(`--db: unknown ${d}`);
if (DATABASES.includes('postgres') && !serverUrl)
  throw new Error('--db postgres needs BENCH_DATABASE_URL (or TEST_DATABASE_URL)');

const QUEUE_TIMEOUT_MS = 30_000;
const round2 = (n: number) => +n.toFixed(2);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** P(X ≤ k or X ≥ n − k) for X ~ Binomial(n, ½), k the smaller tail: the two-sided sign test. */
function signTestP(successes: number, n: number): number {
  const k = Math.min(successes, n - successes);
  let tail = 0;
  let term = 0.5 ** n; // C(n, 0) / 2^n
  for (let i = 0; i <= k; i++) {
    tail += term;
    term = (term * (n - i)) / (i + 1);
  }
  return Math.min(1, 2 * tail);
}

/** A distinct client address per request: 10.x.y.z from a counter. */
let clients = 0;
const nextClient = () => {
  const n = ++clients;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

/** The client: sends one request when told to and reports how long the answer took. */
const CLIENT_THREAD = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', async ({ id, url, email, client }) => {
  try {
    const started = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
      body: JSON.stringify({ email }),
    });
    const body = await res.text();
    const ms = performance.now() - started;
    parentPort.postMessage({ id, ms, at: performance.timeOrigin + performance.now(), status: res.status, body });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err) });
  }
});
`;

type Answer = { id: number; ms: number; at: number; status: number; body: string; error?: string };

function startClient() {
  const thread = new Thread(CLIENT_THREAD, { eval: true });
  const waiting = new Map<number, (answer: Answer) => void>();
  thread.on('message', (answer: Answer) => waiting.get(answer.id)?.(answer));
  let ids = 0;
  return {
    send(url: string, email: string, client: string): Promise<Answer> {
      const id = ++ids;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        thread.postMessage({ id, url, email, client });
      });
    },
    close: () => thread.terminate(),
  };
}

/** Wall-clock ms with sub-ms precision, comparable across threads. */
const nowMs = () => performance.timeOrigin + performance.now();

async function queuedJobs(database: Database): Promise<number> {
  const [row] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from jobs`);
  return Number(row?.n ?? 0);
}

/** Until no job is queued (the previous request's background work, if it queued any, is done). */
async function quiet(database: Database) {
  const deadline = Date.now() + QUEUE_TIMEOUT_MS;
  while ((await queuedJobs(database)) > 0) {
    if (Date.now() > deadline) throw new Error('the job queue did not empty within 30 s');
    await sleep(2);
  }
}

async function bench(kind: 'pglite' | 'postgres') {
  const database = await createTestDatabase({ serverUrl: kind === 'pglite' ? null : serverUrl });
  const smtp = MAIL === 'smtp' ? await startSmtpCapture({ onMail: (m) => arrived(m.to) }) : null;
  const mailAt = new Map<string, number>();
  function arrived(to: string[]) {
    for (const address of to) mailAt.set(address.toLowerCase(), nowMs());
  }
  const env = parseEnv({
    EMBEDDINGS_PROVIDER: 'local',
    TRUST_PROXY: '1',
    NEXTAUTH_URL: 'http://bench.example.test',
    NEXTAUTH_SECRET: 'bench-only-session-secret',
    EMAIL_FROM: 'Meeting Notes <no-reply@example.com>',
    ...(smtp && { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` }),
  });
  // As server/runtime/handlers.ts wires it: the services' kick is the in-process worker's.
  let worker: Worker | null = null;
  const services: Services = createServices(env, () => worker?.kick());
  worker = startWorker({
    getDatabase: async () => database,
    services: () => services,
    intervalMs: env.WORKER_INTERVAL_MS,
  });
  const handlers = createAppHandlers({
    getDatabase: async () => database,
    services,
    cron: { secret: undefined, openWithoutSecret: false },
    auth: authSettings(env),
  });
  const server = await serveNode((p) => routeFor(handlers, p));

  const stamp = Date.now();
  const known: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const email = `bench-auth-${stamp}-${i}@example.com`;
    await createAccount(database.db, { email, name: `Bench ${i}` });
    known.push(email);
  }
  let unknownSerial = 0;

  const clientThread = startClient();
  /** The answer's time, and when it was read (wall clock). */
  async function ask(email: string): Promise<{ ms: number; at: number }> {
    await quiet(database);
    const url = `${server.url}/api/trpc/account.requestPasswordReset`;
    const answer = await clientThread.send(url, email, nextClient());
    if (answer.error) throw new Error(`requestPasswordReset: ${answer.error}`);
    if (answer.status !== 200 || !answer.body.includes('"checkEmail":true'))
      throw new Error(`requestPasswordReset: ${answer.status} ${answer.body}`);
    return answer;
  }

  const times = { known: [] as number[], unknown: [] as number[] };
  const mailDelays: number[] = [];
  let knownSlower = 0;
  try {
    for (let i = 0; i < WARMUP + PAIRS; i++) {
      const knownEmail = known[i] ?? '';
      const unknownEmail = `bench-auth-${stamp}-nobody-${++unknownSerial}@example.com`;
      const order = i % 2 === 0 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const);
      const pair = { known: 0, unknown: 0 };
      let knownAnswered = 0;
      for (const which of order) {
        const { ms, at } = await ask(which === 'known' ? knownEmail : unknownEmail);
        pair[which] = ms;
        if (which === 'known') knownAnswered = at;
      }
      if (i < WARMUP) continue;
      times.known.push(pair.known);
      times.unknown.push(pair.unknown);
      if (pair.known > pair.unknown) knownSlower++;
      if (smtp) {
        await quiet(database);
        const at = mailAt.get(knownEmail.toLowerCase());
        if (at === undefined) throw new Error(`no reset mail reached ${knownEmail}`);
        mailDelays.push(at - knownAnswered);
      }
      process.stderr.write(`\r${kind}: ${i + 1 - WARMUP}/${PAIRS} pairs`);
    }
    process.stderr.write('\n');
    if (smtp) {
      const strays = [...mailAt.keys()].filter((a) => a.includes('-nobody-'));
      if (strays.length) throw new Error(`mail went to addresses without an account: ${strays.join(', ')}`);
    }
  } finally {
    await clientThread.close();
    await worker.stop();
    await server.close();
    await smtp?.close();
    await database.close();
  }
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const k = sorted(times.known);
  const u = sorted(times.unknown);
  const m = sorted(mailDelays);
  return {
    database: kind,
    pairs: PAIRS,
    'known p50 ms': round2(percentile(k, 50)),
    'known p90 ms': round2(percentile(k, 90)),
    'unknown p50 ms': round2(percentile(u, 50)),
    'unknown p90 ms': round2(percentile(u, 90)),
    'p50 known − unknown ms': round2(percentile(k, 50) - percentile(u, 50)),
    'known slower in': `${knownSlower} of ${PAIRS}`,
    'sign test p': +signTestP(knownSlower, PAIRS).toPrecision(2),
    'mail after answer p50 / p90 ms': smtp
      ? `${round2(percentile(m, 50))} / ${round2(percentile(m, 90))}`
      : '(log transport)',
  };
}

installForwardedForPeer(1);
const results = [];
for (const kind of DATABASES as ('pglite' | 'postgres')[]) results.push(await bench(kind));
console.table(results);
console.log(JSON.stringify(results));
