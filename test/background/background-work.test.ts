import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../server/db/client';
import { jobs, meetings, passages } from '../../server/db/schema';
import { OpenAIEmbedder } from '../../server/embeddings/openai-embedder';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai-server';
import { claimJobs, enqueueJob, failJob, MAX_JOB_ATTEMPTS } from '../../server/jobs/jobs';
import { OpenAISummarizer } from '../../server/summaries/openai-summarizer';
import { runDueWork } from '../../server/worker/run-due-work';
import { startTestApp, type TestApp } from '../support/test-app';

// Background work: the job queue, the cron route, and the openai providers' background path.

const SEGMENTS = [
  {
    speaker: 'Ana',
    content: 'We decided to move the billing launch to March because the tax rules changed.',
    start_time: 0,
    end_time: 5,
  },
  {
    speaker: 'Ben',
    content: 'I will update the launch checklist by Friday and tell the support team.',
    start_time: 5,
    end_time: 10,
  },
];

describe('cron route', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { CRON_SECRET: 'cron-secret-for-tests' } });
  });
  afterAll(() => app?.close());

  it.each([
    ['no Authorization', {}],
    ['a wrong secret', { authorization: 'Bearer nope' }],
    ['the secret without Bearer', { authorization: 'cron-secret-for-tests' }],
  ])('with CRON_SECRET set, a request with %s gets 401', async (_name, headers) => {
    for (const method of ['GET', 'POST']) {
      const res = await app.request('/api/cron/dispatch', { method, headers });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: expect.any(String) });
    }
  });

  it('the cron route runs due work (a summary) and answers JSON counts, for GET and POST', async () => {
    const { key } = await app.createAccount();
    const created = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key,
      json: { title: 'Billing', platform: 'meet' },
    });
    const id = created.json.id;
    await app.request(`/api/recorder/meetings/${id}/transcript`, {
      method: 'POST',
      key,
      json: { segments: SEGMENTS },
    });
    // No worker runs in this app: the summary waits for the cron tick.
    expect((await app.request(`/v1/notes/${id}`, { key, form: 'B' })).json.summary).toBeNull();

    const res = await app.request('/api/cron/dispatch', {
      headers: { authorization: 'Bearer cron-secret-for-tests' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      jobs_done: 1,
      jobs_retried: 0,
      jobs_failed: 0,
      deliveries_succeeded: 0,
      deliveries_retried: 0,
      deliveries_failed: 0,
      duration_ms: expect.any(Number),
    });
    const note = (await app.request(`/v1/notes/${id}`, { key, form: 'B' })).json;
    expect(note.summary.decisions).toEqual([expect.stringContaining('billing launch to March')]);
    expect(note.summary.action_items).toEqual([
      { task: expect.stringContaining('launch checklist'), owner: 'Ben', deadline: 'by Friday' },
    ]);

    const again = await app.request('/api/cron/dispatch', {
      method: 'POST',
      headers: { authorization: 'Bearer cron-secret-for-tests' },
    });
    expect(again.json).toMatchObject({ jobs_done: 0, jobs_retried: 0, jobs_failed: 0 });
  });
});

