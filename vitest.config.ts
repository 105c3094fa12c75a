import os from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

// Unit tests live beside the code (server/**/*.test.ts) and never open a server database: with
// TEST_DATABASE_URL (the PostgreSQL half of CI) only the suites that do run again, test/ and the
// scripts' tests, so CI does not check the same pure functions twice.
const UNIT_TESTS = 'server/**/*.test.ts';

// Suites about what the HTTP layer answers, whatever database is behind it, also run on PGlite
// only: the tables of bad and hostile input per resource, the random requests and messages, the
// body limits, and the published documents (OpenAPI, AsyncAPI) and the form registry. Hostile
// values still reach PostgreSQL through its own driver there: every-procedure.property.test.ts
// attacks every field of every procedure on both databases, and the contract check runs on every
// test request of every suite.
const HTTP_ONLY_TESTS = [
  'test/security/api-fuzz.test.ts',
  'test/security/ui-auth.property.test.ts',
  'test/security/body-limits.test.ts',
  'test/api/hostile-requests.test.ts',
  'test/notes/validation.test.ts',
  'test/notes/notes-hostile-input.test.ts',
  'test/webhooks/webhooks-hostile-input.test.ts',
  'test/recorder/recorder-hostile-input.test.ts',
  'test/mcp/mcp-hostile.property.test.ts',
  'test/api/openapi*.test.ts',
  'test/recorder/recorder-openapi.test.ts',
  'test/events/asyncapi.test.ts',
  'test/architecture/*.test.ts',
  'test/settings-app/friendly-error.test.ts',
  'scripts/find-test-tools.test.ts',
];

// Suites about one database itself run on that one only, by name: `*.postgres.test.ts` (a race
// between connections, PgBouncer, migration locks) with TEST_DATABASE_URL, `*.pglite.test.ts`
// (the PGlite template) without. Neither half reports a test skipped.
const OTHER_DATABASE_TESTS = process.env.TEST_DATABASE_URL ? '**/*.pglite.test.ts' : '**/*.postgres.test.ts';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: [
      ...(process.env.TEST_DATABASE_URL ? [] : [UNIT_TESTS]),
      'test/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    exclude: [
      ...configDefaults.exclude,
      OTHER_DATABASE_TESTS,
      ...(process.env.TEST_DATABASE_URL ? HTTP_ONLY_TESTS : []),
    ],
    // One migrated PGlite database that every test file starts from (test/support/pglite-template.ts).
    globalSetup: ['test/support/pglite-template.ts'],
    // Two files at a time even on a 2-core machine (vitest's default there is one): most of a
    // file's time is PGlite's single thread or waiting on PostgreSQL
    // (docs/performance.md#vitests-maxworkers).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // Each worker keeps its modules from one file to the next instead of importing the server
    // afresh for every file (and compiling PGlite's WebAssembly and loading the model again): the
    // suite's files build their apps from injected parts, restore their spies and stubs, and close
    // what they open (docs/performance.md#test-files-share-their-workers-modules).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Scripts run as subprocesses (seed, reindex) inherit this: the fast word-matching embedder
    // unless a test asks for another.
    env: { LOG_LEVEL: 'silent', EMBEDDINGS_PROVIDER: 'local' },
  },
});
