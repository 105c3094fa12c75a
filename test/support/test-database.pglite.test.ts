import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../server/db/client';
import { createTestDatabase } from './test-database';

// A PGlite database a test file closes is emptied and handed to the next file of the worker. That
// file must not be able to tell: these check that it cannot, and that a database a test changed
// beyond its rows is not handed on at all. On PGlite only (vitest.config.ts): PostgreSQL test
// databases are new each time.

const startedAt = async (database: Awaited<ReturnType<typeof createTestDatabase>>) =>
  String((await queryRows<{ at: Date }>(database.db, sql`select pg_postmaster_start_time() as at`))[0]!.at);

describe('test databases handed from one test file to the next', () => {
  it('come back empty, with the session as new, and the handle the last file held refuses statements', async () => {
    const first = await createTestDatabase({ serverUrl: null });
    await first.db.execute(
      sql`insert into accounts (id, email, name) values (gen_random_uuid(), 'left-behind@example.com', 'Left behind')`,
    );
    await first.db.execute(sql`set enable_seqscan = off`);
    await first.db.execute(sql`select pg_advisory_lock(42)`);
    await first.db.execute(sql`analyze accounts`);
    const firstStarted = await startedAt(first);
    await first.close();
    await expect(first.db.execute(sql`select 1`)).rejects.toMatchObject({
      cause: { message: 'PGlite is closed' },
    });

    const next = await createTestDatabase({ serverUrl: null });
    try {
      expect(await startedAt(next), 'the same PostgreSQL, handed on').toBe(firstStarted);
      const [row] = await queryRows<{ accounts: number; seqscan: string; locks: number; stats: number }>(
        next.db,
        sql`select (select count(*) from accounts)::int as accounts,
                   current_setting('enable_seqscan') as seqscan,
                   (select count(*) from pg_locks where locktype = 'advisory')::int as locks,
                   (select count(*) from pg_statistic where starelid = 'accounts'::regclass)::int as stats`,
      );
      expect(row).toEqual({ accounts: 0, seqscan: 'on', locks: 0, stats: 0 });
    } finally {
      await next.close();
    }
  });

  it('are not handed on once a test changed more than their rows', async () => {
    const changed = await createTestDatabase({ serverUrl: null });
    await changed.db.execute(sql`create table left_behind (id int)`);
    const changedStarted = await startedAt(changed);
    await changed.close();

    const next = await createTestDatabase({ serverUrl: null });
    try {
      const [row] = await queryRows<{ table: string | null }>(
        next.db,
        sql`select to_regclass('left_behind')::text as table`,
      );
      expect(row!.table).toBeNull();
      expect(await startedAt(next)).not.toBe(changedStarted);
    } finally {
      await next.close();
    }
  });
});