describe('a cron run waits only for work that falls due within its budget', () => {
  // A budget of ten minutes, longer than any test may take: a run that waited for its budget
  // instead of ending would time the test out.
  const LONG_BUDGET_MS = 600_000;
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());
  const cronRun = () => runDueWork(app.db, app.services, { budgetMs: LONG_BUDGET_MS, waitForDue: true });

  it('with nothing queued it ends at once', async () => {
    expect(await cronRun()).toEqual({
      jobs_done: 0,
      jobs_retried: 0,
      jobs_failed: 0,
      deliveries_succeeded: 0,
      deliveries_retried: 0,
      deliveries_failed: 0,
    });
  });

  it('it waits for a job that falls due within the budget, runs it, then ends', async () => {
    const { key } = await app.createAccount();
    const id = await app.recordNote(key, { generateSummary: true });
    const queued = await app.db.select().from(jobs).where(eq(jobs.meetingId, id));
    expect(queued.length).toBeGreaterThan(0);
    await app.db.update(jobs).set({ dueAt: sql`now() + interval '1 second'` }).where(eq(jobs.meetingId, id));
    const counts = await cronRun();
    expect(counts.jobs_done).toBeGreaterThanOrEqual(queued.length);
    expect(await app.db.select().from(jobs).where(eq(jobs.meetingId, id))).toEqual([]);
  });

  it('a job due after the budget ends is left for a later run, which does not wait for it', async () => {
    const { key, account } = await app.createAccount();
    const id = await app.recordNote(key, { transcribe: false });
    await enqueueJob(app.db, {
      kind: 'embed_summary',
      accountId: account.id,
      meetingId: id,
      dueAt: new Date(Date.now() + 2 * LONG_BUDGET_MS),
    });
    expect(await cronRun()).toMatchObject({ jobs_done: 0, jobs_retried: 0, jobs_failed: 0 });
    expect(await app.db.select().from(jobs).where(eq(jobs.meetingId, id))).toHaveLength(1);
  });
});

