import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrateDatabase, openPglite, openPostgres, queryRows, type Database } from '../server/db/client';
import { storedDimensions } from '../server/search/embedding-dimensions';
import { searchPassages } from '../server/search/search-passages';
import { LocalEmbedder } from '../server/embeddings/local-embedder';
import { parseEnv } from '../server/env';
import { seedDemo } from '../server/seed/seed-demo';
import { createServices } from '../server/services';
import { migratedPgliteFolder } from '../test/support/test-database';

// `npm run reindex` re-embeds what is not on the configured model and dimension, with progress, and
// resumes (skips what is done). Run for real as a subprocess, on a database the demo seed filled
// in this process (scripts/admin.test.ts tests the seed command).

const ROOT = path.resolve(import.meta.dirname, '..');
const serverUrl = process.env.TEST_DATABASE_URL;
let env: NodeJS.ProcessEnv;
let dataDir: string;
let dbName: string | undefined;

beforeAll(async () => {
  // A migrated folder, so the seed below does not spend its time on initdb.
  dataDir = serverUrl
    ? fs.mkdtempSync(path.join(os.tmpdir(), 'mn-reindex-'))
    : await migratedPgliteFolder('reindex');
  env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  if (serverUrl) {
    dbName = `mn_reindex_${randomBytes(5).toString('hex')}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${dbName}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${dbName}`;
    env.DATABASE_URL = url.toString();
  }
});

afterAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (dbName) {
    const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
});

/** `tsx scripts/reindex.ts`, with tsx's loader in one Node process (the `tsx` command would start a second). */
function reindex(extraEnv: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/reindex.ts'], {
    cwd: ROOT,
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const openDatabase = () => (env.DATABASE_URL ? openPostgres(env.DATABASE_URL) : openPglite(dataDir));

async function withDb<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase();
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

it('reindex moves the database to another dimension, re-embeds every passage and summary, and resumes', async () => {
  const { account_id } = await withDb(async (database) => {
    await migrateDatabase(database);
    return seedDemo(database.db, createServices(parseEnv(env)));
  });

  // Nothing is stale: a reindex does no work.
  const idle = reindex();
  expect(idle.code, idle.stderr).toBe(0);
  expect(JSON.parse(idle.stdout)).toEqual({
    model: 'local-lexical-v1',
    dimensions: 384,
    transcripts: 0,
    summaries: 0,
  });

  const moved = reindex({ EMBEDDINGS_DIMENSIONS: '128' });
  expect(moved.code, moved.stderr).toBe(0);
  expect(JSON.parse(moved.stdout)).toEqual({
    model: 'local-lexical-v1',
    dimensions: 128,
    transcripts: 12,
    summaries: 12, // every demo note has a summary
  });
  expect(moved.stderr).toContain('Moving the database from 384 to 128 dimensions');
  expect(moved.stderr).toMatch(/transcripts \[#+\] 12\/12/);

  await withDb(async ({ db }) => {
    expect(await storedDimensions(db)).toBe(128);
    const [row] = await queryRows<{ n: number; dims: number }>(
      db,
      sql`select count(*)::int as n, max(vector_dims(embedding)) as dims from passages`,
    );
    expect(Number(row!.dims)).toBe(128);
    // Searching with the new dimension works; the HNSW index is back.
    const hits = await searchPassages(
      db,
      { embedder: new LocalEmbedder({ dimensions: 128 }), exactSearchMaxRows: 20_000 },
      account_id,
      'kangaroo rollout',
      3,
    );
    expect(hits[0]!.snippet).toMatch(/kangaroo rollout/i);
    const [index] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from pg_indexes where indexname = 'passages_embedding_hnsw'`,
    );
    expect(Number(index!.n)).toBe(1);
    // As if a run had stopped half-way: two meetings' passages still on an old model.
    await db.execute(
      sql`update passages set model = 'old-model' where meeting_id in (select id from meetings order by created_at limit 2)`,
    );
  });

  const resumed = reindex({ EMBEDDINGS_DIMENSIONS: '128' });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(JSON.parse(resumed.stdout)).toEqual({
    model: 'local-lexical-v1',
    dimensions: 128,
    transcripts: 2,
    summaries: 0,
  });
}, 300_000);
