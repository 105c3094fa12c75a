import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../server/db/client';
import { encodeCursor } from '../../server/http/opaque-cursor';
import { createMeeting } from '../../server/meetings/create-meeting';
import { storeTranscript } from '../../server/meetings/store-transcript';
import { RequestCounter } from '../../server/accounts/request-counter';
import { startTestApp, type TestApp } from '../support/test-app';
import { countPgliteStatements, startCountingRelay, type StatementCounter } from './wire-statements';

// A page of notes takes a fixed number of SQL round trips (no N+1), and every list and lookup query
// can be served by an index.

const captured: { query: string; params: unknown[] }[] = [];
let capturing = false;
let app: TestApp;
let statements: StatementCounter;

beforeAll(async () => {
  // On PostgreSQL the service's connections go through a relay that counts what they send.
  const serverUrl = process.env.TEST_DATABASE_URL;
  const relay = serverUrl ? await startCountingRelay(serverUrl) : null;
  if (relay) process.env.TEST_DATABASE_URL = relay.url;
  try {
    app = await startTestApp({
      // Usage is written when the test says (flushCounts), not by a timer in the middle of a count.
      services: { requests: new RequestCounter({ flushIntervalMs: 3_600_000 }) },
      logger: {
        logQuery(query, params) {
          if (capturing) captured.push({ query, params });
        },
      },
    });
  } finally {
    if (serverUrl) process.env.TEST_DATABASE_URL = serverUrl;
  }
  statements = relay?.counter ?? countPgliteStatements(app.database);
});
afterAll(async () => {
  await app?.close();
  await statements?.close();
});

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
  // Enough segments that fetching transcripts note by note would show, few enough to store quickly
  // (200 a note took 30 s on PGlite, most of it storing them).
  const SEGMENTS = 20;
  it('listing 100 notes of 20 segments takes as many queries as listing 2 (no N+1)', async () => {
    // Free plans: their windows are counted request by request, never from a block reserved in
    // the background (which would add a statement to whichever request it overlaps).
    const small = await app.createAccount({ plan: 'free' });
    const large = await app.createAccount({ plan: 'free' });
    await addNotes(small.account.id, 2, SEGMENTS);
    await addNotes(large.account.id, 100, SEGMENTS);
    // Warm up both keys so that a window's first count (which prunes its bucket's old windows) is
    // not among the counted.
    for (const form of ['A', 'B']) {
      await app.request('/v1/notes?limit=1', { key: small.key, form });
      await app.request('/v1/notes?limit=1', { key: large.key, form });
    }

    // The key and the count (Form B: the account's day and the key's minute) in one statement, the
    // page of notes with their transcripts in the other.
    for (const [form, expected] of [
      ['A', 2],
      ['B', 2],
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
      expect(largeBody.data.every((n: any) => n.transcript.length === SEGMENTS)).toBe(true);
      expect({ form, queries: largeQueries.length }).toEqual({ form, queries: smallQueries.length });
      expect({ form, queries: largeQueries.length }).toEqual({ form, queries: expected });
    }
  }, 120_000);

  it('every query of a list, filtered list, page and lookup can use an index', async () => {
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
    // The statement that authenticates and counts starts with WITH (EXPLAIN does not run it); a
    // request whose windows had quota in hand reads its key with a SELECT, unless a read of it
    // under a quarter second old is trusted. So each request's own read, and one or more of the key.
    const reads = queries.filter((q) => /^\s*(select|with)\b/i.test(q.query));
    const ofKey = reads.filter((q) => /\bfrom "?api_keys"?/i.test(q.query));
    expect(reads.length - ofKey.length).toBeGreaterThanOrEqual(4);
    expect(ofKey.length).toBeGreaterThanOrEqual(1);
    for (const { query, params } of reads) {
      const plan = await explainWithoutSeqScan(query, params);
      expect(plan, `${query}\n${plan}`).not.toMatch(/Seq Scan/);
    }
  });
});

