import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { Receiver } from '../test/support/webhook-receiver';
import { freePort, PGBOUNCER_POOL_SIZE, type PgBouncer, startPgBouncer } from '../test/support/pgbouncer';
import { runScript } from '../test/support/run-command';

// Several instances of the service behind one transaction-mode pooler, as on Vercel or on several
// machines: three real servers started at the same moment on a fresh database, reaching
// PostgreSQL only through PgBouncer (pool_mode = transaction, DATABASE_POOL_MODE=transaction),
// with no worker of their own (WORKER=off). Their migrations race; webhook deliveries are
// dispatched only by /api/cron/dispatch calls spread over them, several at once; a Form B key's
// rate limit is counted across them; and the pooler is left with nothing waiting or held.

const ROOT = path.resolve(import.meta.dirname, '..');
const serverUrl = process.env.TEST_DATABASE_URL;
/** Each instance's log, and PgBouncer's, are kept here for reading after a run. */
const LOG_DIR = path.join(ROOT, 'test-results', 'pooler');
const INSTANCES = 3;
/** The pool each instance opens (openPostgres), at most. */
const CLIENTS_PER_INSTANCE = 10;
const ENDPOINTS = 3;
const EVENTS = 200;
const RATE_LIMITED_REQUESTS = 150;
const FORM_B_PER_MINUTE = 100;

const TAGS: string[] = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'drizzle', 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  }
).entries.map((e) => e.tag);

interface Instance {
  name: string;
  base: string;
  logFile: string;
  process: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * How one instance of the service starts: `npm start`'s own path, scripts/start.mjs (the build
 * Playwright's web server made, scripts/prepare.ts's migrations, then Next in that process).
 * The one place to change to start another deployable, such as Next's standalone server.
 */
function startInstance(name: string, port: number, env: NodeJS.ProcessEnv): Instance {
  const logFile = path.join(LOG_DIR, `${name}.log`);
  const out = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, base: `http://127.0.0.1:${port}`, logFile, process: child, exited };
}

const readLog = (instance: Instance) => fs.readFileSync(instance.logFile, 'utf8');

