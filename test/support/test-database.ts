import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'drizzle-orm/logger';
import postgres from 'postgres';
import {
  migrateDatabase,
  openPglite,
  openPostgres,
  pgliteDatabase,
  type PgliteClient,
  startPglite,
  type Database,
} from '../../server/db/client';
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
    if (template) return spareOrNewPglite(template, opts.logger);
    const database = await openPglite(null, opts);
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

// Test files share their worker (vitest.config.ts), and starting a PGlite database from the
// template costs 1.5-2 s of CPU (unpacking its files into WebAssembly's memory, starting
// PostgreSQL). A database a file closes is emptied instead and kept for the next file of the
// worker, as fresh as a new one: every table emptied, the session's settings, locks and prepared
// statements discarded, the planner's statistics and the activity counters reset. If anything
// else differs from the template (a table, column, index, function or setting a test changed, a
// transaction left open) it is closed for real. docs/performance.md#test-databases-are-reused
// has the figures.
const spares: PgliteClient[] = [];
const MAX_SPARES = 2;
let templateShape: string | undefined;

/** Everything about a database's structure a test could change, as one hash. */
const SHAPE = `select md5(string_agg(item, E'\\n' order by item)) as shape from (
  select 'rel ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || c.relpersistence::text as item
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg_temp%'
  union all
  select 'col ' || a.attrelid::regclass::text || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || ' ' || a.attnotnull::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
   where a.attnum > 0 and not a.attisdropped and n.nspname in ('public', 'drizzle')
  union all
  select 'con ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    from pg_constraint where connamespace in ('public'::regnamespace, 'drizzle'::regnamespace)
  union all
  select 'idx ' || pg_get_indexdef(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid
   where c.relnamespace in ('public'::regnamespace, 'drizzle'::regnamespace)
  union all
  select 'trg ' || tgrelid::regclass::text || ' ' || pg_get_triggerdef(oid) from pg_trigger where not tgisinternal
  union all
  select 'fn ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) from pg_proc p
   where p.pronamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  union all
  select 'ext ' || extname || ' ' || extversion from pg_extension
  union all
  select 'seq ' || schemaname || '.' || sequencename || ' ' || coalesce(last_value, 0)::text from pg_sequences
  union all
  select 'set ' || setdatabase::text || ' ' || setrole::text || ' ' || array_to_string(setconfig, ',') from pg_db_role_setting
  union all
  select 'migrations ' || count(*)::text from drizzle.__drizzle_migrations
  union all
  select 'xact ' || coalesce(txid_current_if_assigned()::text, 'none')
) items`;

async function shapeOf(client: PGlite): Promise<string> {
  const { rows } = await client.query<{ shape: string }>(SHAPE);
  return rows[0]!.shape;
}

/** Empties a database a test file has closed, or says it cannot be made as good as new. */
async function emptied(client: PGlite): Promise<boolean> {
  try {
    // Fails inside a transaction left open, which also rules the database out.
    await client.exec('discard all');
    const { rows } = await client.query<{ name: string }>(
      `select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname = 'public'`,
    );
    await client.exec(
      `${rows.length ? `truncate ${rows.map((r) => r.name).join(', ')} cascade;` : ''}
       delete from pg_statistic where starelid in (select oid from pg_class where relnamespace = 'public'::regnamespace);
       select pg_stat_reset();`,
    );
    return (await shapeOf(client)) === templateShape;
  } catch {
    return false;
  }
}

/** What a test calls on PGlite itself; once the test closed its database, each is refused. */
const STATEMENTS = new Set([
  'query',
  'sql',
  'exec',
  'transaction',
  'describeQuery',
  'execProtocol',
  'execProtocolRaw',
]);

async function spareOrNewPglite(template: Blob, logger: Logger | undefined): Promise<Database> {
  // A worker's first database is always a new one, so the template's shape is taken from it.
  const real = spares.pop() ?? (await startPglite(null, template));
  templateShape ??= await shapeOf(real);
  let open = true;
  // What the test holds: the client while it is open, and one that refuses every statement once
  // the test closed it, as a closed PGlite does.
  const guarded = new Proxy(real, {
    get(target, prop) {
      if (prop === 'closed') return !open || target.closed;
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (typeof prop === 'string' && STATEMENTS.has(prop))
        return (...args: unknown[]) =>
          open ? value.apply(target, args) : Promise.reject(new Error('PGlite is closed'));
      return value.bind(target);
    },
  });
  return pgliteDatabase(guarded, {
    location: ':memory:',
    ...(logger && { logger }),
    async close() {
      if (!open) return;
      open = false;
      if (spares.length < MAX_SPARES && !real.closed && (await emptied(real))) spares.push(real);
      else if (!real.closed) await real.close();
    },
  });
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

/**
 * The PostgreSQL server of a suite about PostgreSQL itself (`*.postgres.test.ts`, which vitest
 * runs only when TEST_DATABASE_URL is set): run any other way, it fails rather than skips.
 */
export function postgresServerUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('this suite runs on PostgreSQL: set TEST_DATABASE_URL (docs/testing.md)');
  return url;
}
