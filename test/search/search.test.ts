import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../server/db/client';
import { HNSW_EF_SEARCH, hnswSettings } from '../../server/search/vector-search';
import { events, jobs, meetings, passages } from '../../server/db/schema';
import { runDueWork } from '../../server/worker/run-due-work';
import { demoMeetings, type DemoMeeting } from '../../server/seed/demo-meetings';
import { startTestApp, type TestApp } from '../support/test-app';

// Semantic search (docs/rules.md#search) over passages (Form A) and summaries (Form B).

let app: TestApp;
beforeAll(async () => {
  // A low exact-search threshold so the HNSW path is exercised with a modest corpus. No worker:
  // the local embedder indexes inline, and the summary tests run the dispatcher themselves
  // (runDueWork returns once no work is due), so what they assert is settled, not timed.
  app = await startTestApp({ env: { SEARCH_EXACT_MAX_ROWS: '60' } });
});
afterAll(() => app?.close());

/** Runs all due background work to the end, as the worker or the cron route would. */
const runBackgroundWork = () => runDueWork(app.db, app.services, { budgetMs: 60_000 });

/** The background jobs still queued (or running) for a meeting. */
const jobsOf = (meetingId: string) =>
  app.db.select({ kind: jobs.kind }).from(jobs).where(eq(jobs.meetingId, meetingId));

const byTitle = (title: string) => demoMeetings.find((m) => m.title?.includes(title))!;

async function recordDemo(key: string, m: DemoMeeting, opts: { summary?: boolean } = {}) {
  return app.recordNote(key, {
    title: m.title,
    platform: m.platform,
    language: m.language,
    segments: m.segments,
    ...(opts.summary !== false && m.summary && { summary: m.summary }),
  });
}

async function searchA(key: string, q: string, extra = '') {
  return app.request(`/v1/notes/search?q=${encodeURIComponent(q)}${extra}`, { key });
}

async function searchB(key: string, q: string, extra = '') {
  return app.request(`/v1/notes/search?q=${encodeURIComponent(q)}${extra}`, { key, form: 'B' });
}

describe('Form A search over transcript passages', () => {
  let key: string;
  const ids = new Map<string, string>();
  beforeAll(async () => {
    ({ key } = await app.createAccount());
    for (const m of demoMeetings) ids.set(m.title ?? '(untitled)', await recordDemo(key, m));
  });

  it('the passage holding a distinctive phrase ranks first, with the start_time of the very segment that holds it', async () => {
    const postMortem = byTitle('INC-317');
    const segment = postMortem.segments.find((s) =>
      s.content.includes('Postgres failover took eleven minutes'),
    )!;
    const res = await searchA(key, 'postgres failover took eleven minutes');
    expect(res.status).toBe(200);
    const [first] = res.json.data;
    expect(first).toEqual({
      note_id: ids.get(postMortem.title!),
      title: postMortem.title,
      snippet: expect.stringContaining('failover'),
      score: expect.any(Number),
      start_time: segment.start_time,
    });
    expect(Object.keys(first)).toEqual(['note_id', 'title', 'snippet', 'score', 'start_time']);
  });

  it('the best segment is chosen inside a passage that spans several segments', async () => {
    const sprint = byTitle('Sprint 42');
    // "duplicate event rate per workspace" is said in one segment; its passage holds its neighbours too.
    const segment = sprint.segments.find((s) => s.content.includes('duplicate event rate per workspace'))!;
    const res = await searchA(key, 'duplicate event rate per workspace dashboards');
    const hit = res.json.data[0];
    expect(hit.note_id).toBe(ids.get(sprint.title!));
    expect(hit.start_time).toBe(segment.start_time);
    const [passage] = await queryRows<{ n: number }>(
      app.db,
      sql`select last_sequence - first_sequence + 1 as n from passages where meeting_id = ${hit.note_id}
          and ${sprint.segments.indexOf(segment) + 1} between first_sequence and last_sequence limit 1`,
    );
    expect(Number(passage!.n)).toBeGreaterThan(1);
  });

  it('scores never increase down the list; several hits may come from one note; default limit 10', async () => {
    const res = await searchA(key, 'kangaroo rollout sync fix dashboards');
    const scores = res.json.data.map((h: { score: number }) => h.score);
    expect(scores).toHaveLength(10);
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThanOrEqual(scores[i - 1]);
    const notes = res.json.data.map((h: { note_id: string }) => h.note_id);
    expect(new Set(notes).size).toBeLessThan(notes.length);
    expect(notes[0]).toBe(ids.get(byTitle('Sprint 42').title!));
  });

  it('snippets are at most 300 characters, cut on word boundaries, around the matching words', async () => {
    const res = await searchA(key, 'spreadsheet graveyard', '&limit=50');
    expect(res.json.data.length).toBeGreaterThan(10);
    for (const hit of res.json.data) {
      expect(hit.snippet.length).toBeLessThanOrEqual(300);
      expect(hit.snippet).not.toMatch(/^\s|\s$/);
    }
    const top = res.json.data[0];
    expect(top.snippet).toContain('spreadsheet graveyard');
    const full = byTitle('Brightwater')
      .segments.map((s) => s.content)
      .join(' ');
    // Every word of the snippet is a whole word of the transcript.
    for (const word of top.snippet.replace(/…/g, ' ').split(/\s+/).filter(Boolean))
      expect(full).toContain(word);
  });

  it('results are the top limit by similarity, not cut by a threshold', async () => {
    const res = await searchA(key, 'xylophone quasar', '&limit=50');
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(50);
  });

  it("no other account's notes, and a deleted note never appears", async () => {
    const other = await app.createAccount();
    const otherId = await recordDemo(other.key, byTitle('INC-317'));
    const mine = await searchA(other.key, 'postgres failover took eleven minutes', '&limit=50');
    expect(new Set(mine.json.data.map((h: { note_id: string }) => h.note_id))).toEqual(new Set([otherId]));

    expect((await app.request(`/v1/notes/${otherId}`, { key: other.key, method: 'DELETE' })).status).toBe(
      204,
    );
    const after = await searchA(other.key, 'postgres failover took eleven minutes');
    expect(after.json).toEqual({ data: [] });
    const left = await app.db.select().from(passages).where(eq(passages.meetingId, otherId));
    expect(left).toEqual([]);
  });
});

