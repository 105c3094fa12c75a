import fs from 'node:fs';
import path from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'drizzle-orm/logger';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema';
import { backgroundTakesTurns } from './background-turns';
import { tracePglite, tracePostgres } from './traced-client';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction handle has the same query surface as the database. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type Queryable = Db | Tx;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Where the data lives, for messages: a data folder, ':memory:' or the server URL without password. */
  location: string;
  /** The server URL (postgres only), for work that needs a connection of its own. */
  url?: string;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = path.join(process.cwd(), 'drizzle');

/** Raw SQL rows: PGlite answers {rows}, postgres.js an array; callers see rows either way. */
export async function queryRows<T extends Record<string, unknown>>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

export class DatabaseInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another process (pid ${pid}, probably \`npm start\`). ` +
        'PGlite allows one process at a time: stop that process first, or point both at PostgreSQL with DATABASE_URL.',
    );
    this.name = 'DatabaseInUseError';
  }
}

/** The database lacks migrations and this process is not to apply them (MIGRATE_ON_START=false). */
export class PendingMigrationsError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `The database lacks ${pending.length} migration${pending.length === 1 ? '' : 's'} (${pending.join(', ')}) ` +
        'and MIGRATE_ON_START=false: run `npm run db:migrate` against it first (the release step).',
    );
    this.name = 'PendingMigrationsError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A pid file beside the data, since PGlite itself does not guard against a second process. */
function lockDataDir(dataDir: string): () => void {
  const lockFile = path.join(dataDir, 'meeting-notes.lock');
  for (let i = 0; i < 2; i++) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(lockFile, 'utf8') === String(process.pid)) fs.unlinkSync(lockFile);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(lockFile, 'utf8'));
      if (holder && holder !== process.pid && isAlive(holder)) throw new DatabaseInUseError(dataDir, holder);
      fs.unlinkSync(lockFile); // left behind by a process that died
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

/**
 * PGlite's PostgreSQL keeps initdb's shared_buffers of 128 MB, and its shared memory is allocated
 * and zeroed inside the WebAssembly heap when it starts, so the whole of it is resident from the
 * first second, whatever the database's size (bench:memory;
 * docs/performance.md#pglite-shared-buffers). 16 MB (2,048 pages) holds the demo's and a small
 * team's working set. Pages beyond it are read from the data directory's files, which the
 * operating system caches. A database that outgrows this belongs on PostgreSQL.
 */
export const PGLITE_SHARED_BUFFERS = '16MB';

export async function openPglite(
  dataDir: string | null,
  opts: {
    logger?: Logger /** A dumpDataDir() tarball to start from (the tests' migrated template). */;
    loadDataDir?: Blob;
  } = {},
): Promise<Database> {
  let release = () => {};
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    release = lockDataDir(dataDir);
  }
  try {
    const client = await startPglite(dataDir, opts.loadDataDir);
    return await pgliteDatabase(client, {
      ...(opts.logger && { logger: opts.logger }),
      location: dataDir ?? ':memory:',
      async close() {
        await client.close();
        release();
      },
    });
  } catch (err) {
    release();
    throw err;
  }
}

/** PGlite's PostgreSQL with pgvector, in a folder or in memory, as the service runs it. */
export async function startPglite(dataDir: string | null, loadDataDir?: Blob) {
  const [{ PGlite }, { vector }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
  ]);
  return PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...(loadDataDir && { loadDataDir }),
    extensions: { vector },
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
  });
}

/** A running PGlite, as startPglite gives it. */
export type PgliteClient = Awaited<ReturnType<typeof startPglite>>;

/** The service's database over a PGlite client already running; `close` says what closing it does. */
export async function pgliteDatabase(
  client: PgliteClient,
  opts: { logger?: Logger; location: string; close(): Promise<void> },
): Promise<Database> {
  const { drizzle } = await import('drizzle-orm/pglite');
  const db = drizzle({
    client: backgroundTakesTurns(tracePglite(client)),
    schema,
    ...(opts.logger && { logger: opts.logger }),
  }) as unknown as Db;
  return { db, kind: 'pglite', location: opts.location, close: opts.close };
}

/**
 * How the service reaches PostgreSQL (DATABASE_POOL_MODE): `session` keeps a server session per
 * connection (a direct connection, a session-mode pooler); `transaction` is a transaction-mode
 * pooler, where consecutive transactions of one connection may run on different server sessions.
 */
export type PoolMode = 'session' | 'transaction';

