import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { count, sql } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createAccount, createApiKey } from '../../server/accounts/accounts';
import { type Database, openPglite, queryRows } from '../../server/db/client';
import { accountDayBucket } from '../../server/rate-limit/plan-limits';
import { deliveries, deliveryAttempts, jobs, passages } from '../../server/db/schema';
import { OpenAIEmbedder } from '../../server/embeddings/openai-embedder';
import { createWorkStop } from '../../server/jobs/work-stop';
import { runDueWork } from '../../server/worker/run-due-work';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai-server';
import { createTestDatabase, migratedPgliteFolder } from '../support/test-database';
import { startTestApp } from '../support/test-app';

// Graceful shutdown of a real instance (test/operations/instance-process.ts: the runtime's start
// and its handlers in a child process) killed with SIGTERM in the middle of a batch, while a slow
// receiver holds its webhook attempts and a slow embeddings server its job; then a second
// instance on the same database does the rest. Deliveries are counted at the receiver by their
// webhook-id (the delivery id): none is lost, and none is sent twice unless it was in flight
// when the first instance gave up waiting (the documented at-least-once).

const ROOT = path.resolve(import.meta.dirname, '../..');
const MEETINGS = 30;
const SECRETS_KEY = randomBytes(32).toString('hex');

/**
 * A webhook receiver that counts deliveries by id and, while `holding`, keeps each request
 * unanswered until answerHeld() (or the connection goes away).
 */
async function startSlowReceiver() {
  const received: string[] = [];
  const held: http.ServerResponse[] = [];
  let holding = false;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      if (holding) held.push(res);
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    hold() {
      holding = true;
    },
    answerHeld() {
      holding = false;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
    },
    timesSent: (id: string) => received.filter((r) => r === id).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Instance {
  url: string;
  child: ChildProcess;
  /** The JSON log lines it wrote. */
  logs: Record<string, unknown>[];
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/operations/instance-process.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    const lines = stderr.split('\n');
    stderr = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    exited.then((code) => reject(new Error(`the instance exited (${code}): ${JSON.stringify(logs)}`)));
  });
  return { url, child, logs, exited };
}

afterEach(() => {
  // An instance a failed test left behind; the ones that passed have exited.
  for (const child of running) child.kill('SIGKILL');
});

/**
 * The database both instances use: a PostgreSQL database both reach at once (TEST_DATABASE_URL),
 * or an embedded one in a folder, which one process at a time may open, so the test looks into
 * it only while no instance runs.
 */