describe('job queue', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  async function meetingWithTranscript() {
    const { key, account } = await app.createAccount();
    const id = await app.recordNote(key);
    return { key, accountId: account.id, id };
  }

  it('four dispatchers claiming at once take disjoint jobs, and every job is taken once', async () => {
    const { accountId, id } = await meetingWithTranscript();
    for (let i = 0; i < 100; i++)
      await enqueueJob(app.db, { kind: 'embed_summary', accountId, meetingId: id });
    const claims = await Promise.all([1, 2, 3, 4].map(() => claimJobs(app.db, 40)));
    const ids = claims.flat().map((j) => j.id);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    expect(await claimJobs(app.db, 40)).toEqual([]);
    await app.db.delete(jobs).where(eq(jobs.meetingId, id));
  });

  it('a job whose dispatcher died is taken over once its lease expires, and not before', async () => {
    const { accountId, id } = await meetingWithTranscript();
    await enqueueJob(app.db, { kind: 'embed_summary', accountId, meetingId: id });
    const [first] = await claimJobs(app.db, 10, { leaseMs: 60_000 });
    expect(first).toBeDefined();
    expect(await claimJobs(app.db, 10)).toEqual([]);
    // The dispatcher "dies"; its lease runs out.
    await app.db
      .update(jobs)
      .set({ lockedUntil: new Date(Date.now() - 1000) })
      .where(eq(jobs.id, first!.id));
    const [second] = await claimJobs(app.db, 10);
    expect(second).toMatchObject({ id: first!.id, attempts: 2 });
    await app.db.delete(jobs).where(eq(jobs.id, first!.id));
  });

  it('a failing job is retried later with backoff and given up after MAX_JOB_ATTEMPTS, keeping its error', async () => {
    const { accountId, id } = await meetingWithTranscript();
    await enqueueJob(app.db, { kind: 'summarize', accountId, meetingId: id });
    const [job] = await claimJobs(app.db, 1);
    expect(await failJob(app.db, job!, new Error('model overloaded'))).toBe('retry');
    const [row] = await app.db.select().from(jobs).where(eq(jobs.id, job!.id));
    expect(row!.lastError).toBe('model overloaded');
    expect(row!.dueAt.getTime()).toBeGreaterThan(Date.now() + 5_000);
    expect(await claimJobs(app.db, 1)).toEqual([]);
    expect(
      await failJob(app.db, { ...job!, attempts: MAX_JOB_ATTEMPTS }, new Error('still overloaded')),
    ).toBe('failed');
    const [failed] = await app.db.select().from(jobs).where(eq(jobs.id, job!.id));
    expect(failed!.failedAt).toBeInstanceOf(Date);
    await app.db
      .update(jobs)
      .set({ dueAt: new Date(0) })
      .where(eq(jobs.id, job!.id));
    expect(await claimJobs(app.db, 1)).toEqual([]);
  });

  it('deleting a note deletes its passages and its queued work at once', async () => {
    const { key, accountId, id } = await meetingWithTranscript();
    await enqueueJob(app.db, { kind: 'summarize', accountId, meetingId: id });
    expect((await app.db.select().from(passages).where(eq(passages.meetingId, id))).length).toBeGreaterThan(
      0,
    );
    expect((await app.request(`/v1/notes/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect(await app.db.select().from(passages).where(eq(passages.meetingId, id))).toEqual([]);
    expect(await app.db.select().from(jobs).where(eq(jobs.meetingId, id))).toEqual([]);
  });
});

describe('openai providers in the background', () => {
  let fake: FakeOpenAI;
  let app: TestApp;
  beforeAll(async () => {
    fake = await startFakeOpenAI({
      chat: () => ({
        context: 'Billing launch moved to March.',
        decisions: ['Move the billing launch to March'],
        action_items: [{ task: 'Update the launch checklist', owner: 'Ben', deadline: 'Friday' }],
        participants: ['Ana', 'Ben'],
        next_step: 'Tell the support team',
        budget_mentioned: null,
        sentiment: 'neutral',
      }),
    });
    app = await startTestApp({
      worker: true,
      services: {
        embedder: new OpenAIEmbedder({
          baseUrl: fake.url,
          model: 'fake-embed-1',
          dimensions: 384,
        }),
        summarizer: new OpenAISummarizer({ baseUrl: fake.url, model: 'fake-chat-1' }),
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('the transcript is embedded and summarised by the worker through the OpenAI-compatible API; search then works', async () => {
    fake.failNext(1, { route: 'embeddings', status: 503 }); // retried, not fatal
    const { key } = await app.createAccount();
    const created = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key,
      json: { title: 'Billing', platform: 'zoom' },
    });
    const id = created.json.id;
    const stored = await app.request(`/api/recorder/meetings/${id}/transcript`, {
      method: 'POST',
      key,
      json: { segments: SEGMENTS },
    });
    expect(stored.status).toBe(200);

    await vi.waitFor(
      async () => {
        const note = (await app.request(`/v1/notes/${id}`, { key, form: 'B' })).json;
        expect(note.summary).toMatchObject({ context: 'Billing launch moved to March.' });
      },
      { timeout: 10_000, interval: 100 },
    );
    await vi.waitFor(
      async () => {
        const [row] = await app.db
          .select({ model: meetings.summaryEmbeddingModel })
          .from(meetings)
          .where(eq(meetings.id, id));
        expect(row?.model).toBe('fake-embed-1');
      },
      { timeout: 10_000, interval: 100 },
    );
    // The transcript's embedding runs in its own lane: the summary may well be ready first.
    await vi.waitFor(
      async () => {
        const [row] = await queryRows<{ models: string[] }>(
          app.db,
          sql`select array_agg(distinct model) as models from passages where meeting_id = ${id}`,
        );
        expect(row!.models).toEqual(['fake-embed-1']);
      },
      { timeout: 20_000, interval: 100 },
    );

    const a = await app.request('/v1/notes/search?q=billing%20launch%20March', { key });
    expect(a.json.data[0]).toMatchObject({ note_id: id, start_time: 0 });
    const b = await app.request('/v1/notes/search?q=billing%20launch%20March', { key, form: 'B' });
    expect(b.json.data.map((n: { id: string }) => n.id)).toEqual([id]);

    const chat = fake.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chat).toHaveLength(1);
    expect(chat[0]!.body).toMatchObject({ model: 'fake-chat-1', response_format: { type: 'json_schema' } });
    expect(fake.requests.filter((r) => r.path === '/v1/embeddings' && r.status === 503)).toHaveLength(1);
  });
});
