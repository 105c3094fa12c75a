import { setTimeout as delay } from 'node:timers/promises';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, createApiKey } from '../../server/accounts/accounts';
import { jobs } from '../../server/db/schema';
import type { EmbeddingProvider } from '../../server/embeddings/provider';
import { parseEnv } from '../../server/env';
import { claimJobs, enqueueJob } from '../../server/jobs/jobs';
import { createServices } from '../../server/services';
import { BrowserSession } from '../support/browser-session';
import { startTestApp, type TestApp } from '../support/test-app';

// Background work is fair: accounts take turns for the queue, so one account's bulk import does
// not hold another account's new meeting behind it, and cheap work (a summary) runs in a lane of
// its own, never behind transcript embeddings.

const SEGMENTS = [
  { speaker: 'Ana', content: 'The billing launch moves to March after the pricing review.', start_time: 0 },
  { speaker: 'Ben', content: 'Support needs the new refund policy documented before then.', start_time: 6 },
];

/** The small account's meeting says what no import does, so the model's calls for it stand out. */
const SMALL_SEGMENT = {
  speaker: 'Cleo',
  content: 'Under the refund policy customers get their money back within 14 days.',
  start_time: 0,
};

describe('which job a dispatcher claims', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('accounts take turns: a new job of a second account goes before the first account’s older backlog, once that account has a job in flight', async () => {
    const big = await app.createAccount();
    const small = await app.createAccount();
    const bigMeeting = await app.recordNote(big.key);
    const smallMeeting = await app.recordNote(small.key);
    const minuteAgo = Date.now() - 60_000;
    for (let i = 0; i < 20; i++)
      await enqueueJob(app.db, {
        kind: 'embed_transcript',
        accountId: big.account.id,
        meetingId: bigMeeting,
        dueAt: new Date(minuteAgo + i),
      });
    await enqueueJob(app.db, {
      kind: 'embed_transcript',
      accountId: small.account.id,
      meetingId: smallMeeting,
    });

    const [first] = await claimJobs(app.db, 1, { lane: 'bulk' });
    expect(first).toMatchObject({ accountId: big.account.id }); // the oldest job overall
    const [second] = await claimJobs(app.db, 1, { lane: 'bulk' });
    expect(second).toMatchObject({ accountId: small.account.id }); // not the 19 older ones
    const [third] = await claimJobs(app.db, 1, { lane: 'bulk' });
    expect(third).toMatchObject({ accountId: big.account.id });
    await app.db.delete(jobs);
  });

  it('a claim takes exactly as many jobs as asked for, however long the queue, and locks no other', async () => {
    const { account, key } = await app.createAccount();
    const meeting = await app.recordNote(key);
    await app.db.delete(jobs);
    const minuteAgo = Date.now() - 60_000;
    for (let i = 0; i < 30; i++)
      await enqueueJob(app.db, {
        kind: 'embed_transcript',
        accountId: account.id,
        meetingId: meeting,
        dueAt: new Date(minuteAgo + i),
      });
    const locked = async () =>
      (await app.db.select({ id: jobs.id, lockedUntil: jobs.lockedUntil }).from(jobs)).filter(
        (j) => j.lockedUntil && j.lockedUntil.getTime() > Date.now(),
      ).length;
    // Repeated, so a driver's cached plan for the statement is exercised too.
    let total = 0;
    for (const ask of [1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 2]) {
      expect(await claimJobs(app.db, ask, { lane: 'bulk' })).toHaveLength(ask);
      total += ask;
      expect(await locked()).toBe(total);
    }
    // Dispatchers claiming at once, as the lanes' slots and other instances do: every locked job
    // is one a dispatcher got back.
    const rounds = await Promise.all(
      Array.from({ length: 6 }, async () => {
        let got = 0;
        for (let i = 0; i < 3; i++) got += (await claimJobs(app.db, 1, { lane: 'bulk' })).length;
        return got;
      }),
    );
    total += rounds.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(30);
    expect(await locked()).toBe(total);
    await app.db.delete(jobs);
  });

  it('the quick lane takes summaries and never a transcript embedding; the bulk lane only those', async () => {
    const { account } = await app.createAccount();
    const meeting = await app.recordNote((await app.createAccount()).key);
    for (let i = 0; i < 5; i++)
      await enqueueJob(app.db, {
        kind: 'embed_transcript',
        accountId: account.id,
        meetingId: meeting,
        dueAt: new Date(Date.now() - 60_000),
      });
    await enqueueJob(app.db, { kind: 'summarize', accountId: account.id, meetingId: meeting });
    const quick = await claimJobs(app.db, 10, { lane: 'quick' });
    expect(quick.map((j) => j.kind)).toEqual(['summarize']);
    const bulk = await claimJobs(app.db, 10, { lane: 'bulk' });
    expect(bulk.map((j) => j.kind)).toEqual(Array(5).fill('embed_transcript'));
    await app.db.delete(jobs);
  });
});

