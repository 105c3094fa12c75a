import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_FOLDER, openPglite, type Database } from '../../server/db/client';

/**
 * An embedded database migrated only up to (not including) migration `next`: what a database of
 * the release before that migration looks like. It is made from a folder holding migrations
 * 0000…next-1 and their journal; the test then writes old-shaped rows and runs migrateDatabase.
 */
export async function openDatabaseBefore(next: number): Promise<Database> {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'));
  const before = journal.entries.filter((e: { idx: number }) => e.idx < next);
  if (before.length !== next)
    throw new Error(`expected ${next} migrations before ${next}, found ${before.length}`);
  const older = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-migrations-'));
  try {
    fs.mkdirSync(path.join(older, 'meta'));
    fs.writeFileSync(
      path.join(older, 'meta', '_journal.json'),
      JSON.stringify({ ...journal, entries: before }),
    );
    for (const entry of before)
      fs.copyFileSync(path.join(MIGRATIONS_FOLDER, `${entry.tag}.sql`), path.join(older, `${entry.tag}.sql`));
    const database = await openPglite(null);
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    await migrate(database.db as never, { migrationsFolder: older });
    return database;
  } finally {
    fs.rmSync(older, { recursive: true, force: true });
  }
}