describe('Form B search over summaries', () => {
  it('finds notes by words that occur only in their summary; full Note objects, best first', async () => {
    const { key } = await app.createAccount();
    const plain = byTitle('Sprint 42');
    const id = await app.recordNote(key, {
      title: 'Roadmap sync',
      platform: 'microphone',
      segments: [
        {
          speaker: 'Ana',
          content: 'Let us go through the roadmap for next quarter.',
          start_time: 0,
          end_time: 3,
        },
        {
          speaker: 'Ben',
          content: 'The mobile app ships first, then the new billing pages.',
          start_time: 3,
          end_time: 7,
        },
      ],
      summary: {
        context: 'Quarterly roadmap review, codename Zeppelin.',
        decisions: ['Zeppelin launches with the mobile app first'],
        action_items: [{ task: 'Draft the Zeppelin launch plan', owner: 'Ana', deadline: 'Friday' }],
        participants: ['Ana', 'Ben'],
        next_step: 'Launch plan review',
        budget_mentioned: null,
        sentiment: 'positive',
      },
    });
    await recordDemo(key, plain);
    await recordDemo(key, byTitle('INC-317'));

    const b = await searchB(key, 'zeppelin launch');
    expect(b.status).toBe(200);
    expect(b.json.data[0]).toEqual({
      id,
      title: 'Roadmap sync',
      platform: 'phone',
      duration_seconds: expect.any(Number),
      started_at: expect.any(String),
      ended_at: expect.any(String),
      status: 'ready',
      transcript: [
        {
          sequence: 1,
          speaker: 'Ana',
          content: 'Let us go through the roadmap for next quarter.',
          start_time: 0,
          end_time: 3,
        },
        {
          sequence: 2,
          speaker: 'Ben',
          content: 'The mobile app ships first, then the new billing pages.',
          start_time: 3,
          end_time: 7,
        },
      ],
      summary: expect.objectContaining({ context: 'Quarterly roadmap review, codename Zeppelin.' }),
    });
    // Form A searches transcripts, where the word does not occur: the note is not the best hit.
    const a = await searchA(key, 'zeppelin');
    expect(a.json.data.every((h: { snippet: string }) => !/zeppelin/i.test(h.snippet))).toBe(true);
  });

  it('notes without a summary are not matched; default limit 5, max 20', async () => {
    const { key } = await app.createAccount();
    const withSummary = new Set<string>();
    let postMortem = '';
    for (const m of demoMeetings) {
      const id = await recordDemo(key, m);
      if (m.summary) withSummary.add(id);
      if (m.title?.includes('INC-317')) postMortem = id;
    }
    // A transcript-only note that would match well if its transcript were searched.
    const id = await app.recordNote(key, {
      transcribe: true,
      segments: [
        {
          speaker: 'Zed',
          content: 'Postgres failover took eleven minutes again today.',
          start_time: 0,
          end_time: 4,
        },
      ],
    });
    const res = await searchB(key, 'postgres failover took eleven minutes');
    expect(res.json.data).toHaveLength(5);
    const all = await searchB(key, 'postgres failover took eleven minutes', '&limit=20');
    const found = all.json.data.map((n: { id: string }) => n.id);
    expect(found).not.toContain(id);
    expect(new Set(found)).toEqual(withSummary);
    expect(found[0]).toBe(postMortem);
  });
});

