// npm run reindex: re-embeds every passage and summary that is not on the configured model and
// dimension (D19), with a progress bar on stderr. Interrupted, it resumes where it stopped: what
// is already on the current model is skipped.
import { sql } from 'drizzle-orm';
import { DatabaseInUseError, queryRows } from '../server/db/client';
import { openConfiguredDatabase } from '../server/db';
import { EnvError, getEnv } from '../server/env';
import { changeDimensions, ensureVectorIndexes, storedDimensions } from '../server/search/embedding-dimensions';
import { indexStoredTranscript, indexSummary } from '../server/search/index-meeting';
import type { Summary } from '../server/notes/summary';
import { createServices } from '../server/services';

function progress(label: string, done: number, total: number) {
  const width = 30;
  const filled = total ? Math.round((done / total) * width) : width;
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`);
}

async function main() {
  const env = getEnv();
  const { embedder } = createServices(env);
  const database = await openConfiguredDatabase();
  const { db } = database;
  try {
    const stored = await storedDimensions(db);
    if (stored !== embedder.dimensions) {
      process.stderr.write(`Moving the database from ${stored} to ${embedder.dimensions} dimensions…\n`);
      await changeDimensions(db, embedder.dimensions);
    }

    // Meetings whose passages are missing or not on this model (any passage of another model,
    // or without a vector, means the whole transcript is done again).
    const stale = await queryRows<{ id: string; account_id: string }>(
      db,
      sql`select m.id, m.account_id from meetings m
          where m.transcribed_at is not null
            and (not exists (select 1 from passages p where p.meeting_id = m.id)
                 or exists (select 1 from passages p where p.meeting_id = m.id
                            and (p.model <> ${embedder.model} or p.embedding is null)))
          order by m.created_at`,
    );
    for (const [i, m] of stale.entries()) {
      await db.transaction((tx) => indexStoredTranscript(tx, embedder, { id: m.id, accountId: m.account_id }));
      progress('transcripts', i + 1, stale.length);
    }
    const summaries = await queryRows<{ id: string; summary: Summary; summary_text: string | null }>(
      db,
      sql`select id, summary, summary_text from meetings
          where summary is not null and (summary_embedding is null or summary_embedding_model is distinct from ${embedder.model})
          order by created_at`,
    );
    for (const [i, m] of summaries.entries()) {
      await indexSummary(db, embedder, m.id, m.summary, m.summary_text);
      progress('summaries  ', i + 1, summaries.length);
    }
    await ensureVectorIndexes(db);
    console.log(JSON.stringify({ model: embedder.model, dimensions: embedder.dimensions, transcripts: stale.length, summaries: summaries.length }));
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof EnvError || err instanceof DatabaseInUseError ? err.message : err);
  process.exit(1);
});
