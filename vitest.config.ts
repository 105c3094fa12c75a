import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// Unit tests live beside the code (server/**/*.test.ts) and never open a server database: with
// TEST_DATABASE_URL (the PostgreSQL half of CI) only the suites that do run again, test/ and the
// scripts' tests, so CI does not check the same pure functions twice.
const UNIT_TESTS = 'server/**/*.test.ts';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: [
      ...(process.env.TEST_DATABASE_URL ? [] : [UNIT_TESTS]),
      'test/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    // One migrated PGlite database that every test file starts from (test/support/pglite-template.ts).
    globalSetup: ['test/support/pglite-template.ts'],
    // Two files at a time even on a 2-core machine (vitest's default there is one): most of a
    // file's time is PGlite's single thread or waiting on PostgreSQL
    // (docs/performance.md#vitests-maxworkers).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Scripts run as subprocesses (seed, reindex) inherit this: the fast word-matching embedder
    // unless a test asks for another.
    env: { LOG_LEVEL: 'silent', EMBEDDINGS_PROVIDER: 'local' },
  },
});