/** The JSON log lines of an instance (server/log.ts), its other output left out. */
function logEntries(instance: Instance): Record<string, unknown>[] {
  return readLog(instance)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Lines of an instance's output that report an error, logged or printed. */
function errorLines(instance: Instance): string[] {
  return readLog(instance)
    .split('\n')
    .filter((line) =>
      line.startsWith('{')
        ? (JSON.parse(line) as { level?: string }).level === 'error'
        : /error|exception|unhandled|fatal/i.test(line),
    );
}

/** Until the instance answers; an instance that exits, or never answers, fails with its log. */
async function waitUntilReady(instance: Instance, deadline: number): Promise<void> {
  for (;;) {
    if (instance.process.exitCode !== null)
      throw new Error(`${instance.name} exited (${instance.process.exitCode}):\n${readLog(instance)}`);
    const status = await fetch(`${instance.base}/api/openapi.json`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${instance.name} did not start:\n${readLog(instance)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A figure of the run, shown with the test's result and printed to the log of the run. */
function report(type: string, description: string) {
  test.info().annotations.push({ type, description });
  console.log(`${type}: ${description}`);
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

// PgBouncer pools connections to a PostgreSQL server; the embedded PGlite database is a library in
// one process, with no server to put a pooler in front of: @postgres, run with TEST_DATABASE_URL
// only (playwright.config.ts).
test.describe('several instances behind a transaction-mode pooler (PgBouncer) @postgres', () => {
  test.describe.configure({ mode: 'serial', timeout: 360_000 });

  const databaseName = `mn_pool_${randomBytes(4).toString('hex')}`;
  const cronSecret = randomBytes(16).toString('hex');
  let bouncer: PgBouncer;
  let direct: postgres.Sql;
  let receiver: Receiver;
  let instances: Instance[] = [];
  let env: NodeJS.ProcessEnv;
  /** An early-access pro account (its day's 10,000 requests never bind here) and its keys. */
  let account: { id: string; formB: { id: string; key: string }; formA: string };
  const dataDirs: string[] = [];
  /** The pooler's figures for this database, sampled while the instances work. */
  const samples: { clients: number; waiting: number; servers: number }[] = [];
  let sampling: Promise<void> | undefined;
  let stopSampling = false;

  /** SHOW POOLS' row of the test's database. */
  async function pool() {
    const rows = await bouncer.show<Record<string, string | number>>('SHOW POOLS');
    const row = rows.find((r) => r.database === databaseName);
    if (!row) throw new Error(`no pool for ${databaseName}: ${JSON.stringify(rows)}`);
    const n = (k: string) => Number(row[k] ?? 0);
    return {
      mode: String(row.pool_mode),
      waiting: n('cl_waiting'),
      serversActive: n('sv_active'),
      servers: n('sv_active') + n('sv_idle') + n('sv_used') + n('sv_tested') + n('sv_login'),
    };
  }

  async function clientsOfDatabase(): Promise<number> {
    const rows = await bouncer.show<{ database: string }>('SHOW CLIENTS');
    return rows.filter((r) => r.database === databaseName).length;
  }

  /** The admin command line, over the pooler like the instances. */
  async function admin(...args: string[]): Promise<Record<string, string>> {
    const run = await runScript('scripts/admin.ts', args, { ...env, DATA_DIR: dataDirs[0] });
    if (run.code !== 0) throw new Error(`admin ${args.join(' ')} failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as Record<string, string>;
  }

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    fs.rmSync(LOG_DIR, { recursive: true, force: true });
    fs.mkdirSync(LOG_DIR, { recursive: true });
    if (!serverUrl) throw new Error('the pooler runs in front of a PostgreSQL server: set TEST_DATABASE_URL');
    const server = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await server.unsafe(`create database ${databaseName}`);
    await server.end();
    const directUrl = new URL(serverUrl);
    directUrl.pathname = `/${databaseName}`;
    // The test's own look at the database goes around the pooler, and is told apart by its name.
    direct = postgres(directUrl.toString(), {
      max: 2,
      onnotice: () => {},
      connection: { application_name: 'pooler-test' },
    });
    bouncer = await startPgBouncer({
      serverUrl,
      database: databaseName,
      // Every instance's pool full, and room for the admin command line and the console.
      maxClientConnections: INSTANCES * CLIENTS_PER_INSTANCE + 12,
      keepLogAt: path.join(LOG_DIR, 'pgbouncer.log'),
    });
    receiver = new Receiver();
    await receiver.start();

    env = {
      ...process.env,
      DATABASE_URL: bouncer.url,
      DATABASE_POOL_MODE: 'transaction',
      WORKER: 'off',
      CRON_SECRET: cronSecret,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // What instances share besides the database: the key webhook secrets are sealed under, and
      // the session secret. Each keeps its own DATA_DIR, so nothing else is shared.
      SECRETS_KEY: randomBytes(32).toString('hex'),
      NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'info',
      NEXT_TELEMETRY_DISABLED: '1',
    };
    for (const name of ['DATABASE_URL_UNPOOLED', 'MIGRATE_ON_START', 'SMTP_URL', 'APP_ENV', 'VERCEL_ENV'])
      delete env[name];

    const ports = await Promise.all(Array.from({ length: INSTANCES }, () => freePort()));
    for (const _ of ports) dataDirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'mn-pool-instance-')));
    // All at once, on a database without a table: their migrations race.
    instances = ports.map((port, i) =>
      startInstance(`instance-${i + 1}`, port, { ...env, DATA_DIR: dataDirs[i] }),
    );
    // Generous: three servers starting at once on two busy cores.
    const started = Date.now();
    const deadline = started + 180_000;
    await Promise.all(instances.map((instance) => waitUntilReady(instance, deadline)));
    report(
      'start',
      `${INSTANCES} instances answered ${((Date.now() - started) / 1000).toFixed(1)} s after they were started`,
    );

    // The account and its keys through the admin command line, over the pooler too.
    const created = await admin(
      'account:create',
      '--email',
      `pooler-${databaseName}@example.com`,
      '--plan',
      'pro',
      '--early-access',
      '--form',
      'B',
    );
    const formA = await admin('key:create', '--account', created.account_id!, '--form', 'A');
    account = {
      id: created.account_id!,
      formB: { id: created.key_id!, key: created.api_key! },
      formA: formA.api_key!,
    };

    sampling = (async () => {
      while (!stopSampling) {
        const p = await pool();
        samples.push({ clients: await clientsOfDatabase(), waiting: p.waiting, servers: p.servers });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
  });

  test.afterAll(async () => {
    stopSampling = true;
    await sampling?.catch(() => {});
    for (const instance of instances)
      if (instance.process.exitCode === null) instance.process.kill('SIGTERM');
    await Promise.all(instances.map((i) => i.exited));
    await receiver?.close();
    await bouncer?.stop();
    await direct?.end();
    if (serverUrl) {
      const server = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await server.unsafe(`drop database if exists ${databaseName} with (force)`);
      await server.end();
    }
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('three instances starting at once on a fresh database through the pooler apply each migration once', async () => {
    expect((await pool()).mode).toBe('transaction');
    const runs = instances.map((instance) => logEntries(instance));
    const applied = runs.flatMap((entries) =>
      entries.filter((e) => e.msg === 'migrations applied').flatMap((e) => e.migrations as string[]),
    );
    expect([...applied].sort()).toEqual([...TAGS].sort());
    const rows = await direct<{ hash: string }[]>`select hash from drizzle.__drizzle_migrations`;
    expect(rows).toHaveLength(TAGS.length);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(TAGS.length);
    for (const instance of instances) {
      expect(readLog(instance), instance.name).toContain('Ready on');
      expect(errorLines(instance), instance.name).toEqual([]);
    }
    const waited = runs.map(
      (entries) => entries.filter((e) => e.msg === 'waited for another process to finish migrating').length,
    );
    report(
      'migrations',
      `${TAGS.length} applied once in all; per instance, its processes (npm start's preparing step, then the server) that found another holding the lock: ${waited.join(', ')}`,
    );
  });

  test('every webhook event is delivered exactly once, dispatched only by cron calls spread over the three instances, several at once', async () => {
    // The endpoints through the API, one per instance.
    const endpoints: { id: string; secret: string; path: string }[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const target = receiver.path(`endpoint-${i + 1}`);
      const res = await fetch(`${instances[i % INSTANCES]!.base}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.formA}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: target.url, events: ['meeting.started'] }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      const body = (await res.json()) as { id: string; secret: string };
      endpoints.push({ id: body.id, secret: body.secret, path: target.path });
    }

    // Events and their deliveries are written straight into the database, due now: no instance
    // learns of them (an event made through the API would have its request dispatch it right after
    // the response), so only the cron calls below can send them.
    const at = new Date(Date.now() - 1000).toISOString();
    const events = Array.from({ length: EVENTS }, (_, n) => ({ id: randomUUID(), n }));
    const deliveries = events.flatMap((event) =>
      endpoints.map((endpoint) => ({
        id: randomUUID(),
        endpoint_id: endpoint.id,
        event_id: event.id,
        payload: JSON.stringify({
          event: 'meeting.started',
          created_at: at,
          data: { id: event.id, n: event.n },
        }),
      })),
    );
    await direct.begin(async (tx) => {
      await tx`insert into events (id, account_id, type, data, created_at)
               select id, ${account.id}::uuid, 'meeting.started', jsonb_build_object('n', n), ${at}::timestamptz
               from jsonb_to_recordset(${JSON.stringify(events)}::text::jsonb) as e(id uuid, n int)`;
      await tx`insert into deliveries (id, endpoint_id, event_id, event, payload, status, next_attempt_at, created_at)
               select id, endpoint_id, event_id, 'meeting.started', payload, 'pending', ${at}::timestamptz, ${at}::timestamptz
               from jsonb_to_recordset(${JSON.stringify(deliveries)}::text::jsonb) as d(id uuid, endpoint_id uuid, event_id uuid, payload text)`;
    });

    const cron = (instance: Instance) =>
      fetch(`${instance.base}/api/cron/dispatch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cronSecret}` },
      }).then(async (res) => ({
        instance: instance.name,
        status: res.status,
        counts: (await res.json()) as Record<string, number>,
      }));
    // One call per instance at once; once deliveries arrive, a second round joins them mid-run.
    const calls = instances.map(cron);
    await expect.poll(() => receiver.received.length, { timeout: 60_000 }).toBeGreaterThan(0);
    calls.push(...instances.map(cron));
    await expect
      .poll(() => receiver.received.length, { timeout: 120_000 })
      .toBeGreaterThanOrEqual(deliveries.length);
    // Every call works until nothing is left to fall due within its budget: once all have
    // answered, nothing more is in flight.
    const answers = await Promise.all(calls);

    for (const answer of answers) expect(answer.status, answer.instance).toBe(200);
    const total = (key: string) => sum(answers.map((a) => a.counts[key] ?? 0));
    expect(total('deliveries_succeeded')).toBe(deliveries.length);
    expect(total('deliveries_retried')).toBe(0);
    expect(total('deliveries_failed')).toBe(0);

    expect(receiver.received).toHaveLength(deliveries.length);
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids).size).toBe(deliveries.length);
    expect([...ids].sort()).toEqual(deliveries.map((d) => d.id).sort());
    const byId = new Map<string, (typeof deliveries)[number]>(deliveries.map((d) => [d.id, d]));
    for (const r of receiver.received) {
      const delivery = byId.get(String(r.headers['webhook-id']))!;
      const endpoint = endpoints.find((e) => e.id === delivery.endpoint_id)!;
      expect(r.path).toBe(endpoint.path);
      expect(r.body).toBe(delivery.payload);
      // Sealed by the instance that created the endpoint, opened by whichever dispatched.
      new Webhook(endpoint.secret).verify(r.body, {
        'webhook-id': String(r.headers['webhook-id']),
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      });
    }
    const states = await direct<{ status: string; attempts_made: number; locked: boolean; n: number }[]>`
      select status, attempts_made, locked_until is not null as locked, count(*)::int as n from deliveries
      group by 1, 2, 3`;
    expect(states).toEqual([{ status: 'succeeded', attempts_made: 1, locked: false, n: deliveries.length }]);
    const [attempts] = await direct<{ n: number; deliveries: number }[]>`
      select count(*)::int as n, count(distinct delivery_id)::int as deliveries from delivery_attempts`;
    expect(attempts).toEqual({ n: deliveries.length, deliveries: deliveries.length });

    const perInstance = instances.map(
      (instance) =>
        `${instance.name} ${sum(answers.filter((a) => a.instance === instance.name).map((a) => a.counts.deliveries_succeeded ?? 0))}`,
    );
    report(
      'deliveries',
      `${EVENTS} events × ${ENDPOINTS} endpoints = ${deliveries.length} deliveries by ${answers.length} cron calls; sent per instance: ${perInstance.join(', ')}`,
    );
  });

  test('a note reads the same through all three instances, many times over', async () => {
    // Written straight into the database, as the events above are: made through the recorder, it
    // would leave work running after the response (its webhook attempts, its embedding) into the
    // next test's burst of requests.
    const id = randomUUID();
    const at = new Date(Date.now() - 60_000).toISOString();
    await direct.begin(async (tx) => {
      await tx`insert into meetings (id, account_id, title, platform, started_at, ended_at, duration_seconds, created_at, transcribed_at, generate_summary)
               values (${id}::uuid, ${account.id}::uuid, 'Through the pooler', 'zoom', ${at}::timestamptz,
                       ${at}::timestamptz, 0, ${at}::timestamptz, ${at}::timestamptz, false)`;
      await tx`insert into transcript_segments (meeting_id, sequence, speaker, content, start_time, end_time)
               values (${id}::uuid, 1, 'Ana', 'Read in every session.', 0, 2)`;
    });
    // More reads than the pool has sessions, on every instance at once.
    const reads = await Promise.all(
      Array.from({ length: 10 * INSTANCES }, async (_, n) => {
        const res = await fetch(`${instances[n % INSTANCES]!.base}/v1/notes/${id}`, {
          headers: { authorization: `Bearer ${account.formA}` },
        });
        return { status: res.status, body: (await res.json()) as { id?: string; transcript?: unknown } };
      }),
    );
    expect(reads.filter((r) => r.status !== 200)).toEqual([]);
    for (const { body } of reads) {
      expect(body.id).toBe(id);
      expect(body.transcript).toEqual([
        { sequence: 1, speaker: 'Ana', content: 'Read in every session.', start_time: 0 },
      ]);
    }
  });

  test("a Form B key's 100 requests a minute are shared by the three instances: 100 admitted in all, the rest 429", async () => {
    const key = account.formB;
    // Form B counts clock minutes: the burst starts with time to spare in this one, and its
    // answers are grouped by the window they name, should it still straddle two.
    await expect.poll(() => 60 - new Date().getUTCSeconds(), { timeout: 60_000 }).toBeGreaterThanOrEqual(20);
    const answers = await Promise.all(
      Array.from({ length: RATE_LIMITED_REQUESTS }, async (_, n) => {
        const instance = instances[n % INSTANCES]!;
        const res = await fetch(`${instance.base}/v1/notes?limit=1`, {
          headers: { authorization: `Bearer ${key.key}` },
        });
        await res.arrayBuffer();
        return { instance: instance.name, status: res.status, reset: res.headers.get('x-ratelimit-reset') };
      }),
    );
    expect(answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    const windows = new Map<string, { admitted: number; refused: number }>();
    for (const a of answers) {
      const w = windows.get(String(a.reset)) ?? { admitted: 0, refused: 0 };
      if (a.status === 200) w.admitted++;
      else w.refused++;
      windows.set(String(a.reset), w);
    }
    for (const [reset, w] of windows) {
      expect(w.admitted, `window ending ${reset}`).toBeLessThanOrEqual(FORM_B_PER_MINUTE);
      if (w.refused > 0) expect(w.admitted, `window ending ${reset}`).toBe(FORM_B_PER_MINUTE);
    }
    const refused = answers.filter((a) => a.status === 429).length;
    expect(refused).toBeGreaterThan(0);
    const counters = await direct<{ count: number }[]>`
      select count from rate_limit_counters where bucket = ${`key:${key.id}`}`;
    // The count kept in PostgreSQL: the window that refused is full, and none is past its limit.
    expect(Math.max(...counters.map((c) => c.count))).toBe(FORM_B_PER_MINUTE);
    const admittedBy = instances.map(
      (instance) =>
        `${instance.name} ${answers.filter((a) => a.instance === instance.name && a.status === 200).length}`,
    );
    report(
      'rate limit',
      `${RATE_LIMITED_REQUESTS} requests in ${windows.size} window(s): ${RATE_LIMITED_REQUESTS - refused} admitted (${admittedBy.join(', ')}), ${refused} answered 429`,
    );
  });

  test('the pooler is left with nothing waiting and no server connection held, and once the instances stop, with no client of theirs', async () => {
    stopSampling = true;
    await sampling;
    // Sampled while the instances worked: never more server connections than the pool has.
    expect(samples.length).toBeGreaterThan(0);
    for (const s of samples) expect(s.servers).toBeLessThanOrEqual(PGBOUNCER_POOL_SIZE);

    // The instances write the last second's key usage a second after the last requests: once
    // that is done, nothing waits and no server connection stays linked to a client.
    let after = await pool();
    await expect(async () => {
      after = await pool();
      expect(after.waiting).toBe(0);
      expect(after.serversActive).toBe(0);
      expect(after.servers).toBeLessThanOrEqual(PGBOUNCER_POOL_SIZE);
      const servers = await bouncer.show<{ database: string }>('SHOW SERVERS');
      expect(servers.filter((s) => s.database === databaseName).length).toBeLessThanOrEqual(
        PGBOUNCER_POOL_SIZE,
      );
      // PostgreSQL's side: the pooler's sessions, none left inside a transaction, and no lock
      // (advisory or otherwise) kept by a session between transactions.
      const sessions = await direct<{ state: string | null; n: number }[]>`
        select state, count(*)::int as n from pg_stat_activity
        where datname = ${databaseName} and application_name <> 'pooler-test' group by state`;
      expect(sessions.filter((s) => s.state !== 'idle')).toEqual([]);
      expect(sum(sessions.map((s) => s.n))).toBeLessThanOrEqual(PGBOUNCER_POOL_SIZE);
      const [locks] = await direct<{ n: number }[]>`
        select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid)
        where a.datname = ${databaseName} and a.application_name <> 'pooler-test'`;
      expect(locks?.n).toBe(0);
    }).toPass({ timeout: 15_000 });
    // What a server session keeps between transactions, looked at in every session of the pool:
    // as many transactions at once as the pool has connections, each then on a session of its
    // own. PgBouncer itself sets the parameters it tracks per client; nothing else may be left.
    const sweeper = postgres(bouncer.url, {
      max: PGBOUNCER_POOL_SIZE,
      prepare: false,
      fetch_types: false,
      onnotice: () => {},
    });
    let arrived = 0;
    let release = () => {};
    const allArrived = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const leftovers = await Promise.all(
        Array.from({ length: PGBOUNCER_POOL_SIZE }, () =>
          sweeper.begin(async (tx) => {
            // Without fetch_types, arrays would come back as text: each column is a list, or null.
            const [row] = await tx<
              {
                pid: number;
                statements: string | null;
                settings: string | null;
                channels: string | null;
                cursors: string | null;
              }[]
            >`
              select pg_backend_pid() as pid,
                     (select string_agg(name, ', ') from pg_prepared_statements) as statements,
                     (select string_agg(name, ', ') from pg_settings where source = 'session' and name not in
                       ('application_name', 'client_encoding', 'DateStyle', 'TimeZone', 'IntervalStyle', 'standard_conforming_strings')) as settings,
                     (select string_agg(c, ', ') from pg_listening_channels() c) as channels,
                     (select string_agg(name, ', ') from pg_cursors where name <> '') as cursors`;
            if (++arrived === PGBOUNCER_POOL_SIZE) release();
            await allArrived;
            return row!;
          }),
        ),
      );
      expect(new Set(leftovers.map((l) => l.pid)).size).toBe(PGBOUNCER_POOL_SIZE);
      expect(leftovers.filter((l) => l.statements ?? l.settings ?? l.channels ?? l.cursors)).toEqual([]);
    } finally {
      await sweeper.end();
    }
    const [temporary] = await direct<
      { n: number }[]
    >`select count(*)::int as n from pg_class where relpersistence = 't'`;
    expect(temporary?.n).toBe(0);
    const clientsDuringRun = await clientsOfDatabase();

    for (const instance of instances) instance.process.kill('SIGTERM');
    const codes = await Promise.all(instances.map((i) => i.exited));
    expect(codes).toEqual(instances.map(() => 0));
    // Each stopped as soon as it was idle, not at SHUTDOWN_TIMEOUT_MS: with no worker, nothing it
    // had answered (the usage write its requests armed included) was left for it to wait on.
    for (const instance of instances)
      expect(
        logEntries(instance).filter((entry) => entry.msg === 'shut down'),
        instance.name,
      ).toEqual([expect.objectContaining({ finished_in_time: true })]);
    await expect.poll(clientsOfDatabase, { timeout: 30_000 }).toBe(0);
    expect((await pool()).waiting).toBe(0);

    for (const instance of instances) expect(errorLines(instance), instance.name).toEqual([]);
    report(
      'pool',
      `PgBouncer pool of ${PGBOUNCER_POOL_SIZE}: at most ${Math.max(...samples.map((s) => s.servers))} server connections and ${Math.max(...samples.map((s) => s.clients))} clients (max ${Math.max(...samples.map((s) => s.waiting))} waiting) over ${samples.length} samples; after the run ${after.servers} server connections (${after.serversActive} active), ${after.waiting} waiting, ${clientsDuringRun} clients; after the instances stopped, 0 clients`,
    );
  });
});
