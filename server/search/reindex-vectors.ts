import { sql } from 'drizzle-orm';
import { queryRows, type Db, type Queryable } from '../db/client';
import type { EmbeddingProvider } from '../embeddings/provider';
import type { Summary } from '../notes/summary';
import { embedEach, embedOne } from './embed-checked';
import {
  adoptDimensionsIfEmpty,
  ensureVectorIndexes,
  HNSW_BUILD,
  storedDimensions,
} from './embedding-dimensions';
import { indexStoredTranscript, indexSummary, segmentVectorsOf, summarySearchText } from './index-meeting';
import { toVectorLiteral } from './vector-search';

// `npm run reindex` (docs/rules.md#embeddings). Vectors are re-embedded into shadow columns beside the ones
// searches use (passages.embedding_next…, meetings.summary_embedding_next…), and the columns are
// swapped in one short transaction at the end: a server still running on the old model keeps
// answering from the old vectors meanwhile, and an interrupted run leaves a searchable database
// and resumes (rows whose shadow is already on the target model are skipped). A database with
// no vectors at all has nothing to keep and is moved in place.

/** Called after each meeting or summary; the run waits for it (and stops if it throws). */
export type ReindexProgress = (
  label: 'transcripts' | 'summaries',
  done: number,
  total: number,
) => void | Promise<void>;

export interface ReindexResult {
  model: string;
  dimensions: number;
  /** Meetings whose passages were embedded again. */
  transcripts: number;
  summaries: number;
}

async function columnDims(db: Queryable, table: string, column: string): Promise<number | null> {
  const [row] = await queryRows<{ dims: number }>(
    db,
    sql`select atttypmod as dims from pg_attribute where attrelid = ${table}::regclass and attname = ${column} and not attisdropped`,
  );
  return row ? Number(row.dims) : null;
}

/** Re-embeds whatever is not on the embedder's model and dimension; see the top of this file. */
export async function reindexVectors(
  db: Db,
  embedder: EmbeddingProvider,
  onProgress: ReindexProgress = () => {},
): Promise<ReindexResult> {
  const result: ReindexResult = {
    model: embedder.model,
    dimensions: embedder.dimensions,
    transcripts: 0,
    summaries: 0,
  };
  if (
    (await storedDimensions(db)) !== embedder.dimensions &&
    (await adoptDimensionsIfEmpty(db, embedder.dimensions))
  ) {
    await dropShadow(db);
  }
  if (
    (await storedDimensions(db)) === embedder.dimensions &&
    !(await hasShadow(db)) &&
    !(await hasStaleInPlace(db, embedder.model))
  ) {
    // Possibly transcripts never embedded (a database moved while empty, or a crashed job).
    return { ...result, ...(await indexMissingInPlace(db, embedder, onProgress)) };
  }

  await prepareShadow(db, embedder);
  for (;;) {
    const done = await fillShadow(db, embedder, onProgress);
    result.transcripts += done.transcripts;
    result.summaries += done.summaries;
    if (done.transcripts === 0 && done.summaries === 0) break; // caught up with what a running server wrote meanwhile
  }
  await db.execute(
    sql.raw(
      `create index if not exists passages_embedding_next_hnsw on passages using hnsw (embedding_next vector_cosine_ops) ${HNSW_BUILD}`,
    ),
  );
  await db.execute(
    sql.raw(
      `create index if not exists meetings_summary_embedding_next_hnsw on meetings using hnsw (summary_embedding_next vector_cosine_ops) ${HNSW_BUILD}`,
    ),
  );
  await db.transaction(async (tx) => {
    // Writers wait for the swap (a few statements); readers of the old columns finish first.
    await tx.execute(sql.raw('lock table meetings, passages in share row exclusive mode'));
    const late = await fillShadow(tx, embedder, () => {});
    result.transcripts += late.transcripts;
    result.summaries += late.summaries;
    for (const statement of [
      'alter table passages drop column embedding',
      'alter table passages drop column segment_embeddings',
      'alter table passages drop column model',
      'alter table passages rename column embedding_next to embedding',
      'alter table passages rename column segment_embeddings_next to segment_embeddings',
      'alter table passages rename column model_next to model',
      'alter table passages alter column model set not null',
      'alter index passages_embedding_next_hnsw rename to passages_embedding_hnsw',
      'alter table meetings drop column summary_embedding',
      'alter table meetings drop column summary_embedding_model',
      'alter table meetings rename column summary_embedding_next to summary_embedding',
      'alter table meetings rename column summary_embedding_model_next to summary_embedding_model',
      'alter index meetings_summary_embedding_next_hnsw rename to meetings_summary_embedding_hnsw',
    ]) {
      await tx.execute(sql.raw(statement));
    }
  });
  return result;
}

async function hasShadow(db: Queryable): Promise<boolean> {
  return (await columnDims(db, 'passages', 'embedding_next')) !== null;
}

async function dropShadow(db: Queryable): Promise<void> {
  await db.execute(
    sql.raw(
      'alter table passages drop column if exists embedding_next, drop column if exists segment_embeddings_next, drop column if exists model_next',
    ),
  );
  await db.execute(
    sql.raw(
      'alter table meetings drop column if exists summary_embedding_next, drop column if exists summary_embedding_model_next',
    ),
  );
}

async function hasStaleInPlace(db: Queryable, model: string): Promise<boolean> {
  const [row] = await queryRows<{ stale: boolean }>(
    db,
    sql`select exists (select 1 from passages where model <> ${model} or embedding is null or segment_embeddings is null)
            or exists (select 1 from meetings where summary is not null and summary_embedding_model is distinct from ${model}) as stale`,
  );
  return !!row?.stale;
}