describe('search completeness for small and large accounts', () => {
  it('a small account gets all its passages, and a large account (HNSW path) gets limit results of its own, while other accounts hold many more', async () => {
    // Many accounts' passages in the same index.
    for (let i = 0; i < 6; i++) {
      const other = await app.createAccount();
      for (const m of demoMeetings.slice(0, 6)) await recordDemo(other.key, m, { summary: false });
    }
    const small = await app.createAccount();
    // One passage per note (short transcripts), so every passage is a moment of its own and
    // one hit per moment cannot fold any two of them.
    const smallIds = [
      await app.recordNote(small.key, {
        segments: [
          { speaker: 'C', content: 'The failover drill is planned for Tuesday.', start_time: 0, end_time: 2 },
        ],
      }),
      await app.recordNote(small.key, {
        segments: [{ speaker: 'A', content: 'Quarterly numbers look fine.', start_time: 0, end_time: 2 }],
      }),
      await app.recordNote(small.key, {
        segments: [{ speaker: 'B', content: 'The office move is next month.', start_time: 0, end_time: 2 }],
      }),
    ];
    const [count] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from passages where account_id = ${small.account.id}`,
    );
    const res = await searchA(small.key, 'budget dashboard meeting', '&limit=50');
    expect(res.json.data).toHaveLength(Number(count!.n));
    expect(new Set(res.json.data.map((h: { note_id: string }) => h.note_id))).toEqual(new Set(smallIds));

    const large = await app.createAccount();
    const largeIds = new Set<string>();
    for (const m of demoMeetings) largeIds.add(await recordDemo(large.key, m, { summary: false }));
    const [largeCount] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from passages where account_id = ${large.account.id}`,
    );
    expect(Number(largeCount!.n)).toBeGreaterThan(60); // above SEARCH_EXACT_MAX_ROWS: the HNSW path
    const hnsw = await searchA(large.key, 'postgres failover replication slot', '&limit=50');
    expect(hnsw.json.data).toHaveLength(50);
    expect(hnsw.json.data.every((h: { note_id: string }) => largeIds.has(h.note_id))).toBe(true);
    expect(hnsw.json.data[0].note_id).toBe(
      [...largeIds][demoMeetings.findIndex((m) => m.title?.includes('INC-317'))],
    );
    const scores = hnsw.json.data.map((h: { score: number }) => h.score);
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThanOrEqual(scores[i - 1]);

    // The HNSW path's settings make it go through the index, never the account's rows and a sort of
    // all of them (which the planner chose at 768 dimensions and ef_search 1000).
    const [probe] = await queryRows<{ v: string }>(
      app.db,
      sql`select embedding::text as v from passages where account_id = ${large.account.id} limit 1`,
    );
    const plan = await app.db.transaction(async (tx) => {
      for (const setting of hnswSettings(HNSW_EF_SEARCH)) await tx.execute(sql.raw(setting));
      const lines = await queryRows<Record<string, string>>(
        tx,
        sql`explain select * from (select p.id, p.embedding <=> ${probe!.v}::vector as distance from passages p join meetings m on m.id = p.meeting_id where p.account_id = ${large.account.id} and p.embedding is not null order by p.embedding <=> ${probe!.v}::vector limit 50) s order by distance, id`,
      );
      return lines.map((l) => Object.values(l)[0]).join('\n');
    });
    // The account's own partition's HNSW index (migration 0011), and no other partition.
    expect(plan).toMatch(/Index Scan using passages_p\d+_embedding_idx on passages_p\d+ p/);
    expect(plan.match(/ on passages_p\d+/g)).toHaveLength(1);
  });
});

