import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['server/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    // One migrated PGlite database that every test file starts from (test/pglite-template.ts).
    globalSetup: ['test/pglite-template.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Scripts run as subprocesses (seed, reindex) inherit this: the fast word-matching embedder
    // unless a test asks for another.
    env: { LOG_LEVEL: 'silent', EMBEDDINGS_PROVIDER: 'local' },
  },
});
