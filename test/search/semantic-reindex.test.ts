import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../server/db/client';
import { SemanticEmbedder } from '../../server/embeddings/semantic-embedder';
import {
  assertDimensions,
  DimensionMismatchError,
  storedDimensions,
} from '../../server/search/embedding-dimensions';
import { reindexVectors } from '../../server/search/reindex-vectors';
import { demoMeetings } from '../../server/seed/demo-meetings';
import { seedDemo } from '../../server/seed/seed-demo';
import { startTestApp, type TestApp } from '../support/test-app';

// With the semantic embedder (the default): `npm run reindex` moves a database from the
// word-matching embedder at 384 dimensions to the semantic one at 768 while the old configuration
// keeps answering, resumes when interrupted, and never compares vectors of different models; the
// background path; a fresh database adopting the configured dimension; the demo seed ending up
// searchable.

const semantic = new SemanticEmbedder({ dimensions: 768 });
const INC = demoMeetings.find((m) => m.title?.includes('INC-317'))!;
const HIRING = demoMeetings.find((m) => m.title?.includes('Hiring debrief'))!;
const DESIGN = demoMeetings.find((m) => m.title?.includes('Design review'))!;
const SUMMARIES = [INC, HIRING, DESIGN].filter((m) => m.summary).length;

async function embeddedWith(app: TestApp, model: string) {
  const [row] = await queryRows<{ passages: number; on_model: number; summaries: number }>(
    app.db,
    sql`select (select count(*) from passages)::int as passages,
               (select count(*) from passages where model = ${model} and embedding is not null and segment_embeddings is not null)::int as on_model,
               (select count(*) from meetings where summary_embedding_model = ${model})::int as summaries`,
  );
  return {
    passages: Number(row!.passages),
    onModel: Number(row!.on_model),
    summaries: Number(row!.summaries),
  };
}

