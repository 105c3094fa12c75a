import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { MIGRATIONS_FOLDER } from '../../server/db/client';
import { postgresServerUrl, testDatabaseKind } from './test-database';

/** The migrations' names, in the order they apply. */
export const MIGRATION_TAGS: string[] = (
  JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  }
).entries.map((e) => e.tag);

/**
 * New, empty databases for tests of migrations and of start-up, gone again after `dropAll()`:
 * on TEST_DATABASE_URL's server when it is set, else embedded data folders.
 */
export function emptyDatabases() {
  const cleanups: (() => Promise<void>)[] = [];

  /** A new, empty database on the test server: its URL. */
  async function onServer(): Promise<string> {
    const serverUrl = postgresServerUrl();
    const name = `mn_migrate_${randomBytes(6).toString('hex')}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    cleanups.push(async () => {
      const dropper = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
      await dropper.end();
    });
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }

  /** The environment of a script run on an empty database: a PostgreSQL URL, or a data folder. */
  async function scriptEnv(): Promise<NodeJS.ProcessEnv> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.DATABASE_URL;
    delete env.DATABASE_URL_UNPOOLED;
    delete env.MIGRATE_ON_START;
    if (testDatabaseKind === 'postgres') return { ...env, DATABASE_URL: await onServer() };
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-migrate-test-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    return { ...env, DATA_DIR: dataDir };
  }

  return {
    onServer,
    scriptEnv,
    /** Drops every database made and removes every folder. */
    async dropAll() {
      for (const cleanup of cleanups.reverse()) await cleanup();
      cleanups.length = 0;
    },
    /** Something else to undo first (a connection to one of them). */
    onDrop(cleanup: () => Promise<void>) {
      cleanups.push(cleanup);
    },
  };
}