async function sharedDatabase(): Promise<{
  env: Record<string, string>;
  use<T>(fn: (db: Database['db']) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}> {
  if (process.env.TEST_DATABASE_URL) {
    const database = await createTestDatabase();
    return {
      env: { DATABASE_URL: database.url as string },
      use: <T>(fn: (db: Database['db']) => Promise<T>) => fn(database.db),
      close: () => database.close(),
    };
  }
  const dir = await migratedPgliteFolder('shutdown');
  const use = async <T>(fn: (db: Database['db']) => Promise<T>) => {
    const database = await openPglite(dir);
    try {
      return await fn(database.db);
    } finally {
      await database.close();
    }
  };
  return { env: { DATA_DIR: dir }, use, close: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function call(base: string, route: string, key: string, json: unknown) {
  const res = await fetch(base + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`${route}: ${res.status} ${JSON.stringify(body)}`);
  return body as { id: string };
}

const shutDownLog = (instance: Instance) => instance.logs.find((l) => l.msg === 'shut down');

let fake: FakeOpenAI | undefined;
let embedHoldMs = 0;
afterAll(async () => {
  await fake?.close();
});

/**
 * One run: the first instance is killed with SIGTERM while the receiver holds 16 attempts (the
 * sender's slots; the rest wait for one) and a job is embedding; `afterStop` decides what the
 * receiver then does. The second instance does what is left; the test checks nothing is lost.
 */
async function scenario(opts: { shutdownTimeoutMs: number; afterStop(receiver: Receiver): void }) {
  fake ??= await startFakeOpenAI({
    intercept: (_req, route) =>
      route === 'embeddings' && embedHoldMs > 0 ? { delayMs: embedHoldMs } : undefined,
  });
  const embeddings = fake;
  const receiver = await startSlowReceiver();
  const database = await sharedDatabase();
  const env = {
    ...database.env,
    SECRETS_KEY,
    LOG_LEVEL: 'info',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WORKER_INTERVAL_MS: '100',
    SHUTDOWN_TIMEOUT_MS: String(opts.shutdownTimeoutMs),
    // Embedding is background work (a job) with a remote provider: here a slow one on 127.0.0.1.
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_BASE_URL: embeddings.url,
    EMBEDDINGS_MODEL: 'test-embedding',
    EMBEDDINGS_DIMENSIONS: '384',
  };
  try {
    const key = await database.use(async (db) => {
      const account = await createAccount(db, {
        email: `shutdown-${Date.now()}@example.com`,
        earlyAccess: true,
        plan: 'pro',
        dailyLimit: null,
      });
      return (await createApiKey(db, { accountId: account.id, form: 'A' })).plaintext;
    });

    const first = await startInstance(env);
    await call(first.url, '/v1/webhooks', key, { url: receiver.url, events: ['meeting.transcribed'] });
    receiver.hold();
    embedHoldMs = 1000;
    for (let i = 0; i < MEETINGS; i++) {
      const { id } = await call(first.url, '/api/recorder/meetings', key, { platform: 'zoom' });
      await call(first.url, `/api/recorder/meetings/${id}/transcript`, key, {
        segments: [{ speaker: 'Ana', content: `Meeting ${i}: the plan is settled.`, start_time: 0 }],
        generate_summary: false,
      });
    }
    // Mid-batch: all 16 of the sender's slots are held by the receiver, the rest wait for one.
    await vi.waitFor(() => expect(receiver.received.length).toBe(16), { timeout: 30_000 });
    await vi.waitFor(() => expect(embeddings.requests.length).toBeGreaterThanOrEqual(1), { timeout: 30_000 });
    const inFlightAtStop = new Set(receiver.received);
    first.child.kill('SIGTERM');
    await vi.waitFor(() =>
      expect(first.logs.map((l) => l.msg)).toContain(
        'shutting down: no new background work; finishing what is in progress',
      ),
    );
    opts.afterStop(receiver);
    expect(await first.exited).toBe(0);

    // Nothing the first instance held is left leased: what it did not finish is due again now.
    const between = await database.use(async (db) => ({
      deliveries: await db
        .select({ status: deliveries.status, leased: sql<boolean>`${deliveries.lockedUntil} > now()` })
        .from(deliveries),
      jobs: await db.select({ leased: sql<boolean>`${jobs.lockedUntil} > now()` }).from(jobs),
    }));
    expect(between.deliveries).toHaveLength(MEETINGS);
    expect(between.deliveries.filter((d) => d.leased)).toEqual([]);
    expect(between.deliveries.filter((d) => d.status === 'pending').length).toBeGreaterThan(0);
    expect(between.jobs.length).toBeGreaterThan(0);
    expect(between.jobs.filter((j) => j.leased)).toEqual([]);

    // The second instance (the receiver and the embeddings server answer at once now) does the rest.
    receiver.answerHeld();
    embedHoldMs = 0;
    const second = await startInstance(env);
    await vi.waitFor(
      async () => {
        const left = await fetch(`${second.url}/api/ready`).then((r) => r.json());
        expect(left.backlog.deliveries.depth).toBe(0);
        expect(left.backlog.jobs.embed_transcript.depth).toBe(0);
      },
      { timeout: 60_000, interval: 250 },
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    const after = await database.use(async (db) => ({
      statuses: await db.select({ status: deliveries.status }).from(deliveries),
      attempts: (await db.select({ n: count() }).from(deliveryAttempts))[0]?.n,
      jobs: await db.select({ id: jobs.id }).from(jobs),
      indexed: (
        await db.select({ n: sql<number>`count(distinct ${passages.meetingId})::int` }).from(passages)
      )[0]?.n,
    }));
    // Nothing lost: every delivery reached the receiver and succeeded, every meeting was embedded.
    expect(after.statuses).toHaveLength(MEETINGS);
    expect(after.statuses.every((d) => d.status === 'succeeded')).toBe(true);
    expect(new Set(receiver.received).size).toBe(MEETINGS);
    expect(after.jobs).toEqual([]);
    expect(after.indexed).toBe(MEETINGS);
    return { first, second, receiver, inFlightAtStop, attempts: after.attempts };
  } finally {
    await receiver.close();
    await database.close();
  }
}

type Receiver = Awaited<ReturnType<typeof startSlowReceiver>>;

describe('SIGTERM mid-batch, then another instance', () => {
  it('attempts in flight finish, what was claimed and not started is released at once and sent once by the next instance', async () => {
    const { first, second, receiver, attempts } = await scenario({
      shutdownTimeoutMs: 20_000,
      // The held attempts are answered while the first instance waits for them.
      afterStop: (r) => r.answerHeld(),
    });
    expect(shutDownLog(first)).toMatchObject({
      finished_in_time: true,
      in_progress_at_deadline_deliveries: 0,
      in_progress_at_deadline_jobs: 0,
    });
    expect(shutDownLog(first)?.released_deliveries).toBeGreaterThan(0);
    // Exactly once each: the 16 in flight were answered and recorded before the exit.
    for (const id of new Set(receiver.received)) expect(receiver.timesSent(id)).toBe(1);
    expect(attempts).toBe(MEETINGS);
    expect(shutDownLog(second)).toMatchObject({ finished_in_time: true, released_deliveries: 0 });
    // Each meeting's job ran once: the one in progress finished, the others were given back
    // unstarted and done by the second instance. (A job embeds its text in more than one call.)
    const texts = (fake as FakeOpenAI).requests
      .filter((r) => r.path.endsWith('/embeddings'))
      .flatMap((r) => (r.body as { input: string[] }).input.join('\n').match(/Meeting \d+:/g) ?? []);
    const perMeeting = new Map<string, number>();
    for (const t of texts) perMeeting.set(t, (perMeeting.get(t) ?? 0) + 1);
    expect(perMeeting.size).toBe(MEETINGS);
    expect(new Set(perMeeting.values()).size).toBe(1);
  });

  it('past SHUTDOWN_TIMEOUT_MS, attempts still in flight are released too: sent again (at-least-once), none lost', async () => {
    const { first, receiver, inFlightAtStop } = await scenario({
      shutdownTimeoutMs: 500,
      // The receiver never answers the first instance: its 16 attempts are in flight at the deadline.
      afterStop: () => {},
    });
    expect(shutDownLog(first)).toMatchObject({
      finished_in_time: false,
      in_progress_at_deadline_deliveries: 16,
    });
    // Sent twice: exactly the 16 in flight at the deadline, by each instance once; the rest once.
    const twice = [...new Set(receiver.received)].filter((id) => receiver.timesSent(id) > 1);
    expect(new Set(twice)).toEqual(inFlightAtStop);
    for (const id of twice) expect(receiver.timesSent(id)).toBe(2);
  });
});

describe('a stop while jobs are queued', () => {
  it('the job in progress finishes; the jobs not started stay in the queue unleased, their attempt not counted', async () => {
    let first = true;
    const slow = await startFakeOpenAI({
      intercept: (_req, route) => {
        if (route !== 'embeddings' || !first) return undefined;
        first = false;
        return { delayMs: 2000 };
      },
    });
    const app = await startTestApp({
      services: { embedder: new OpenAIEmbedder({ baseUrl: slow.url, model: 'm', dimensions: 384 }) },
    });
    try {
      const { key } = await app.createAccount();
      for (let i = 0; i < 4; i++)
        await app.recordNote(key, { segments: [{ speaker: 'Ana', content: `Item ${i}.`, start_time: 0 }] });
      expect(await app.db.select({ id: jobs.id }).from(jobs)).toHaveLength(4);

      const stop = createWorkStop();
      const run = runDueWork(app.db, app.services, { budgetMs: 60_000, only: 'jobs', stop });
      await vi.waitFor(() => expect(slow.requests).toHaveLength(1));
      stop.stop();
      expect((await run).jobs_done).toBe(1);

      const left = await app.db.select({ attempts: jobs.attempts, lockedUntil: jobs.lockedUntil }).from(jobs);
      expect(left).toEqual(Array.from({ length: 3 }, () => ({ attempts: 0, lockedUntil: null })));
      expect(stop.leases.size).toBe(0);
      // A lane claims a job only when it can start it, so nothing else was held to release.
      expect(stop.leases.released.jobs).toBe(0);
      // Only the texts of the job that ran were embedded.
      const inputs = slow.requests.flatMap((r) => (r.body as { input: string[] }).input).join('\n');
      expect(new Set(inputs.match(/Item \d\./g))).toHaveProperty('size', 1);
    } finally {
      await app.close();
      await slow.close();
    }
  });
});

describe('a stop with requests counted in memory', () => {
  it('SIGTERM writes the keys’ usage and gives unused blocks of quota back: the day holds exactly the requests admitted', async () => {
    const database = await sharedDatabase();
    try {
      const { key, keyId, accountId } = await database.use(async (db) => {
        const account = await createAccount(db, {
          email: `counts-${Date.now()}@example.com`,
          earlyAccess: true,
          plan: 'pro',
          dailyLimit: null,
        });
        const created = await createApiKey(db, { accountId: account.id, form: 'A' });
        return { key: created.plaintext, keyId: created.key.id, accountId: account.id };
      });
      const instance = await startInstance({ ...database.env, SECRETS_KEY, LOG_LEVEL: 'info' });
      // Fast enough for the instance to serve the account's day from blocks.
      const REQUESTS = 200;
      for (let i = 0; i < REQUESTS; i++) {
        const res = await fetch(`${instance.url}/v1/notes?limit=1`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
      instance.child.kill('SIGTERM');
      expect(await instance.exited).toBe(0);
      const [usage, day] = await database.use(async (db) => [
        await queryRows<{ requests: number }>(
          db,
          sql`select requests from api_key_usage where key_id = ${keyId}`,
        ),
        await queryRows<{ count: number }>(
          db,
          sql`select count from rate_limit_counters where bucket = ${accountDayBucket(accountId)}`,
        ),
      ]);
      expect(Number(usage[0]?.requests)).toBe(REQUESTS);
      expect(day.map((r) => Number(r.count))).toEqual([REQUESTS]);
    } finally {
      await database.close();
    }
  });
});
