import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../server/db/client';
import { LocalEmbedder } from '../../server/embeddings/local-embedder';
import { indexStoredTranscript } from '../../server/search/index-meeting';
import { relevanceOf } from '../../server/search/relevance';
import { startTestApp, type TestApp } from '../support/test-app';

// Search by moments, with the fast word-matching embedder: one hit per moment, a hit's start_time
// chosen from segment vectors stored at indexing time (no model run per search besides the
// query's), and only vectors of the configured model compared (docs/rules.md#search).

/** The word-matching embedder (so passages are embedded inline), counting the texts it is asked to embed. */
class CountingEmbedder extends LocalEmbedder {
  texts = 0;
  override embed(texts: string[], opts?: { signal?: AbortSignal }) {
    this.texts += texts.length;
    return super.embed(texts, opts);
  }
}

const embedder = new CountingEmbedder({ dimensions: 384 });
let app: TestApp;
let key: string;
let noteId: string;

// About 150 characters each, so each passage holds two segments and neighbours share one
// (make-passages.ts): segment 2 is in passages 1 and 2, segment 4 in passages 2… and 3.
const filler = (topic: string) =>
  `We went through the ${topic} item by item, agreed on who owns each part of it, and wrote the follow-up down in the shared notes for everybody to read later on.`;
const SEGMENTS = [
  { speaker: 'Ana', content: filler('hiring plan'), start_time: 0, end_time: 20 },
  {
    speaker: 'Ben',
    content:
      'The zeppelin hangar lease renewal costs eleven thousand euros a month, and the zeppelin hangar landlord wants an answer by Friday at the latest.',
    start_time: 20,
    end_time: 40,
  },
  { speaker: 'Ana', content: filler('office move'), start_time: 40, end_time: 60 },
  { speaker: 'Ben', content: filler('budget review'), start_time: 60, end_time: 80 },
  { speaker: 'Ana', content: filler('release train'), start_time: 80, end_time: 100 },
  { speaker: 'Ben', content: filler('customer escalations'), start_time: 100, end_time: 120 },
];

beforeAll(async () => {
  app = await startTestApp({ services: { embedder } });
  ({ key } = await app.createAccount());
  noteId = await app.recordNote(key, { title: 'Facilities sync', segments: SEGMENTS });
});
afterAll(() => app?.close());

const search = (q: string, extra = '') =>
  app.request(`/v1/notes/search?q=${encodeURIComponent(q)}${extra}`, { key });