describe("search validation: q is required, limit within the form's maximum", () => {
  const cases: [string, 'A' | 'B', string, number, unknown][] = [
    ['q missing', 'A', '', 400, { error: { code: 'invalid_request', message: 'q is required' } }],
    ['q missing', 'B', '', 400, { error: 'q is required' }],
    ['q blank', 'A', '?q=%20%20', 400, { error: { code: 'invalid_request', message: 'q is required' } }],
    ['q blank', 'B', '?q=', 400, { error: 'q is required' }],
    [
      'q of 257 characters',
      'A',
      `?q=${'a'.repeat(257)}`,
      422,
      { error: { code: 'validation_error', message: 'q must be at most 256 characters' } },
    ],
    [
      'limit 51',
      'A',
      '?q=x&limit=51',
      422,
      { error: { code: 'validation_error', message: 'limit must be between 1 and 50' } },
    ],
    ['limit 21', 'B', '?q=x&limit=21', 400, { error: 'limit must be between 1 and 20' }],
    [
      'limit 0',
      'A',
      '?q=x&limit=0',
      422,
      { error: { code: 'validation_error', message: 'limit must be between 1 and 50' } },
    ],
    [
      'limit abc',
      'A',
      '?q=x&limit=abc',
      400,
      { error: { code: 'invalid_request', message: 'limit must be an integer' } },
    ],
    [
      'q twice',
      'A',
      '?q=x&q=y',
      400,
      { error: { code: 'invalid_request', message: 'q must be given once' } },
    ],
  ];
  it.each(cases)('%s (Form %s)', async (_name, form, query, status, body) => {
    const { key } = await app.createAccount({ form });
    const res = await app.request(`/v1/notes/search${query}`, { key });
    expect(res.status).toBe(status);
    expect(res.json).toEqual(body);
  });

  it('Form A takes 256 characters and limit 50; Form B has no length bound and takes limit 20', async () => {
    const { key } = await app.createAccount();
    expect((await searchA(key, 'a'.repeat(256), '&limit=50')).status).toBe(200);
    expect((await searchB(key, 'b'.repeat(2000), '&limit=20')).status).toBe(200);
  });
});

describe('generated summaries', () => {
  it('a meeting posted with a transcript only gets a summary without further calls, and summary.ready is in the outbox', async () => {
    const { key } = await app.createAccount();
    const m = byTitle('Sprint 42');
    const created = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key,
      json: { title: m.title, platform: m.platform },
    });
    const id = created.json.id;
    await app.request(`/api/recorder/meetings/${id}/transcript`, {
      method: 'POST',
      key,
      json: { segments: m.segments },
    });
    // The transcript call alone queued the summary; a dispatcher run (the worker's or cron's) makes it.
    expect(await jobsOf(id)).toEqual([{ kind: 'summarize' }]);
    expect((await app.request(`/v1/notes/${id}`, { key, form: 'B' })).json.summary).toBeNull();
    const work = await runBackgroundWork();
    expect(work).toMatchObject({ jobs_done: 1, jobs_retried: 0, jobs_failed: 0 });
    expect(await jobsOf(id)).toEqual([]);
    const note = (await app.request(`/v1/notes/${id}`, { key, form: 'B' })).json;
    expect(note.summary).toEqual({
      context: expect.any(String),
      decisions: expect.arrayContaining([expect.stringContaining('kangaroo rollout')]),
      action_items: expect.any(Array),
      participants: [...new Set(m.segments.map((s) => s.speaker))],
      next_step: expect.toBeOneOf([expect.any(String), null]),
      budget_mentioned: expect.toBeOneOf([expect.any(String), null]),
      sentiment: expect.any(String),
    });
    const types = await app.db
      .select({ type: events.type })
      .from(events)
      .where(eq(events.meetingId, id))
      .orderBy(events.createdAt);
    expect(types.map((t) => t.type)).toEqual(['meeting.started', 'meeting.transcribed', 'summary.ready']);
    // And Form B search finds it through the generated summary.
    const [row] = await app.db
      .select({ model: meetings.summaryEmbeddingModel })
      .from(meetings)
      .where(eq(meetings.id, id));
    expect(row!.model).toBe('local-lexical-v1');
  });

  it('generate_summary false leaves the summary null', async () => {
    const { key } = await app.createAccount();
    const id = await app.recordNote(key); // recordNote sends generate_summary: false
    // Nothing was queued for the note, and once every due job has run it still has no summary.
    expect(await jobsOf(id)).toEqual([]);
    await runBackgroundWork();
    expect(await jobsOf(id)).toEqual([]);
    const note = (await app.request(`/v1/notes/${id}`, { key, form: 'B' })).json;
    expect(note.summary).toBeNull();
  });
});
