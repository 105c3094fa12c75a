import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../server/db/client';
import { startTestApp, type TestApp } from '../support/test-app';
import { postgresServerUrl } from '../support/test-database';

// A request is authenticated and counted in its windows by one statement. On PostgreSQL another
// instance can change a window between that statement's snapshot and its count; PGlite runs one
// statement at a time, so no request can overtake another there.

postgresServerUrl();
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe("the one statement keeps the account's daily limit under a race", () => {
  it('a day window filled between the statement’s snapshot and its count refuses the request, and the key’s minute keeps no count of it', async () => {
    const { account, key, keyId } = await app.createAccount({
      form: 'B',
      plan: 'enterprise',
      dailyLimit: 5,
    });
    expect((await app.request('/v1/notes', { key })).status).toBe(200);
    const day = `account:${account.id}`;
    const minute = `key:${keyId}`;
    const counter = async (bucket: string) =>
      Number(
        (
          await queryRows<{ count: number }>(
            app.db,
            sql`select coalesce(max(count), 0) as count from rate_limit_counters where bucket = ${bucket}`,
          )
        )[0]?.count,
      );
    const { pending } = await app.db.transaction(async (tx) => {
      // Another instance fills the day and holds the row: the request's snapshot still shows
      // room, so it counts its minute and then waits for the day's row.
      await tx.execute(sql`update rate_limit_counters set count = 5 where bucket = ${day}`);
      const pending = app.request('/v1/notes', { key });
      // The race this test is about: the request must be seen waiting for the day's row.
      await vi.waitFor(
        async () => {
          const [waiting] = await queryRows<{ n: number }>(
            app.db,
            sql`select count(*)::int as n from pg_stat_activity
                  where datname = current_database() and wait_event_type = 'Lock'`,
          );
          expect(Number(waiting?.n)).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 25 },
      );
      // Wrapped, or the transaction would wait for the answer before it commits.
      return { pending };
    });
    const answer = await pending;
    expect({ status: answer.status, body: answer.json }).toEqual({
      status: 429,
      body: { error: expect.stringContaining('per UTC day') },
    });
    expect(answer.headers.get('x-ratelimit-limit')).toBe('5');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
    expect({ day: await counter(day), minute: await counter(minute) }).toEqual({ day: 5, minute: 1 });
  });
});
