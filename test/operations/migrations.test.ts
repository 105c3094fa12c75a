import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MIGRATION_LOCK,
  MIGRATIONS_FOLDER,
  type MigrationRun,
  migrateDatabase,
  openPostgres,
  queryRows,
  type Database,
} from '../../server/db/client';
import {
  ADOPT_DIMENSIONS_LOCK,
  adoptDimensionsIfEmpty,
  storedDimensions,
} from '../../server/search/embedding-dimensions';
import { runScript } from '../support/run-command';

// Migrations apply once however many processes start at once (under a lock that lasts one
// transaction, so it holds through a transaction-mode pooler as well), can be a release step
// (`npm run db:migrate`) that instances started with MIGRATE_ON_START=false only check, and go
// through DATABASE_URL_UNPOOLED when it is set. The pooler itself: e2e/pooler.api.spec.ts.

const serverUrl = process.env.TEST_DATABASE_URL;
const SCRIPT_TIMEOUT = 120_000;

const TAGS: string[] = (
  JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  }
).entries.map((e) => e.tag);

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A new, empty database on the test server: its URL. */
async function emptyPostgresDatabase(): Promise<string> {
  const name = `mn_migrate_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const dropper = postgres(serverUrl!, { max: 1, onnotice: () => {} });
    await dropper.unsafe(`drop database if exists ${name} with (force)`);
    await dropper.end();
  });
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Where this file's scripts find an empty database: a PostgreSQL URL, or an embedded data folder. */
async function emptyDatabaseEnv(): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  delete env.DATABASE_URL_UNPOOLED;
  delete env.MIGRATE_ON_START;
  if (serverUrl) return { ...env, DATABASE_URL: await emptyPostgresDatabase() };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-migrate-test-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  return { ...env, DATA_DIR: dataDir };
}

/**
 * How many advisory locks this database has (other suites share the cluster, and their
 * databases' locks are theirs): of one lock only, and only those still waiting, if asked.
 */
async function advisoryLocks(
  observer: postgres.Sql,
  only: { lock?: number; waiting?: boolean } = {},
): Promise<number | undefined> {
  const [row] = await observer<{ n: number }[]>`select count(*)::int as n from pg_locks
    where locktype = 'advisory'
      and database = (select oid from pg_database where datname = current_database())
      ${only.lock === undefined ? observer`` : observer`and objid = ${only.lock}`}
      ${only.waiting ? observer`and not granted` : observer``}`;
  return row?.n;
}

async function appliedMigrations(db: Database['db']): Promise<{ hash: string; created_at: string }[]> {
  return queryRows(db, sql`select hash, created_at::text from drizzle.__drizzle_migrations order by id`);
}

describe('migrations', () => {
  it.runIf(serverUrl)(
    'processes migrating a fresh database at once take turns on the lock: one applies every migration, the others wait and find nothing to do',
    async () => {
      const url = await emptyPostgresDatabase();
      const instances = await Promise.all([1, 2, 3].map(() => openPostgres(url, { max: 2 })));
      cleanups.push(async () => {
        for (const instance of instances) await instance.close();
      });
      // The lock is held here first, so that all three are seen waiting on it before any runs.
      const holder = postgres(url, { max: 1, onnotice: () => {} });
      const observer = postgres(url, { max: 1, onnotice: () => {} });
      let runs: Promise<MigrationRun[]> | undefined;
      try {
        await holder.begin(async (tx) => {
          await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
          runs = Promise.all(instances.map((instance) => migrateDatabase(instance)));
          await expect
            .poll(async () => advisoryLocks(observer, { lock: MIGRATION_LOCK, waiting: true }), {
              timeout: 30_000,
            })
            .toBe(3);
        });
        const results = await runs!;
        expect(results.every((r) => r.waited)).toBe(true);
        expect(results.map((r) => r.applied.length).sort()).toEqual([0, 0, TAGS.length]);
        expect(results.find((r) => r.applied.length > 0)?.applied).toEqual(TAGS);
        const rows = await appliedMigrations(instances[0]!.db);
        expect(rows).toHaveLength(TAGS.length);
        expect(new Set(rows.map((r) => r.hash)).size).toBe(TAGS.length);
        expect(await migrateDatabase(instances[0]!)).toEqual({ applied: [], waited: false });
        // Nothing is left holding a lock once the transactions ended.
        expect(await advisoryLocks(observer)).toBe(0);
      } finally {
        await holder.end();
        await observer.end();
      }
    },
  );

  it.runIf(serverUrl)(
    'instances starting at once on a fresh database move its vector columns to the configured dimension in turn: one moves them, the others find them moved',
    async () => {
      const url = await emptyPostgresDatabase();
      const instances = await Promise.all([1, 2, 3].map(() => openPostgres(url, { max: 2 })));
      cleanups.push(async () => {
        for (const instance of instances) await instance.close();
      });
      await migrateDatabase(instances[0]!);
      expect(await storedDimensions(instances[0]!.db)).toBe(384);
      const holder = postgres(url, { max: 1, onnotice: () => {} });
      const observer = postgres(url, { max: 1, onnotice: () => {} });
      let adopted: Promise<boolean[]> | undefined;
      try {
        await holder.begin(async (tx) => {
          await tx`select pg_advisory_xact_lock(${ADOPT_DIMENSIONS_LOCK})`;
          adopted = Promise.all(instances.map((instance) => adoptDimensionsIfEmpty(instance.db, 768)));
          await expect
            .poll(async () => advisoryLocks(observer, { lock: ADOPT_DIMENSIONS_LOCK, waiting: true }), {
              timeout: 30_000,
            })
            .toBe(3);
        });
        expect(await adopted!).toEqual([true, true, true]);
        expect(await storedDimensions(instances[1]!.db)).toBe(768);
        const indexes = await observer<{ indexname: string }[]>`select indexname from pg_indexes
          where indexname in ('passages_embedding_hnsw', 'meetings_summary_embedding_hnsw') order by indexname`;
        expect(indexes.map((r) => r.indexname)).toEqual([
          'meetings_summary_embedding_hnsw',
          'passages_embedding_hnsw',
        ]);
      } finally {
        await holder.end();
        await observer.end();
      }
    },
  );

  it(
    'with MIGRATE_ON_START=false nothing migrates but `npm run db:migrate`: the CLI refuses a database that lacks migrations, naming the command, and works once it ran',
    async () => {
      const env = { ...(await emptyDatabaseEnv()), MIGRATE_ON_START: 'false' };
      const refused = await runScript(
        'scripts/admin.ts',
        ['account:create', '--email', 'ops@example.com'],
        env,
      );
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(
        `The database lacks ${TAGS.length} migrations (${TAGS.join(', ')}) and MIGRATE_ON_START=false: run \`npm run db:migrate\``,
      );
      expect(refused.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);

      const migrated = await runScript('scripts/migrate.ts', [], env);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stdout).toContain(`: applied ${TAGS.join(', ')}`);

      const created = await runScript(
        'scripts/admin.ts',
        ['account:create', '--email', 'ops@example.com'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ email: 'ops@example.com' });
    },
    SCRIPT_TIMEOUT,
  );

  it.runIf(serverUrl)(
    'with DATABASE_URL_UNPOOLED, migrations go through that URL, on a connection of their own',
    async () => {
      // Two databases tell the URLs apart: the one DATABASE_URL_UNPOOLED names is migrated.
      const pooled = await emptyPostgresDatabase();
      const direct = await emptyPostgresDatabase();
      const env = { ...(await emptyDatabaseEnv()), DATABASE_URL: pooled, DATABASE_URL_UNPOOLED: direct };
      const run = await runScript('scripts/migrate.ts', [], env);
      expect(run.code, run.stderr).toBe(0);
      const check = async (url: string) => {
        const client = postgres(url, { max: 1, onnotice: () => {} });
        try {
          const [row] =
            await client`select to_regclass('drizzle.__drizzle_migrations') is not null as present`;
          return row?.present
            ? (await client`select count(*)::int as n from drizzle.__drizzle_migrations`)[0]?.n
            : 0;
        } finally {
          await client.end();
        }
      };
      expect(await check(direct)).toBe(TAGS.length);
      expect(await check(pooled)).toBe(0);
    },
    SCRIPT_TIMEOUT,
  );
});