describe('two statements per /v1 read', () => {
  /** Statements sent to the database for one request, and the answer. */
  async function sent(path: string, init: Parameters<TestApp['request']>[1]) {
    let answer: Awaited<ReturnType<TestApp['request']>> | undefined;
    const count = await statements.count(async () => {
      answer = await app.request(path, init);
    });
    return { count, status: answer!.status, json: answer!.json };
  }

  it.each(['A', 'B'] as const)(
    'a Form %s list or get sends two statements to the database (key and count; note or page with transcripts), from a key’s first request on, counted on the wire',
    async (form) => {
      const { account, key } = await app.createAccount({ form, plan: 'free' });
      await addNotes(account.id, 3, 50);
      // The key's first request: the new window's row is written in the same statement that
      // authenticates and counts; last_used_at with the key's usage, once a second (or when read).
      const first = await sent('/v1/notes?limit=2', { key });
      expect(first).toMatchObject({ count: 2, status: 200, json: { has_more: true } });
      expect(first.json.data).toHaveLength(2);
      expect(first.json.data.every((n: any) => n.transcript.length === 50)).toBe(true);
      const [note] = first.json.data;
      await app.flushCounts();
      const [used] = await queryRows<{ last_used_at: unknown }>(
        app.db,
        sql`select last_used_at from api_keys where account_id = ${account.id}`,
      );
      expect(used!.last_used_at).not.toBeNull();

      const page = await sent(`/v1/notes?limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}`, {
        key,
      });
      expect(page).toMatchObject({ count: 2, status: 200, json: { has_more: false } });
      expect(page.json.data).toHaveLength(1);

      const got = await sent(`/v1/notes/${note.id}`, { key });
      expect(got).toMatchObject({ count: 2, status: 200, json: { id: note.id } });
      expect(got.json.transcript).toStrictEqual(note.transcript);

      const missing = await sent('/v1/notes/00000000-0000-4000-8000-000000000000', { key });
      expect(missing).toMatchObject({ count: 2, status: 404 });

      // Nothing but the lookup for a key that matches none; nothing at all for one that cannot.
      expect(await sent('/v1/notes', { key: `mnk_${'x'.repeat(40)}`, form })).toMatchObject({
        count: 1,
        status: 401,
      });
      expect(await sent('/v1/notes', { key: 'not-a-key', form })).toMatchObject({ count: 0, status: 401 });
    },
  );

  it.each(['A', 'B'] as const)(
    'a Form %s request refused by a full window is one statement, and counts nothing',
    async (form) => {
      const { account, key } = await app.createAccount({ form, plan: 'enterprise', dailyLimit: 2 });
      await addNotes(account.id, 1, 5);
      expect((await sent('/v1/notes', { key })).status).toBe(200);
      expect((await sent('/v1/notes', { key })).status).toBe(200);
      expect(await sent('/v1/notes', { key })).toMatchObject({ count: 1, status: 429 });
      const [day] = await queryRows<{ count: number }>(
        app.db,
        sql`select count from rate_limit_counters where bucket = ${`account:${account.id}`}`,
      );
      expect(Number(day!.count)).toBe(2);
    },
  );
});

describe('flat paging', () => {
  it('the page of notes at depth 2,990 of 3,000 is found by an index condition in both forms: no row before the cursor is read and filtered', async () => {
    const { account, key } = await app.createAccount();
    // 3,000 notes, one a second (created_at is unique per account).
    await app.db.execute(sql`
      insert into meetings (id, account_id, title, platform, started_at, created_at, transcribed_at)
      select gen_random_uuid(), ${account.id}, 'Note ' || g, 'zoom', t, t, t
      from (select g, timestamptz '2025-01-01T00:00:00Z' + g * interval '1 second' as t
            from generate_series(1, 3000) g) s`);
    // As autovacuum would after such a load: statistics that know the account has 3,000 notes.
    // Without them the planner takes the account for one row, and any index will do for it.
    await app.db.execute(sql`analyze meetings`);
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
      // The cursor is part of the index condition, and no row before it is read and thrown away:
      // a filter may drop the cursor's own row at most (one account's notes never share a
      // created_at, so an index on (account_id, created_at) alone stops there).
      expect(plan, `${form}\n${plan}`).toMatch(/Index Cond: .*created_at/);
      const removed = [...plan.matchAll(/Rows Removed by Filter: (\d+)/g)].map((m) => Number(m[1]));
      expect(Math.max(0, ...removed), `${form}\n${plan}`).toBeLessThanOrEqual(1);
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