describe('one hit per moment', () => {
  it('two overlapping passages that both match at their shared segment give one hit, the better one', async () => {
    const sharing = await queryRows<{ position: number }>(
      app.db,
      sql`select position from passages where meeting_id = ${noteId} and 2 between first_sequence and last_sequence order by position`,
    );
    expect(sharing.length).toBe(2); // the premise: segment 2 is in two passages

    const res = await search('zeppelin hangar lease', '&limit=10');
    expect(res.status).toBe(200);
    const hits = res.json.data as { note_id: string; start_time: number; score: number; snippet: string }[];
    expect(hits[0]).toMatchObject({ note_id: noteId, start_time: 20 });
    expect(hits[0]!.snippet).toContain('zeppelin hangar');
    expect(hits.filter((h) => h.start_time === 20)).toHaveLength(1);
    const moments = hits.map((h) => `${h.note_id}@${h.start_time}`);
    expect(new Set(moments).size).toBe(moments.length);
  });

  it('limit is still filled with distinct moments when the account has that many', async () => {
    const [count] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from passages where meeting_id = ${noteId}`,
    );
    expect(Number(count!.n)).toBeGreaterThanOrEqual(4);
    const res = await search('zeppelin hangar lease', '&limit=3');
    expect(res.json.data).toHaveLength(3);
    const moments = res.json.data.map((h: { start_time: number }) => h.start_time);
    expect(new Set(moments).size).toBe(3);
  });
});

describe('start_time without embedding at search time', () => {
  it('every passage stores one vector per segment it spans, by the same model', async () => {
    const rows = await queryRows<{ segments: number; numbers: number; model: string }>(
      app.db,
      sql`select last_sequence - first_sequence + 1 as segments, octet_length(segment_embeddings) / 4 as numbers, model from passages where meeting_id = ${noteId}`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(Number(r.numbers)).toBe(Number(r.segments) * 384);
      expect(r.model).toBe(embedder.model);
    }
  });

  it("a search embeds the query and nothing else, and still reports the matching segment's start", async () => {
    const before = embedder.texts;
    const res = await search('landlord wants an answer by Friday');
    expect(res.status).toBe(200);
    expect(res.json.data[0]).toMatchObject({ note_id: noteId, start_time: 20 });
    expect(embedder.texts - before).toBe(1);
  });

  it('passages without stored segment vectors still get the matching segment, by the words it shares with the query, without running the model in the request', async () => {
    await app.db.execute(sql`update passages set segment_embeddings = null where meeting_id = ${noteId}`);
    try {
      const before = embedder.texts;
      const res = await search('landlord wants an answer by Friday');
      expect(res.json.data[0]).toMatchObject({ note_id: noteId, start_time: 20 });
      expect(embedder.texts - before).toBe(1); // the query only
    } finally {
      // Indexing again (what reindex does for such rows) stores them.
      const again = await app.request(`/api/recorder/meetings/${noteId}/transcript`, {
        method: 'POST',
        key,
        json: { segments: SEGMENTS, generate_summary: false },
      });
      expect([200, 409]).toContain(again.status);
    }
  });
});

describe('vectors of different models are never compared', () => {
  it('passages and summaries recorded by another model are not searched until reindexed; nothing answers 500', async () => {
    const other = await app.createAccount();
    const id = await app.recordNote(other.key, {
      title: 'Model test',
      segments: [
        { speaker: 'A', content: 'The walrus budget was approved by finance.', start_time: 0, end_time: 3 },
      ],
      summary: {
        context: 'Walrus budget approval',
        decisions: ['Walrus budget approved'],
        action_items: [],
        participants: ['A'],
        next_step: null,
        budget_mentioned: null,
        sentiment: null,
      },
    });
    const a = () => app.request('/v1/notes/search?q=walrus%20budget', { key: other.key });
    const b = () => app.request('/v1/notes/search?q=walrus%20budget', { key: other.key, form: 'B' });
    expect((await a()).json.data.map((h: { note_id: string }) => h.note_id)).toEqual([id]);
    expect((await b()).json.data.map((n: { id: string }) => n.id)).toEqual([id]);

    await app.db.execute(sql`update passages set model = 'some-other-model' where meeting_id = ${id}`);
    await app.db.execute(
      sql`update meetings set summary_embedding_model = 'some-other-model' where id = ${id}`,
    );
    const [resA, resB] = [await a(), await b()];
    expect(resA.status).toBe(200);
    expect(resA.json.data).toEqual([]);
    expect(resB.status).toBe(200);
    expect(resB.json.data).toEqual([]);
  });
});

describe('background embedding', () => {
  /** The note is gone, and no passage of it was left behind. */
  async function expectGoneWithoutPassages(id: string, key: string) {
    const [left] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from passages where meeting_id = ${id}`,
    );
    expect(Number(left!.n)).toBe(0);
    expect((await app.request(`/v1/notes/${id}`, { key })).status).toBe(404);
  }

  it('a meeting deleted while its transcript is being embedded is simply not indexed (no failed job, no orphan passages)', async () => {
    const other = await app.createAccount();
    const id = await app.recordNote(other.key, { segments: SEGMENTS.slice(0, 3) });
    // The model is slow with the semantic embedder: the note is deleted while it runs.
    class DeletedMeanwhile extends LocalEmbedder {
      override async embed(texts: string[]) {
        await app.request(`/v1/notes/${id}`, { method: 'DELETE', key: other.key });
        return super.embed(texts);
      }
    }
    expect(
      await indexStoredTranscript(app.db, new DeletedMeanwhile({ dimensions: 384 }), {
        id,
        accountId: other.account.id,
      }),
    ).toBe(0);
    await expectGoneWithoutPassages(id, other.key);
  });

  it('a meeting deleted just before its passages are stored is not indexed either: no error, no orphan passages', async () => {
    const other = await app.createAccount();
    const id = await app.recordNote(other.key, { segments: SEGMENTS });
    // The database as the job sees it, but the note is deleted (through the API) right after the
    // job has cleared the meeting's earlier passages, before it stores the new ones.
    const deletingAfterClear = new Proxy(app.db, {
      get(target, prop, receiver) {
        if (prop !== 'delete') return Reflect.get(target, prop, receiver);
        return (table: Parameters<typeof target.delete>[0]) => ({
          where: (condition: Parameters<ReturnType<typeof target.delete>['where']>[0]) =>
            target
              .delete(table)
              .where(condition)
              .then(async () => {
                await app.request(`/v1/notes/${id}`, { method: 'DELETE', key: other.key });
              }),
        });
      },
    });
    expect(
      await indexStoredTranscript(deletingAfterClear, new LocalEmbedder({ dimensions: 384 }), {
        id,
        accountId: other.account.id,
      }),
    ).toBe(0);
    await expectGoneWithoutPassages(id, other.key);
  });
});

