// npm run reindex: re-embeds every passage and summary that is not on the configured model and
// dimension (docs/rules.md#embeddings), with a progress bar on stderr. The new vectors are built
// beside the ones searches use and swapped in at the end, so a server still running keeps answering
// from the old ones; interrupted, it resumes where it stopped (see
// server/search/reindex-vectors.ts).
import { DatabaseInUseError, PendingMigrationsError } from '../server/db/client';
import { openConfiguredDatabase } from '../server/db';
import { EnvError, getEnv } from '../server/env';
import { storedDimensions } from '../server/search/embedding-dimensions';
import { reindexVectors } from '../server/search/reindex-vectors';
import { createServices } from '../server/services';

function progress(label: string, done: number, total: number) {
  const width = 30;
  const filled = total ? Math.round((done / total) * width) : width;
  process.stderr.write(
    `\r${label.padEnd(11)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`,
  );
}

async function main() {
  const env = getEnv();
  const { embedder } = createServices(env);
  const database = await openConfiguredDatabase();
  const { db } = database;
  try {
    const stored = await storedDimensions(db);
    if (stored !== embedder.dimensions) {
      process.stderr.write(
        `Moving the database from ${stored} to ${embedder.dimensions} dimensions (${embedder.model})…\n`,
      );
    }
    const result = await reindexVectors(db, embedder, progress);
    console.log(JSON.stringify(result));
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  console.error(
    err instanceof EnvError || err instanceof DatabaseInUseError || err instanceof PendingMigrationsError
      ? err.message
      : err,
  );
  process.exit(1);
});
