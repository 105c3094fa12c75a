import path from 'node:path';
import { getEnv } from '../env';
import { migrateDatabase, openPglite, openPostgres, type Database } from './client';

// One database per process, shared through globalThis: Next may load this module once per
// route bundle, and two PGlite instances on one folder would corrupt it.
const holder = globalThis as typeof globalThis & { __meetingNotesDatabase?: Promise<Database> };

/** The configured database (D21), opened and migrated on first use. */
export function getDatabase(): Promise<Database> {
  holder.__meetingNotesDatabase ??= openConfiguredDatabase().catch((err: unknown) => {
    holder.__meetingNotesDatabase = undefined;
    throw err;
  });
  return holder.__meetingNotesDatabase;
}

export async function openConfiguredDatabase(opts: { migrate?: boolean } = {}): Promise<Database> {
  const env = getEnv();
  const database = env.DATABASE_URL
    ? await openPostgres(env.DATABASE_URL)
    : await openPglite(path.resolve(env.DATA_DIR));
  if (opts.migrate ?? true) {
    try {
      await migrateDatabase(database);
    } catch (err) {
      await database.close();
      throw err;
    }
  }
  return database;
}