describe('npm run reindex from local 384 to semantic 768', () => {
  let app: TestApp;
  let key: string;
  const ids = new Map<string, string>();
  const local = () => app.services.embedder;
  beforeAll(async () => {
    app = await startTestApp({ worker: true });
    ({ key } = await app.createAccount());
    for (const m of [INC, HIRING, DESIGN]) {
      ids.set(
        m.title!,
        await app.recordNote(key, {
          title: m.title,
          platform: m.platform,
          segments: m.segments,
          ...(m.summary && { summary: m.summary }),
        }),
      );
    }
  }, 120_000);
  afterAll(() => app?.close());

  const searchA = (q: string) => app.request(`/v1/notes/search?q=${encodeURIComponent(q)}&limit=5`, { key });
  const searchB = (q: string) =>
    app.request(`/v1/notes/search?q=${encodeURIComponent(q)}&limit=5`, { key, form: 'B' });

  it('a running server keeps answering from the old vectors while reindex runs, and after an interruption', async () => {
    const oldModel = local().model;
    let answeredMidway: unknown;
    const interrupted = reindexVectors(app.db, semantic, async (label, done) => {
      if (label !== 'transcripts' || done !== 1) return;
      const res = await searchA('postgres failover eleven minutes');
      answeredMidway = { status: res.status, top: res.json.data[0]?.note_id };
      throw new Error('interrupted');
    });
    await expect(interrupted).rejects.toThrow('interrupted');
    expect(answeredMidway).toEqual({ status: 200, top: ids.get(INC.title!) });
    // The columns searches use are untouched: still 384, every passage on the old model.
    expect(await storedDimensions(app.db)).toBe(384);
    const old = await embeddedWith(app, oldModel);
    expect(old.onModel).toBe(old.passages);
    expect(old.summaries).toBe(SUMMARIES);
    expect((await searchA('postgres failover eleven minutes')).json.data[0].note_id).toBe(
      ids.get(INC.title!),
    );
    expect((await searchB('replication slot post-mortem')).json.data[0].id).toBe(ids.get(INC.title!));
  }, 120_000);

  it('resumed, it does only what is left, swaps the columns, and the old configuration then gets no hits rather than an error', async () => {
    const lines: string[] = [];
    const result = await reindexVectors(app.db, semantic, (label, done, total) => {
      lines.push(`${label} ${done}/${total}`);
    });
    expect(result).toEqual({ model: semantic.model, dimensions: 768, transcripts: 2, summaries: SUMMARIES });
    expect(lines).toContain('transcripts 2/2');
    expect(lines).toContain(`summaries ${SUMMARIES}/${SUMMARIES}`);
    expect(await storedDimensions(app.db)).toBe(768);
    const counts = await embeddedWith(app, semantic.model);
    expect(counts).toEqual({ passages: counts.passages, onModel: counts.passages, summaries: SUMMARIES });
    const [index] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from pg_indexes where indexname in ('passages_embedding_hnsw', 'meetings_summary_embedding_hnsw')`,
    );
    expect(Number(index!.n)).toBe(2);

    // The server still configured for 384-dimensional local vectors: nothing it may compare.
    for (const res of [await searchA('postgres failover'), await searchB('postgres failover')]) {
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual([]);
    }
    // Nothing left: a second run does nothing.
    expect(await reindexVectors(app.db, semantic)).toEqual({
      model: semantic.model,
      dimensions: 768,
      transcripts: 0,
      summaries: 0,
    });
  }, 180_000);

  it('on the semantic model, a paraphrase finds its meeting in both forms, start_time the matching segment', async () => {
    app.services.embedder = semantic; // the server restarted with the new configuration
    const a = await searchA('she is also talking to rival employers');
    expect(a.status).toBe(200);
    expect(a.json.data[0].note_id).toBe(ids.get(HIRING.title!));
    const b = await searchB('she is also talking to rival employers');
    expect(b.json.data[0].id).toBe(ids.get(HIRING.title!));
    const failover = INC.segments.find((s) => s.content.includes('Postgres failover took eleven minutes'))!;
    const exact = await searchA('Postgres failover took eleven minutes');
    expect(exact.json.data[0]).toMatchObject({
      note_id: ids.get(INC.title!),
      start_time: failover.start_time,
    });
  });

  it('with a slow model the transcript is stored at once and becomes searchable when the background worker has embedded it', async () => {
    const id = await app.recordNote(key, {
      title: 'Kitchen refit',
      segments: [
        {
          speaker: 'Ana',
          content: 'The contractor says the new cupboards arrive in three weeks.',
          start_time: 0,
          end_time: 4,
        },
        {
          speaker: 'Ben',
          content: 'Then we cook on the camping stove until the end of the month.',
          start_time: 4,
          end_time: 8,
        },
      ],
    });
    const note = await app.request(`/v1/notes/${id}`, { key });
    expect(note.status).toBe(200);
    // One statement, one snapshot. The work is still queued, or the worker was already quick enough
    // (its passages are in); never neither. Both at once is possible: the worker stores the passages
    // and then, in a statement of its own, deletes the finished job.
    const [state] = await queryRows<{ queued: number; indexed: number }>(
      app.db,
      sql`select (select count(*)::int from jobs where meeting_id = ${id} and kind = 'embed_transcript') as queued,
                 (select count(*)::int from passages where meeting_id = ${id}) as indexed`,
    );
    expect(Number(state!.queued) + Number(state!.indexed)).toBeGreaterThan(0);
    await vi.waitFor(
      async () => {
        const res = await searchA('when will the kitchen furniture be delivered');
        expect(res.status).toBe(200);
        const hit = res.json.data.find((h: { note_id: string }) => h.note_id === id);
        expect(hit).toMatchObject({ note_id: id, start_time: 0 });
      },
      { timeout: 60_000, interval: 200 },
    );
  }, 90_000);
});

describe('a database follows the configured embedder', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('start-up moves a database without vectors to the configured dimension, and refuses one holding other vectors, saying what to run', async () => {
    expect(await storedDimensions(app.db)).toBe(384);
    await assertDimensions(app.db, 384);
    const { key } = await app.createAccount();
    await app.recordNote(key, {}); // local vectors, 384
    const refused = await assertDimensions(app.db, 768).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DimensionMismatchError);
    expect(String(refused)).toMatch(/384-dimensional vectors.*768.*npm run reindex/);
    expect(await storedDimensions(app.db)).toBe(384);

    await app.db.execute(sql`delete from meetings`);
    await assertDimensions(app.db, 768);
    expect(await storedDimensions(app.db)).toBe(768);
  });

  it('the demo seed with the default semantic embedder ends up searchable, with no embedding left to the worker', async () => {
    await app.db.execute(sql`delete from accounts`);
    const demo = await seedDemo(app.db, { ...app.services, embedder: semantic });
    expect(await storedDimensions(app.db)).toBe(768);
    const counts = await embeddedWith(app, semantic.model);
    expect(counts.passages).toBeGreaterThan(50);
    expect(counts.onModel).toBe(counts.passages);
    expect(counts.summaries).toBe(demoMeetings.length); // every demo note has a summary
    const [jobs] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from jobs where kind in ('embed_transcript', 'embed_summary')`,
    );
    expect(Number(jobs!.n)).toBe(0);

    app.services.embedder = semantic;
    const res = await app.request(
      `/v1/notes/search?q=${encodeURIComponent('postgres failover took eleven minutes')}`,
      { key: demo.api_key },
    );
    expect(res.status).toBe(200);
    expect(res.json.data[0].title).toBe(INC.title);
    expect(res.json.data[0].start_time).toBe(
      INC.segments.find((s) => s.content.includes('Postgres failover took eleven minutes'))!.start_time,
    );
  }, 180_000);
});
