import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { migrateDatabase, queryRows } from '../../server/db/client';
import { openDatabaseBefore } from '../support/older-database';

// Migration 0008 adds verified addresses. An account from before it keeps getting its emails
// (webhook notices go only to verified addresses): it counts as verified since it was made. Run on
// the embedded database, where a folder holding migrations 0000–0007 only can stand for a database
// of the previous release.

describe('migration 0008', () => {
  it('accounts made before migration 0008 count as verified since their creation; new columns start empty', async () => {
    const database = await openDatabaseBefore(8);
    try {
      await database.db.execute(
        sql`insert into accounts (id, email, created_at) values
              ('6f1c2a52-8e0b-4b55-9a39-3c1f1c0f0001', 'old@example.com', '2026-01-02T03:04:05.678Z')`,
      );
      await migrateDatabase(database);
      const rows = await queryRows<{ email_verified_at: unknown; early_access_requested_at: unknown }>(
        database.db,
        sql`select email_verified_at, early_access_requested_at from accounts where email = 'old@example.com'`,
      );
      expect(rows).toHaveLength(1);
      expect(new Date(rows[0]!.email_verified_at as string).toISOString()).toBe('2026-01-02T03:04:05.678Z');
      expect(rows[0]!.early_access_requested_at).toBeNull();
      const tables = await queryRows<{ name: string }>(
        database.db,
        sql`select table_name as name from information_schema.tables where table_name in ('account_tokens', 'account_audit_log') order by 1`,
      );
      expect(tables.map((t) => t.name)).toEqual(['account_audit_log', 'account_tokens']);
    } finally {
      await database.close();
    }
  });
});
