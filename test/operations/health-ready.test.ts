import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, openPostgres } from '../../server/db/client';
import { JOB_KINDS } from '../../server/db/schema';
import { SemanticEmbedder } from '../../server/embeddings/semantic-embedder';
import { enqueueJob } from '../../server/jobs/jobs';
import { createWorkStop } from '../../server/jobs/work-stop';
import { insertDueDeliveries } from '../support/due-deliveries';
import { openDatabaseBefore } from '../support/older-database';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-database';
import { Receiver } from '../support/webhook-receiver';

// /api/health (the process is up) and /api/ready (database, migrations, model; the backlog),
// over HTTP against the real handlers: ready, and each reason it is not.

const SHIPPED = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'))
  .entries as { idx: number; tag: string }[];
const LAST = SHIPPED[SHIPPED.length - 1] as { idx: number; tag: string };

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const get = (app: TestApp, path: string) => app.request(path);

describe('GET /api/health and GET /api/ready on a working instance', () => {
  let app: TestApp;
  let receiver: Receiver;
  const statements: string[] = [];
  beforeAll(async () => {
    receiver = new Receiver();
    await receiver.start();
    // Every call checks afresh here; the reuse of an answer has a test of its own.
    app = await startTestApp({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
      logger: { logQuery: (query) => statements.push(query) },
      ready: { cacheMs: 0 },
    });
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  it('health: 200, the process checked, not stored by caches', async () => {
    const res = await get(app, '/api/health');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok', checks: { process: { ok: true } } });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('ready: 200 with what was checked and an empty backlog', async () => {
    const res = await get(app, '/api/ready');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const empty = { depth: 0, due: 0, oldest_due_age_ms: null };
    expect(res.json).toEqual({
      status: 'ready',
      checks: {
        database: { ok: true, kind: app.database.kind },
        migrations: { ok: true, applied: SHIPPED.length, shipped: SHIPPED.length },
        embedder: { ok: true, provider: 'local', model: app.services.embedder.model },
      },
      backlog: {
        jobs: Object.fromEntries(JOB_KINDS.map((kind) => [kind, empty])),
        deliveries: empty,
        capped: false,
      },
    });
  });

  it('ready: the backlog counts queued work per kind and the age of the oldest due item', async () => {
    const { key, account } = await app.createAccount();
    const created = await app.request('/v1/webhooks', {
      method: 'POST',
      key,
      json: { url: receiver.path('ready').url, events: ['meeting.started'] },
    });
    expect(created.status).toBe(201);
    const minuteAgo = new Date(Date.now() - 60_000);
    await insertDueDeliveries(app.db, account.id, created.json.id, 3, { dueAt: minuteAgo });
    await insertDueDeliveries(app.db, account.id, created.json.id, 2, {
      dueAt: new Date(Date.now() + 3_600_000),
    });
    await enqueueJob(app.db, { kind: 'send_password_reset', email: 'a@example.com', dueAt: minuteAgo });
    await enqueueJob(app.db, {
      kind: 'send_password_reset',
      email: 'b@example.com',
      dueAt: new Date(Date.now() + 3_600_000),
    });

    const { json } = await get(app, '/api/ready');
    expect(json.backlog.deliveries).toEqual({ depth: 5, due: 3, oldest_due_age_ms: expect.any(Number) });
    expect(json.backlog.deliveries.oldest_due_age_ms).toBeGreaterThanOrEqual(60_000);
    expect(json.backlog.jobs.send_password_reset).toEqual({
      depth: 2,
      due: 1,
      oldest_due_age_ms: expect.any(Number),
    });
    expect(json.backlog.jobs.send_password_reset.oldest_due_age_ms).toBeGreaterThanOrEqual(60_000);
    expect(json.backlog.jobs.summarize).toEqual({ depth: 0, due: 0, oldest_due_age_ms: null });
  });

  it('ready is one read-only statement', async () => {
    statements.length = 0;
    await get(app, '/api/ready');
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^select\b/);
    expect(statements[0]).not.toMatch(/\b(insert|update|delete)\b/i);
  });

  it('an answer is reused for a while: 60 calls, one statement', async () => {
    const seen: string[] = [];
    const cached = await startTestApp({
      logger: { logQuery: (query) => seen.push(query) },
      ready: { cacheMs: 3_600_000 },
    });
    try {
      seen.length = 0; // the migrations' own statements
      const answers = await Promise.all(Array.from({ length: 30 }, () => get(cached, '/api/ready')));
      for (let i = 0; i < 30; i++) answers.push(await get(cached, '/api/ready'));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(seen).toHaveLength(1);
    } finally {
      await cached.close();
    }
  });

  it('the semantic embedder counts as loadable when its model files are in node_modules', async () => {
    const semantic = await startTestApp({
      services: { embedder: new SemanticEmbedder({ dimensions: 384 + 128 }) },
    });
    try {
      const res = await get(semantic, '/api/ready');
      expect(res.status).toBe(200);
      expect(res.json.checks.embedder).toEqual({
        ok: true,
        provider: 'semantic',
        model: semantic.services.embedder.model,
      });
    } finally {
      await semantic.close();
    }
  });

  it('both answer GET and HEAD only', async () => {
    for (const path of ['/api/health', '/api/ready']) {
      expect((await app.request(path, { method: 'HEAD' })).status).toBe(200);
      const post = await app.request(path, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});

describe('GET /api/ready: 503 with the reason', () => {
  it('a database that cannot be reached (nothing listens on its port); health stays 200', async () => {
    const app = await startTestApp({
      database: await openPostgres(`postgres://nobody@127.0.0.1:${await closedPort()}/nothing`, { max: 1 }),
    });
    try {
      const res = await get(app, '/api/ready');
      expect(res.status).toBe(503);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.json).toEqual({
        status: 'unavailable',
        reasons: ['database: unreachable (ECONNREFUSED)'],
        checks: {
          database: { ok: false, kind: 'postgres' },
          embedder: { ok: true, provider: 'local', model: app.services.embedder.model },
        },
      });
      // Nothing about the server's address or credentials is told.
      expect(res.text).not.toMatch(/127\.0\.0\.1|nobody/);
      expect((await get(app, '/api/health')).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('a database that does not answer: a bounded wait, and no new statement while one still waits', async () => {
    // Accepts connections and never says a word, as a server behind a black hole.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const app = await startTestApp({
      database: await openPostgres(`postgres://nobody@127.0.0.1:${port}/nothing`, { max: 5 }),
      ready: { timeoutMs: 300, cacheMs: 0 },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await get(app, '/api/ready');
        expect(res.status).toBe(503);
        expect(res.json.reasons).toEqual(['database: no answer within 300 ms']);
      }
      expect(sockets).toHaveLength(1);
    } finally {
      await app.close();
      // Including any the client opened again as the first was cut.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('a database that was closed', async () => {
    const database = await createTestDatabase();
    await database.close();
    const app = await startTestApp({ database: { ...database, close: async () => {} } });
    try {
      const res = await get(app, '/api/ready');
      expect(res.status).toBe(503);
      expect(res.json.reasons).toEqual([expect.stringMatching(/^database: unreachable \(/)]);
      expect(res.json.checks.database.ok).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('a database migrated one step short of what this build ships', async () => {
    const app = await startTestApp({ database: await openDatabaseBefore(LAST.idx) });
    try {
      const res = await get(app, '/api/ready');
      expect(res.status).toBe(503);
      expect(res.json.reasons).toEqual([`migrations: 1 not applied (${LAST.tag})`]);
      expect(res.json.checks.migrations).toEqual({
        ok: false,
        applied: SHIPPED.length - 1,
        shipped: SHIPPED.length,
        missing: [LAST.tag],
      });
      expect(res.json.checks.database.ok).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('a model that cannot be loaded: the semantic embedder with no model packages where it looks', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-no-model-'));
    const app = await startTestApp({
      services: {
        embedder: new SemanticEmbedder({ dimensions: 768, modelFrom: path.join(empty, 'package.json') }),
      },
    });
    try {
      const res = await get(app, '/api/ready');
      expect(res.status).toBe(503);
      expect(res.json.reasons).toEqual([
        'embedder (semantic): a package of the model cannot be found (@energetic-ai/embeddings)',
      ]);
      expect(res.json.checks.embedder).toMatchObject({ ok: false, provider: 'semantic' });
      expect(res.json.checks.database.ok).toBe(true);
    } finally {
      await app.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('an instance shutting down: ready and the cron route answer 503, health 200', async () => {
    const stop = createWorkStop();
    const app = await startTestApp({ stop, env: { CRON_SECRET: 'cron-secret-for-tests' } });
    try {
      const cron = { headers: { authorization: 'Bearer cron-secret-for-tests' } };
      expect((await get(app, '/api/ready')).status).toBe(200);
      stop.stop();
      const ready = await get(app, '/api/ready');
      expect(ready.status).toBe(503);
      expect(ready.json).toEqual({ status: 'stopping', reasons: ['this instance is shutting down'] });
      const run = await app.request('/api/cron/dispatch', cron);
      expect(run.status).toBe(503);
      expect(run.headers.get('retry-after')).toBe('5');
      expect((await get(app, '/api/health')).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
