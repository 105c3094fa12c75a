import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MIGRATION_LOCK,
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
import { emptyDatabases, MIGRATION_TAGS } from '../support/empty-databases';
import { runScript } from '../support/run-command';
import { postgresServerUrl } from '../support/test-database';

// On PostgreSQL, migrations apply once however many processes start at once (under a lock that
// lasts one transaction, so it holds through a transaction-mode pooler as well), and go through
// DATABASE_URL_UNPOOLED when it is set. The pooler itself: e2e/pooler.api.spec.ts. What both
// databases do: migrations.test.ts.

postgresServerUrl();
const SCRIPT_TIMEOUT = 120_000;
const databases = emptyDatabases();
afterAll(() => databases.dropAll());

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

/**
 * Three instances on a fresh database (`before` run on the first), each running `work` while the
 * test holds `lock`, so that all three are seen waiting on it before any runs: their results, the
 * instances, and a connection of the test's own to look at the database with.
 */
async function threeWaitingOn<T>(
  lock: number,
  work: (instance: Database) => Promise<T>,
  before?: (first: Database) => Promise<void>,
): Promise<{ results: T[]; instances: Database[]; observer: postgres.Sql }> {
  const url = await databases.onServer();
  const instances = await Promise.all([1, 2, 3].map(() => openPostgres(url, { max: 2 })));
  const observer = postgres(url, { max: 1, onnotice: () => {} });
  databases.onDrop(async () => {
    for (const instance of instances) await instance.close();
    await observer.end();
  });
  await before?.(instances[0]!);
  const holder = postgres(url, { max: 1, onnotice: () => {} });
  let runs: Promise<T[]> | undefined;
  try {
    await holder.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${lock})`;
      runs = Promise.all(instances.map(work));
      await expect.poll(() => advisoryLocks(observer, { lock, waiting: true }), { timeout: 30_000 }).toBe(3);
    });
  } finally {
    await holder.end();
  }
  return { results: await runs!, instances, observer };
}

describe('migrations on PostgreSQL', () => {
  it('processes migrating a fresh database at once take turns on the lock: one applies every migration, the others wait and find nothing to do', async () => {
    const { results, instances, observer } = await threeWaitingOn(MIGRATION_LOCK, (instance) =>
      migrateDatabase(instance),
    );
    expect(results.every((r) => r.waited)).toBe(true);
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, 0, MIGRATION_TAGS.length]);
    expect(results.find((r) => r.applied.length > 0)?.applied).toEqual(MIGRATION_TAGS);
    const rows = await appliedMigrations(instances[0]!.db);
    expect(rows).toHaveLength(MIGRATION_TAGS.length);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(MIGRATION_TAGS.length);
    expect(await migrateDatabase(instances[0]!)).toEqual({ applied: [], waited: false });
    // Nothing is left holding a lock once the transactions ended.
    expect(await advisoryLocks(observer)).toBe(0);
  });

  it('instances starting at once on a fresh database move its vector columns to the configured dimension in turn: one moves them, the others find them moved', async () => {
    const { results, instances, observer } = await threeWaitingOn(
      ADOPT_DIMENSIONS_LOCK,
      (instance) => adoptDimensionsIfEmpty(instance.db, 768),
      async (first) => {
        await migrateDatabase(first);
        expect(await storedDimensions(first.db)).toBe(384);
      },
    );
    expect(results).toEqual([true, true, true]);
    expect(await storedDimensions(instances[1]!.db)).toBe(768);
    const indexes = await observer<{ indexname: string }[]>`select indexname from pg_indexes
        where indexname in ('passages_embedding_hnsw', 'meetings_summary_embedding_hnsw') order by indexname`;
    expect(indexes.map((r) => r.indexname)).toEqual([
      'meetings_summary_embedding_hnsw',
      'passages_embedding_hnsw',
    ]);
  });

  it(
    'with DATABASE_URL_UNPOOLED, migrations go through that URL, on a connection of their own',
    async () => {
      // Two databases tell the URLs apart: the one DATABASE_URL_UNPOOLED names is migrated.
      const pooled = await databases.onServer();
      const direct = await databases.onServer();
      const env = { ...(await databases.scriptEnv()), DATABASE_URL: pooled, DATABASE_URL_UNPOOLED: direct };
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
      expect(await check(direct)).toBe(MIGRATION_TAGS.length);
      expect(await check(pooled)).toBe(0);
    },
    SCRIPT_TIMEOUT,
  );
});