export async function openPostgres(
  url: string,
  opts: { max?: number; logger?: Logger; poolMode?: PoolMode } = {},
): Promise<Database> {
  const [{ default: postgres }, { drizzle }] = await Promise.all([
    import('postgres'),
    import('drizzle-orm/postgres-js'),
  ]);
  const client = postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    connection: { application_name: 'meeting-notes' },
    // A named statement lives in the server session that parsed it; behind a transaction-mode
    // pooler a connection's next transaction may run in another session, where the name is
    // unknown. postgres.js's prepared COMMIT then aborts the transaction and is sent again, and
    // PostgreSQL answers ROLLBACK without an error (test/operations/pooler.postgres.test.ts). Unnamed
    // statements only.
    ...(opts.poolMode === 'transaction' && { prepare: false }),
  });
  const db = drizzle({
    client: tracePostgres(client),
    schema,
    ...(opts.logger && { logger: opts.logger }),
  }) as unknown as Db;
  const safeUrl = new URL(url);
  safeUrl.password = '';
  return {
    db,
    kind: 'postgres',
    location: safeUrl.toString(),
    url,
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

/** The key of the migrations' advisory lock; earlier releases took it as a session lock. */
export const MIGRATION_LOCK = 727465001;

interface Migration {
  tag: string;
  folderMillis: number;
  hash: string;
  sql: string[];
}

/** The migrations of `folder` in order, read as drizzle's migrator reads them, with their names. */
async function readMigrations(folder: string): Promise<Migration[]> {
  const { readMigrationFiles } = await import('drizzle-orm/migrator');
  const journal = JSON.parse(fs.readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const tags = new Map(journal.entries.map((e) => [e.when, e.tag]));
  return readMigrationFiles({ migrationsFolder: folder }).map((m) => ({
    tag: tags.get(m.folderMillis) ?? String(m.folderMillis),
    folderMillis: m.folderMillis,
    hash: m.hash,
    sql: m.sql,
  }));
}

/** created_at of the newest migration applied (drizzle keeps the folder's millis there), or null. */
async function lastAppliedMigration(db: Queryable): Promise<number | null> {
  const [table] = await queryRows<{ present: boolean }>(
    db,
    sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`,
  );
  if (!table?.present) return null;
  const [row] = await queryRows<{ last: string | number | null }>(
    db,
    sql`select max(created_at) as last from drizzle.__drizzle_migrations`,
  );
  return row?.last == null ? null : Number(row.last);
}

/** The migrations the database lacks, by name; none when it is current (or newer). */
export async function pendingMigrations(db: Queryable, folder = MIGRATIONS_FOLDER): Promise<string[]> {
  const last = await lastAppliedMigration(db);
  return (await readMigrations(folder))
    .filter((m) => last === null || m.folderMillis > last)
    .map((m) => m.tag);
}

export interface MigrationRun {
  /** The migrations this call applied, by name. */
  applied: string[];
  /** Whether another process held the migration lock when this one asked for it. */
  waited: boolean;
}

/**
 * Applies pending migrations in one transaction, as drizzle's migrator does and into its table
 * (drizzle.__drizzle_migrations), but under a transaction-scoped advisory lock taken first in
 * that transaction: processes starting at once take turns, and one that waited finds the
 * migrations applied. The lock ends with the transaction, so it also works through a
 * transaction-mode pooler, where a session lock would stay with whichever server session ran
 * it. (drizzle's migrator reads what is applied before its transaction, so it cannot be put
 * under a lock taken inside it.) A database that is current costs two reads and no lock.
 */
async function applyMigrations(db: Db, folder: string): Promise<MigrationRun> {
  const migrations = await readMigrations(folder);
  const newest = migrations.at(-1)?.folderMillis;
  const before = await lastAppliedMigration(db);
  if (newest === undefined || (before !== null && before >= newest)) return { applied: [], waited: false };
  return db.transaction(async (tx) => {
    const [lock] = await queryRows<{ taken: boolean }>(
      tx,
      sql`select pg_try_advisory_xact_lock(${sql.raw(String(MIGRATION_LOCK))}) as taken`,
    );
    const waited = !lock?.taken;
    if (waited) await tx.execute(sql`select pg_advisory_xact_lock(${sql.raw(String(MIGRATION_LOCK))})`);
    await tx.execute(sql`create schema if not exists drizzle`);
    await tx.execute(
      sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
    );
    const last = await lastAppliedMigration(tx);
    const applied: string[] = [];
    for (const migration of migrations) {
      if (last !== null && migration.folderMillis <= last) continue;
      for (const statement of migration.sql) await tx.execute(sql.raw(statement));
      await tx.execute(
        sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`,
      );
      applied.push(migration.tag);
    }
    return { applied, waited };
  });
}

/**
 * Applies pending migrations (see applyMigrations). `url`: a direct URL of the same PostgreSQL
 * database (DATABASE_URL_UNPOOLED) to migrate through, on a connection of its own, instead of
 * the database's pool.
 */
export async function migrateDatabase(
  database: Database,
  opts: { url?: string; folder?: string } = {},
): Promise<MigrationRun> {
  const folder = opts.folder ?? MIGRATIONS_FOLDER;
  if (database.kind === 'pglite' || !opts.url) return applyMigrations(database.db, folder);
  const [{ drizzle }, { default: postgres }] = await Promise.all([
    import('drizzle-orm/postgres-js'),
    import('postgres'),
  ]);
  const client = postgres(opts.url, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: 'meeting-notes migrate' },
  });
  try {
    return await applyMigrations(drizzle({ client }) as unknown as Db, folder);
  } finally {
    await client.end({ timeout: 5 });
  }
}