/** Shadow columns of the target dimension (a shadow of another dimension, from an abandoned run, is dropped). */
async function prepareShadow(db: Queryable, embedder: EmbeddingProvider): Promise<void> {
  const dims = embedder.dimensions;
  const existing = await columnDims(db, 'passages', 'embedding_next');
  const summaryExisting = await columnDims(db, 'meetings', 'summary_embedding_next');
  if ((existing !== null && existing !== dims) || (summaryExisting !== null && summaryExisting !== dims))
    await dropShadow(db);
  await db.execute(
    sql.raw(`alter table passages add column if not exists embedding_next vector(${dims}),
             add column if not exists segment_embeddings_next bytea, add column if not exists model_next text`),
  );
  await db.execute(
    sql.raw(`alter table meetings add column if not exists summary_embedding_next vector(${dims}),
             add column if not exists summary_embedding_model_next text`),
  );
  if ((await storedDimensions(db)) === dims) {
    // Vectors already on the target model and dimension are kept as they are.
    await db.execute(sql`update passages set embedding_next = embedding, segment_embeddings_next = segment_embeddings, model_next = model
                         where model = ${embedder.model} and embedding is not null and segment_embeddings is not null
                           and model_next is distinct from ${embedder.model}`);
    await db.execute(sql`update meetings set summary_embedding_next = summary_embedding, summary_embedding_model_next = summary_embedding_model
                         where summary_embedding_model = ${embedder.model} and summary_embedding is not null
                           and summary_embedding_model_next is distinct from ${embedder.model}`);
  }
}

/** One pass over what is not yet in the shadow columns, a meeting at a time. */
async function fillShadow(db: Queryable, embedder: EmbeddingProvider, onProgress: ReindexProgress) {
  const stale = await queryRows<{ meeting_id: string }>(
    db,
    sql`select p.meeting_id from passages p join meetings m on m.id = p.meeting_id
        where p.model_next is distinct from ${embedder.model}
        group by p.meeting_id, m.created_at order by m.created_at`,
  );
  for (const [i, { meeting_id }] of stale.entries()) {
    const rows = await queryRows<{ id: string; text: string; first_sequence: number; last_sequence: number }>(
      db,
      sql`select id, text, first_sequence, last_sequence from passages where meeting_id = ${meeting_id} and model_next is distinct from ${embedder.model}`,
    );
    const segments = await queryRows<{ sequence: number; content: string }>(
      db,
      sql`select sequence, content from transcript_segments where meeting_id = ${meeting_id} order by sequence`,
    );
    const used = segments.filter((s) =>
      rows.some((r) => s.sequence >= r.first_sequence && s.sequence <= r.last_sequence),
    );
    const embedded = await embedEach(embedder, rows, (r) => r.text);
    const segmentVectors = await embedEach(embedder, used, (s) => s.content);
    const bySequence = new Map(segmentVectors.map(([s, vector]) => [s.sequence, vector]));
    for (const [r, vector] of embedded) {
      const draft = { firstSequence: r.first_sequence, lastSequence: r.last_sequence };
      await db.execute(sql`update passages set embedding_next = ${toVectorLiteral(vector)}::vector,
                             segment_embeddings_next = ${segmentVectorsOf(draft, bySequence)}::bytea, model_next = ${embedder.model}
                           where id = ${r.id}`);
    }
    await onProgress('transcripts', i + 1, stale.length);
  }
  const summaries = await queryRows<{ id: string; summary: Summary; summary_text: string | null }>(
    db,
    sql`select id, summary, summary_text from meetings
        where summary is not null and summary_embedding_model_next is distinct from ${embedder.model}
        order by created_at`,
  );
  for (const [i, m] of summaries.entries()) {
    const vector = await embedOne(embedder, summarySearchText(m.summary, m.summary_text));
    await db.execute(sql`update meetings set summary_embedding_next = ${toVectorLiteral(vector)}::vector, summary_embedding_model_next = ${embedder.model}
                         where id = ${m.id}`);
    await onProgress('summaries', i + 1, summaries.length);
  }
  return { transcripts: stale.length, summaries: summaries.length };
}

/** Same model and dimension throughout: only what was never embedded (e.g. a database moved while empty). */
async function indexMissingInPlace(db: Db, embedder: EmbeddingProvider, onProgress: ReindexProgress) {
  const missing = await queryRows<{ id: string; account_id: string }>(
    db,
    sql`select m.id, m.account_id from meetings m
        where m.transcribed_at is not null and not exists (select 1 from passages p where p.meeting_id = m.id)
          and exists (select 1 from transcript_segments s where s.meeting_id = m.id)
        order by m.created_at`,
  );
  let transcripts = 0;
  for (const [i, m] of missing.entries()) {
    const n = await indexStoredTranscript(db, embedder, { id: m.id, accountId: m.account_id });
    if (n > 0) transcripts++;
    await onProgress('transcripts', i + 1, missing.length);
  }
  const summaries = await queryRows<{ id: string; summary: Summary; summary_text: string | null }>(
    db,
    sql`select id, summary, summary_text from meetings where summary is not null and summary_embedding is null order by created_at`,
  );
  for (const [i, m] of summaries.entries()) {
    await indexSummary(db, embedder, m.id, m.summary, m.summary_text);
    await onProgress('summaries', i + 1, summaries.length);
  }
  await ensureVectorIndexes(db);
  return { transcripts, summaries: summaries.length };
}
