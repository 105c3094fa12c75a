import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_FOLDER, migrateDatabase, openPglite, type Database } from '../../server/db/client';

// Vitest's global setup: one migrated PGlite database, dumped to a tarball that every test file
// starts from. Starting PGlite from scratch runs initdb inside WebAssembly (3–4 s on the 2-core
// machine, 5–8 s when it is busy) and then every migration; loading the dump takes about 1 s.
// The tarball is named by a hash of the migrations and PGlite's version, so a new migration
// makes a new one.

/** Where the template is, for the test workers (they inherit the environment). */
export const TEMPLATE_ENV = 'MN_TEST_PGLITE_TEMPLATE';

function templatePath(): string {
  const hash = createHash('sha256');
  for (const name of fs.readdirSync(MIGRATIONS_FOLDER, { recursive: true }).map(String).sort()) {
    const full = path.join(MIGRATIONS_FOLDER, name);
    if (fs.statSync(full).isFile()) hash.update(name).update(fs.readFileSync(full));
  }
  const pglite = JSON.parse(
    fs.readFileSync(path.join(process.cwd(), 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  hash.update(pglite.version);
  return path.join(os.tmpdir(), `mn-test-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
}

export default async function setup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return; // each file makes its own PostgreSQL database
  const file = templatePath();
  if (!fs.existsSync(file)) {
    const database: Database = await openPglite(null);
    await migrateDatabase(database);
    const client = (database.db as unknown as { $client: { dumpDataDir(c: 'none'): Promise<Blob> } }).$client;
    const dump = await client.dumpDataDir('none');
    await database.close();
    const partial = `${file}.${process.pid}`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
  }
  process.env[TEMPLATE_ENV] = file;
}

/** The template as PGlite's loadDataDir wants it, or undefined outside vitest's run. */
export function pgliteTemplate(): Blob | undefined {
  const file = process.env[TEMPLATE_ENV];
  if (!file || !fs.existsSync(file)) return undefined;
  return new Blob([fs.readFileSync(file)]);
}
