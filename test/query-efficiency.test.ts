import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../server/db/client';
import { encodeCursor } from '../server/http/opaque-cursor';
import { createMeeting } from '../server/meetings/create-meeting';
import { storeTranscript } from '../server/meetings/store-transcript';
import { startTestApp, type TestApp } from './test-app';

// Issue 2, item 3: a page of notes takes a fixed number of SQL round trips (no N+1), and every
// list and lookup query can be served by an index.

const captured: { query: string; params: unknown[] }[] = [];
let capturing = false;
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    logger: {
      logQuery(query, params) {
        if (capturing) captured.push({ query, params });
      },
    },
  });
});
afterAll(() => app?.close());

async function addNotes(accountId: string, count: number, segments: number) {
  for (let i = 0; i < count; i++) {
    const { id } = await createMeeting(app.db, app.services, accountId, {
      title: `Meeting ${i}`,
      platform: i % 2 ? 'zoom' : 'microphone',
    });
    await storeTranscript(app.db, app.services, accountId, id, {
      durationSeconds: segments * 5,
      segments: Array.from({ length: segments }, (_, s) => ({
        speaker: `S${s % 3}`,
        content: `Line ${s} of meeting ${i}`,
        startTime: s * 5,
        endTime: s * 5 + 4,
      })),
    });
  }
}

async function capture(fn: () => Promise<unknown>) {
  captured.length = 0;
  capturing = true;
  try {
    await fn();
  } finally {
    capturing = false;
  }
  return [...captured];
}

describe('SQL round trips and indexes', () => {
  it('issue 2 item 3: listing 100 notes of 200 segments takes as many queries as listing 2 (no N+1)', async () => {
    const small = await app.createAccount();
    const large = await app.createAccount();
    await addNotes(small.account.id, 2, 200);
    await addNotes(large.account.id, 100, 200);
    // Warm up both keys so that the once-a-minute last_used_at write and the pruning of old
    // rate-limit windows (once per new window) are not counted.
    for (const form of ['A', 'B']) {
      await app.request('/v1/notes?limit=1', { key: small.key, form });
      await app.request('/v1/notes?limit=1', { key: large.key, form });
    }

    // Form A: key lookup, the account's day counter, the page of notes, their transcripts.
    // Form B (D22): the day and the key's minute counted together, in two statements.
    for (const [form, expected] of [
      ['A', 4],
      ['B', 5],
    ] as const) {
      let smallBody: any;
      let largeBody: any;
      const smallQueries = await capture(async () => {
        smallBody = (await app.request('/v1/notes?limit=100', { key: small.key, form })).json;
      });
      const largeQueries = await capture(async () => {
        largeBody = (await app.request('/v1/notes?limit=100', { key: large.key, form })).json;
      });
      expect(smallBody.data).toHaveLength(2);
      expect(largeBody.data).toHaveLength(100);
      expect(largeBody.data.every((n: any) => n.transcript.length === 200)).toBe(true);
      expect({ form, queries: largeQueries.length }).toEqual({ form, queries: smallQueries.length });
      expect({ form, queries: largeQueries.length }).toEqual({ form, queries: expected });
    }
  });

  it('issue 2 item 3: every query of a list, filtered list, page and lookup can use an index', async () => {
    const { account, key } = await app.createAccount();
    await addNotes(account.id, 3, 5);
    const page = await app.request('/v1/notes?limit=1', { key });
    const id = page.json.data[0].id;
    const queries = await capture(async () => {
      await app.request('/v1/notes?limit=2', { key });
      await app.request(
        `/v1/notes?limit=1&cursor=${page.json.next_cursor}&platform=zoom&created_after=2020-01-01T00:00:00Z&created_before=2100-01-01T00:00:00Z`,
        { key },
      );
      await app.request(`/v1/notes?limit=1&platform=phone`, { key, form: 'B' });
      await app.request(`/v1/notes/${id}`, { key });
    });
    const reads = queries.filter((q) => /^\s*select/i.test(q.query));
    expect(reads.length).toBeGreaterThanOrEqual(8);
    for (const { query, params } of reads) {
      const plan = await explainWithoutSeqScan(query, params);
      expect(plan, `${query}\n${plan}`).not.toMatch(/Seq Scan/);
    }
  });
});

describe('flat paging (issue 14 item 3, D5)', () => {
  it('issue 14 item 3, D5: the page of notes at depth 2,990 of 3,000 is found by an index condition in both forms: no row before the cursor is read and filtered', async () => {
    const { account, key } = await app.createAccount();
    // 3,000 notes, one a second (created_at is unique per account, D5).
    await app.db.execute(sql`
      insert into meetings (id, account_id, title, platform, started_at, created_at, transcribed_at)
      select gen_random_uuid(), ${account.id}, 'Note ' || g, 'zoom', t, t, t
      from (select g, timestamptz '2025-01-01T00:00:00Z' + g * interval '1 second' as t
            from generate_series(1, 3000) g) s`);
    const [deep] = await queryRows<{ id: string; created_at: string | Date }>(
      app.db,
      sql`select id, created_at from meetings where account_id = ${account.id}
          order by created_at desc, id desc offset 2989 limit 1`,
    );
    const position = { createdAt: new Date(deep!.created_at), id: deep!.id };
    for (const [form, cursor] of [
      ['A', encodeCursor(position)],
      ['B', position.createdAt.toISOString()],
    ] as const) {
      let answer: any;
      const queries = await capture(async () => {
        answer = await app.request(`/v1/notes?limit=10&cursor=${encodeURIComponent(cursor)}`, { key, form });
      });
      expect(answer.status).toBe(200);
      expect(answer.json.data).toHaveLength(10);
      const list = queries.find((q) => /from "meetings"/.test(q.query) && /order by/i.test(q.query));
      expect(list, form).toBeDefined();
      const plan = await explainWithoutSeqScan(list!.query, list!.params, { analyze: true });
      // The cursor is part of the index condition, and nothing read is thrown away by a filter.
      expect(plan, `${form}\n${plan}`).toMatch(/Index Cond: .*created_at/);
      expect(plan, `${form}\n${plan}`).not.toMatch(/Rows Removed by Filter: [1-9]/);
      expect(plan, `${form}\n${plan}`).not.toMatch(/Seq Scan/);
    }
  });
});

/** The plan with sequential scans priced out: a Seq Scan left in it means no index can serve the query. */
async function explainWithoutSeqScan(
  query: string,
  params: unknown[],
  opts: { analyze?: boolean } = {},
): Promise<string> {
  const explain = opts.analyze ? 'explain analyze' : 'explain';
  const client = (app.db as unknown as { $client: any }).$client;
  const values = params.map((p) => (p instanceof Date ? p.toISOString() : p));
  if (app.database.kind === 'pglite') {
    await client.query('set enable_seqscan = off');
    try {
      const result = await client.query(`${explain} ${query}`, values);
      return result.rows.map((r: any) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.query('set enable_seqscan = on');
    }
  }
  return app.db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    const reserved = (tx as unknown as { session: { client: any } }).session.client;
    const rows = await reserved.unsafe(`${explain} ${query}`, values);
    return rows.map((r: any) => r['QUERY PLAN']).join('\n');
  });
}
