import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

/**
 * A new folder holding a migrated PGlite database, for processes a test starts on it (PGlite lets
 * one process at a time open a folder; open it here only while none runs). Made from the template
 * when there is one: initdb and every migration in an empty folder take 6–12 s, the template 2–3 s.
 * Tests of what a process does on an empty folder (the first start, the admin CLI's first run)
 * make their folder themselves.
 */
export async function migratedPgliteFolder(label: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mn-${label}-`));
  const template = pgliteTemplate();
  const database = await openPglite(dir, template && { loadDataDir: template });
  try {
    await migrateDatabase(database);
  } finally {
    await database.close();
  }
  return dir;
}

export const testDatabaseKind = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';
