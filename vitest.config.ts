import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['server/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    // One migrated PGlite database that every test file starts from (test/support/pglite-template.ts).
    globalSetup: ['test/support/pglite-template.ts'],
    // Two files at a time even on a 2-core machine (vitest's default there is one): most of a
    // file's time is PGlite's single thread or waiting on PostgreSQL, so the PGlite half of the
    // suite took 6.3 min instead of 9.0 on the idle 2-core machine.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Scripts run as subprocesses (seed, reindex) inherit this: the fast word-matching embedder
    // unless a test asks for another.
    env: { LOG_LEVEL: 'silent', EMBEDDINGS_PROVIDER: 'local' },
  },
});