describe('searchable before the segments are embedded', () => {
  it("a transcript is searchable once its passages are stored; its segments' vectors follow, and start_time is the matching segment's meanwhile", async () => {
    const other = await app.createAccount();
    const id = await app.recordNote(other.key, { title: 'Hangar', segments: SEGMENTS });
    let calls = 0;
    let during: { status: number; json: { data: { note_id: string; start_time: number }[] } } | undefined;
    let storedDuring: { passages: number; with_vectors: number } | undefined;
    class Watching extends LocalEmbedder {
      override async embed(texts: string[], opts?: { signal?: AbortSignal }) {
        calls++;
        if (calls === 2) {
          // The passages' vectors are stored; the segments' are being computed.
          during = await app.request(
            `/v1/notes/search?q=${encodeURIComponent('landlord wants an answer by Friday')}`,
            { key: other.key },
          );
          [storedDuring] = await queryRows<{ passages: number; with_vectors: number }>(
            app.db,
            sql`select count(*)::int as passages, count(segment_embeddings)::int as with_vectors from passages where meeting_id = ${id}`,
          );
        }
        return super.embed(texts, opts);
      }
    }
    const n = await indexStoredTranscript(app.db, new Watching({ dimensions: 384 }), {
      id,
      accountId: other.account.id,
    });
    expect(n).toBeGreaterThan(1);
    expect(calls).toBe(2);
    expect(storedDuring).toEqual({ passages: n, with_vectors: 0 });
    expect(during?.status).toBe(200);
    expect(during?.json.data[0]).toMatchObject({ note_id: id, start_time: 20 });
    const after = await queryRows<{ segments: number; numbers: number }>(
      app.db,
      sql`select last_sequence - first_sequence + 1 as segments, octet_length(segment_embeddings) / 4 as numbers from passages where meeting_id = ${id}`,
    );
    expect(after).toHaveLength(n);
    for (const row of after) expect(Number(row.numbers)).toBe(Number(row.segments) * 384);
  });
});

describe('relevance bands for the settings app', () => {
  it("the bands follow the configured model; the API's hits stay note_id, title, snippet, score, start_time, with no threshold", async () => {
    expect(relevanceOf('use-lite-v1+local-lexical-v1@0.15', 0.45)).toBe('strong');
    expect(relevanceOf('use-lite-v1+local-lexical-v1@0.15', 0.33)).toBe('weak');
    expect(relevanceOf('use-lite-v1+local-lexical-v1@0.15', 0.24)).toBe('faint');
    expect(relevanceOf('local-lexical-v1', 0.24)).toBe('strong');
    expect(relevanceOf('local-lexical-v1', 0.05)).toBe('faint');
    expect(relevanceOf('text-embedding-3-small', 0.01)).toBe('strong'); // not calibrated: no claim

    const res = await search('xyzzyplugh', '&limit=5');
    expect(res.status).toBe(200);
    expect(res.json.data.length).toBeGreaterThan(0); // the top `limit` hits, however faint
    for (const hit of res.json.data)
      expect(Object.keys(hit)).toEqual(['note_id', 'title', 'snippet', 'score', 'start_time']);
  });
});