describe('through the worker, while another account imports', () => {
  let app: TestApp;
  /** Embedding waits until the test opens the gate: the import's backlog is then certain. */
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
  /** The importing account, and how many of its transcript embeddings were queued or running
   * when the model started on the small account's transcript. */
  let importer: string | undefined;
  let importWaitingWhenSmallStarted: number | undefined;
  beforeAll(async () => {
    // The word embedder behind the gate and a delay, called from the worker as the semantic
    // model is: each transcript embedding takes a while, so an import builds a backlog. The worker
    // embeds outside any transaction, so counting the jobs from here waits for nothing.
    const local = createServices(parseEnv({ EMBEDDINGS_PROVIDER: 'local' })).embedder;
    const slow: EmbeddingProvider = {
      model: local.model,
      dimensions: local.dimensions,
      async embed(texts, opts) {
        await gate;
        if (importer && importWaitingWhenSmallStarted === undefined && texts.includes(SMALL_SEGMENT.content))
          importWaitingWhenSmallStarted = await pendingEmbeddings(importer);
        await delay(150);
        return local.embed(texts, opts);
      },
    };
    app = await startTestApp({ worker: true, services: { embedder: slow } });
  });
  afterAll(() => {
    openGate();
    return app?.close();
  });

  const pendingEmbeddings = async (accountId: string) =>
    (
      await app.db
        .select({ id: jobs.id })
        .from(jobs)
        .where(and(eq(jobs.accountId, accountId), eq(jobs.kind, 'embed_transcript'), isNull(jobs.failedAt)))
    ).length;

  it('a small account’s new meeting is searchable and summarised while a large import is still far from done', async () => {
    const big = await app.createAccount();
    importer = big.account.id;
    for (let i = 0; i < 16; i++) await app.recordNote(big.key, { title: `Import ${i}`, segments: SEGMENTS });
    expect(await pendingEmbeddings(big.account.id)).toBe(16);

    const small = await app.createAccount();
    const created = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key: small.key,
      json: { title: 'Refund policy', platform: 'zoom' },
    });
    const id = created.json.id as string;
    const stored = await app.request(`/api/recorder/meetings/${id}/transcript`, {
      method: 'POST',
      key: small.key,
      json: { segments: [SMALL_SEGMENT] }, // generate_summary defaults to true
    });
    expect(stored.status).toBe(200);
    openGate();

    await vi.waitFor(
      async () => {
        const found = await app.request('/v1/notes/search?q=refund%20policy', { key: small.key });
        expect(found.json.data.map((h: { note_id: string }) => h.note_id)).toContain(id);
        const note = await app.request(`/v1/notes/${id}`, { key: small.key, form: 'B' });
        expect(note.json.summary).not.toBeNull();
      },
      { timeout: 30_000, interval: 50 },
    );
    // At most the import's two jobs already taken went first (the one at the model and the next,
    // handed over early): the rest of the import was still waiting when the model started on the
    // small account's transcript. Counted then, not when the search above first saw it, since on
    // a busy machine this test's polling may come late.
    expect(importWaitingWhenSmallStarted).toBeGreaterThanOrEqual(14);
  });
});

describe('the backlog is visible in the settings app', () => {
  let app: TestApp;
  beforeAll(async () => {
    // No worker: what the recorder queued stays queued until the cron route runs it.
    const local = createServices(parseEnv({ EMBEDDINGS_PROVIDER: 'local' })).embedder;
    const queued: EmbeddingProvider = {
      model: local.model,
      dimensions: local.dimensions,
      embed: (texts, opts) => local.embed(texts, opts),
    };
    app = await startTestApp({ services: { embedder: queued }, env: { CRON_SECRET: 'cron' } });
  });
  afterAll(() => app?.close());

  it('notes waiting to be indexed say so, and the list counts them, until the work is done', async () => {
    const email = `backlog-${Date.now()}@example.com`;
    const account = await createAccount(app.db, {
      email,
      password: 'quiet-harbor-lantern-71',
      earlyAccess: true,
    });
    const { plaintext: key } = await createApiKey(app.db, { accountId: account.id });
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(await app.recordNote(key, { title: `Queued ${i}`, segments: SEGMENTS }));
    const session = new BrowserSession(app.url, { 'x-forwarded-for': '198.51.100.77' });
    expect((await session.signIn(email, 'quiet-harbor-lantern-71')).status).toBe(200);

    const before = (await session.query('notes.list', { limit: 2 })).json.result.data;
    expect(before.awaitingIndex).toBe(3);
    expect(before.items.map((n: { indexing: boolean }) => n.indexing)).toEqual([true, true]);
    const searched = await app.request('/v1/notes/search?q=refund%20policy', { key });
    expect(searched.json.data).toEqual([]);

    const run = await app.request('/api/cron/dispatch', {
      method: 'POST',
      headers: { authorization: 'Bearer cron' },
    });
    expect(run.json.jobs_done).toBe(3);
    const after = (await session.query('notes.list', { limit: 5 })).json.result.data;
    expect(after.awaitingIndex).toBe(0);
    expect(after.items.map((n: { indexing: boolean }) => n.indexing)).toEqual([false, false, false]);
    expect(
      (await app.request('/v1/notes/search?q=refund%20policy', { key })).json.data.length,
    ).toBeGreaterThan(0);
  });
});
