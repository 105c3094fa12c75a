import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app';
import { queryRows } from '../../server/db/client';
import {
  changeDimensions,
  ensureVectorIndexes,
  storedDimensions,
} from '../../server/search/embedding-dimensions';
import { demoMeetings } from '../../server/seed/demo-meetings';
import { tokenize } from '../../server/embeddings/local-embedder';

// EMBEDDINGS_PROVIDER=semantic end to end, through real HTTP, a real database and
// the background worker: the transcript is stored at once, its passages are embedded in the
// background (not inline, the model being slower than the lexical one), and /v1/notes/search then
// finds meetings by meaning.

const MODEL = 'use-lite-v1+local-lexical-v1@0.15';
const TITLES = ['INC-317', 'Stackline', 'Hiring debrief', 'Q3 board', 'Sprint 42', 'Design review'];
const meetingsUsed = TITLES.map((t) => demoMeetings.find((m) => m.title?.includes(t))!);

let app: TestApp;
let key: string;
const ids = new Map<string, string>();

beforeAll(async () => {
  app = await startTestApp({
    env: { EMBEDDINGS_PROVIDER: 'semantic', EMBEDDINGS_DIMENSIONS: '768' },
    worker: true,
  });
  // What `npm run reindex` does when the configured dimension differs from the database's.
  await changeDimensions(app.db, 768);
  await ensureVectorIndexes(app.db);
  ({ key } = await app.createAccount());
  for (const m of meetingsUsed) {
    ids.set(
      m.title!,
      await app.recordNote(key, {
        title: m.title,
        platform: m.platform,
        language: m.language,
        segments: m.segments,
        ...(m.summary && { summary: m.summary }),
      }),
    );
  }
  await embeddedInBackground(meetingsUsed.length, meetingsUsed.filter((m) => m.summary).length);
}, 240_000);
afterAll(() => app?.close());

/**
 * Waits until the worker has embedded every transcript and summary with the semantic model. Meanwhile
 * the API keeps answering: the notes are listed at once, before they are searchable.
 */
async function embeddedInBackground(transcripts: number, summaries: number) {
  const deadline = Date.now() + 200_000;
  for (;;) {
    const listed = await app.request('/v1/notes?limit=1', { key });
    expect(listed.status).toBe(200);
    const [row] = await queryRows<{ transcripts: number; summaries: number }>(
      app.db,
      sql`select (select count(distinct meeting_id) from passages where model = ${MODEL} and embedding is not null)::int as transcripts,
                 (select count(*) from meetings where summary_embedding_model = ${MODEL})::int as summaries`,
    );
    if (row?.transcripts === transcripts && row.summaries === summaries) return;
    if (Date.now() > deadline)
      throw new Error(
        `the worker embedded ${JSON.stringify(row)} of ${transcripts} transcripts and ${summaries} summaries`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const search = (q: string, form: 'A' | 'B' = 'A') =>
  app.request(`/v1/notes/search?q=${encodeURIComponent(q)}&limit=5`, { key, form });

/** The query shares no content stem with any segment of the meeting it must find. */
function sharesNoStem(q: string, title: string) {
  const stems = new Set(tokenize(q).map((t) => t.token));
  const m = meetingsUsed.find((x) => x.title === title)!;
  return m.segments.every((s) => tokenize(s.content).every((t) => !stems.has(t.token)));
}

describe('semantic search through /v1/notes/search', () => {
  it('every passage vector is 768-dimensional and records the semantic model', async () => {
    expect(await storedDimensions(app.db)).toBe(768);
    const rows = await queryRows<{ model: string; n: number }>(
      app.db,
      sql`select model, count(*)::int as n from passages group by model`,
    );
    expect(rows).toEqual([{ model: MODEL, n: expect.any(Number) }]);
  });

  it.each([
    ['the storage volume became full so nothing could be saved', 'Post-mortem: EU sync outage (INC-317)'],
    ['clients learned about the downtime far too late', 'Post-mortem: EU sync outage (INC-317)'],
    ['she is also talking to rival employers', 'Hiring debrief: Senior Backend Engineer (Elena Vasquez)'],
  ])('Form A finds a meeting by meaning alone: "%s"', async (q, title) => {
    expect(sharesNoStem(q, title)).toBe(true);
    const res = await search(q);
    expect(res.status).toBe(200);
    expect(res.json.data[0].note_id).toBe(ids.get(title));
    const scores = res.json.data.map((h: { score: number }) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('exact names and codes still rank their passage first, with the start_time of the segment that holds them', async () => {
    const postMortem = meetingsUsed.find((m) => m.title?.includes('INC-317'))!;
    const segment = postMortem.segments.find((s) => s.content.includes('server_check_query'))!;
    const res = await search('PgBouncer server_check_query');
    expect(res.json.data[0]).toEqual({
      note_id: ids.get(postMortem.title!),
      title: postMortem.title,
      snippet: expect.stringContaining('server_check_query'),
      score: expect.any(Number),
      start_time: segment.start_time,
    });
  });

  it('Form B matches the query against summaries with the same embedder', async () => {
    const res = await search('she is also talking to rival employers', 'B');
    expect(res.status).toBe(200);
    expect(res.json.data[0].id).toBe(ids.get('Hiring debrief: Senior Backend Engineer (Elena Vasquez)'));
  });
});
