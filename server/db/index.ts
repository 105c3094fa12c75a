import path from 'node:path';
import { getEnv } from '../env';
import { log } from '../log';
import {
  type Database,
  type MigrationRun,
  migrateDatabase,
  openPglite,
  openPostgres,
  PendingMigrationsError,
  pendingMigrations,
} from './client';

// One database per process, shared through globalThis: Next may load this module once per
// route bundle, and two PGlite instances on one folder would corrupt it.
const holder = globalThis as typeof globalThis & { __meetingNotesDatabase?: Promise<Database> };

/** The configured database, opened and migrated (or checked, MIGRATE_ON_START=false) on first use. */
export function getDatabase(): Promise<Database> {
  holder.__meetingNotesDatabase ??= openConfiguredDatabase().catch((err: unknown) => {
    holder.__meetingNotesDatabase = undefined;
    throw err;
  });
  return holder.__meetingNotesDatabase;
}

/**
 * Opens the configured database and applies pending migrations (through DATABASE_URL_UNPOOLED
 * when set), or, when `migrate` is false (default: MIGRATE_ON_START), only checks that none is
 * pending: an instance started before the release step ran says so instead of failing on a
 * missing column later.
 */
export async function openConfiguredDatabase(
  opts: { migrate?: boolean } = {},
): Promise<Database & { migrations?: MigrationRun }> {
  const env = getEnv();
  const database = env.DATABASE_URL
    ? await openPostgres(env.DATABASE_URL, { poolMode: env.DATABASE_POOL_MODE })
    : await openPglite(path.resolve(env.DATA_DIR));
  try {
    if (!(opts.migrate ?? env.MIGRATE_ON_START)) {
      const pending = await pendingMigrations(database.db);
      if (pending.length > 0) throw new PendingMigrationsError(pending);
      return database;
    }
    const run = await migrateDatabase(database, { url: env.DATABASE_URL_UNPOOLED });
    if (run.waited) log.info('waited for another process to finish migrating');
    if (run.applied.length > 0) log.info('migrations applied', { migrations: run.applied });
    return { ...database, migrations: run };
  } catch (err) {
    await database.close();
    throw err;
  }
}
