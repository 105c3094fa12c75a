import fs from 'node:fs';
import path from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'drizzle-orm/logger';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema';
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
 * Issue 14 item 5: PGlite's PostgreSQL keeps initdb's shared_buffers of 128 MB, and its shared
 * memory is allocated and zeroed inside the WebAssembly heap when it starts, so the whole of it
 * is resident from the first second, whatever the database's size (a process that only opened
 * the demo database went from 48 to 344 MB; with 32 MB, to 221 MB). 16 MB (2,048 pages) holds
 * the demo's and a small team's working set and takes 16 MB more off `npm start`'s idle server
 * (bench:memory). Pages beyond it are read from the data directory's files, which the operating
 * system caches. A database that outgrows this belongs on PostgreSQL.
 */
export const PGLITE_SHARED_BUFFERS = '16MB';

export async function openPglite(
  dataDir: string | null,
  opts: {
    logger?: Logger /** A dumpDataDir() tarball to start from (the tests' migrated template). */;
    loadDataDir?: Blob;
  } = {},
): Promise<Database> {
  const [{ PGlite }, { vector }, { drizzle }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
    import('drizzle-orm/pglite'),
  ]);
  let release = () => {};
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    release = lockDataDir(dataDir);
  }
  try {
    const client = await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      ...(opts.loadDataDir && { loadDataDir: opts.loadDataDir }),
      extensions: { vector },
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    });
    const db = drizzle({
      client: tracePglite(client),
      schema,
      ...(opts.logger && { logger: opts.logger }),
    }) as unknown as Db;
    return {
      db,
      kind: 'pglite',
      location: dataDir ?? ':memory:',
      async close() {
        await client.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

export async function openPostgres(
  url: string,
  opts: { max?: number; logger?: Logger } = {},
): Promise<Database> {
  const [{ default: postgres }, { drizzle }] = await Promise.all([
    import('postgres'),
    import('drizzle-orm/postgres-js'),
  ]);
  const client = postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    connection: { application_name: 'meeting-notes' },
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

export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    await migrate(database.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  const { url } = database;
  if (!url) throw new Error(`Cannot migrate ${database.location}: the PostgreSQL database has no URL`);
  const [{ migrate }, { drizzle }, { default: postgres }] = await Promise.all([
    import('drizzle-orm/postgres-js/migrator'),
    import('drizzle-orm/postgres-js'),
    import('postgres'),
  ]);
  // Several instances may start at once: one migrates while the others wait on the lock,
  // which lives on one connection, hence a client of its own.
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const db = drizzle({ client });
    await db.execute(sql`select pg_advisory_lock(727465001)`);
    await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.end({ timeout: 5 });
  }
}
