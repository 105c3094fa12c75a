import { randomBytes } from 'node:crypto';
import type { Logger } from 'drizzle-orm/logger';
import postgres from 'postgres';
import { migrateDatabase, openPglite, openPostgres, type Database } from '../../server/db/client';
import { pgliteTemplate } from './pglite-template';

/**
 * A fresh, migrated database for one test file: PGlite in memory by default, or a new
 * database on the PostgreSQL server named by TEST_DATABASE_URL (dropped again on close).
 */
export async function createTestDatabase(
  opts: { logger?: Logger; serverUrl?: string | null } = {},
): Promise<Database> {
  // serverUrl: null forces PGlite; a URL picks that server; undefined follows TEST_DATABASE_URL.
  const serverUrl = opts.serverUrl === undefined ? process.env.TEST_DATABASE_URL : opts.serverUrl;
  if (!serverUrl) {
    // From the migrated template vitest's global setup dumped (test/support/pglite-template.ts),
    // when there is one; migrateDatabase then finds nothing to do.
    const template = pgliteTemplate();
    const database = await openPglite(null, { ...opts, ...(template && { loadDataDir: template }) });
    await migrateDatabase(database);
    return database;
  }
  const name = `mn_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), { max: 20, ...opts });
  await migrateDatabase(database);
  return {
    ...database,
    async close() {
      await database.close();
      const dropper = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

export const testDatabaseKind = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';
