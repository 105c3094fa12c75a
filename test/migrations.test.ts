import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MIGRATIONS_FOLDER,
  type MigrationRun,
  migrateDatabase,
  openPostgres,
  queryRows,
  type Database,
} from '../server/db/client';

// Migrations apply once however many processes start at once, under a lock that lasts one
// transaction, so that it holds through a transaction-mode pooler as well.

const serverUrl = process.env.TEST_DATABASE_URL;

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
          await tx`select pg_advisory_xact_lock(727465001)`;
          runs = Promise.all(instances.map((instance) => migrateDatabase(instance)));
          await expect
            .poll(
              async () =>
                (
                  await observer`select count(*)::int as n from pg_locks
                                 where locktype = 'advisory' and objid = 727465001 and not granted`
                )[0]?.n,
              { timeout: 30_000 },
            )
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
        // Nothing is left holding the lock once the transactions ended.
        expect(
          (await observer`select count(*)::int as n from pg_locks where locktype = 'advisory'`)[0]?.n,
        ).toBe(0);
      } finally {
        await holder.end();
        await observer.end();
      }
    },
  );
});
