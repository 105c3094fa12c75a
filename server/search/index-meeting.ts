import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import type { Db, Queryable } from '../db/client';
import { hasPgCode, PG_FOREIGN_KEY_VIOLATION } from '../db/pg-error';
import { meetings, passages, transcriptSegments } from '../db/schema';
import type { EmbeddingProvider } from '../embeddings/provider';
import type { Segment } from '../notes/note-record';
import type { Summary } from '../notes/summary';
import { embedEach, embedOne } from './embed-checked';
import { makePassages, type PassageDraft } from './make-passages';
import { searchVectorOf, textSearchConfig } from './text-search';

// Each row carries its segments' vectors too (a few thousand numbers): batches stay moderate.
const INSERT_BATCH = 100;
/**
 * The background job's passages per statement. With PGlite the database runs on the server's
 * thread, one statement at a time, and most of a stored passage's time is its HNSW index entry:
 * a search waits for the statement in progress, so a few passages' worth rather than a whole
 * meeting's (docs/performance.md#passages-stored-a-few-at-a-time).
 */
const STORE_BATCH = 4;

/** A passage's segments' vectors, one after another, as little-endian float32 (passages.segment_embeddings). */
export function segmentVectorsOf(
  draft: { firstSequence: number; lastSequence: number },
  bySequence: Map<number, number[]>,
): Uint8Array {
  const out: number[] = [];
  for (let seq = draft.firstSequence; seq <= draft.lastSequence; seq++) {
    const v = bySequence.get(seq);
    if (v) out.push(...v);
  }
  const floats = Float32Array.from(out);
  const bytes = new Uint8Array(floats.length * 4);
  const view = new DataView(bytes.buffer);
  for (const [i, x] of floats.entries()) view.setFloat32(i * 4, x, true);
  return bytes;
}

/** The inverse of segmentVectorsOf, whatever the driver hands back (Buffer, Uint8Array). */
export function readSegmentVectors(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(Math.floor(bytes.byteLength / 4));
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/**
 * Embeds a transcript's passages and, once each, the segments they span: a hit's start_time is
 * the segment that best matches the query, and with the segments' vectors stored here a search
 * picks it without running the model again (running it in the request cost most of a second:
 * docs/performance.md#stored-segment-vectors).
 */
export async function embedTranscript(
  embedder: EmbeddingProvider,
  segments: Pick<Segment, 'sequence' | 'content'>[],
  opts: { signal?: AbortSignal } = {},
) {
  const drafts = makePassages(segments);
  const embedded = await embedEach(embedder, drafts, (d) => d.text, opts);
  const bySequence = await embedSegmentsOf(embedder, drafts, segments, opts);
  return embedded.map(([d, embedding]) => ({
    ...d,
    embedding,
    segmentEmbeddings: segmentVectorsOf(d, bySequence),
  }));
}

/** The vectors of the segments the passages span, by sequence. */
async function embedSegmentsOf(
  embedder: EmbeddingProvider,
  drafts: PassageDraft[],
  segments: Pick<Segment, 'sequence' | 'content'>[],
  opts: { signal?: AbortSignal } = {},
): Promise<Map<number, number[]>> {
  const covered = new Set<number>();
  for (const d of drafts) for (let seq = d.firstSequence; seq <= d.lastSequence; seq++) covered.add(seq);
  const segmentsUsed = segments.filter((s) => covered.has(s.sequence));
  const segmentVectors = await embedEach(embedder, segmentsUsed, (s) => s.content, opts);
  return new Map(segmentVectors.map(([s, vector]) => [s.sequence, vector]));
}

/** Cuts a transcript into passages, embeds them and stores them, replacing earlier ones. */
export async function indexTranscript(
  db: Queryable,
  embedder: EmbeddingProvider,
  meeting: { id: string; accountId: string },
  segments: Pick<Segment, 'sequence' | 'content'>[],
): Promise<number> {
  const embedded = await embedTranscript(embedder, segments);
  await storePassages(db, embedder.model, meeting, embedded, INSERT_BATCH);
  return embedded.length;
}

/** A passage with its vector, ready to store (an id of its own when its segment vectors follow). */
type PassageToStore = PassageDraft & { id?: string; embedding: number[]; segmentEmbeddings?: Uint8Array };

/**
 * Replaces a meeting's passages with these, `batch` to a statement. False when the meeting is
 * gone (deleted before, or while, they are stored: its passages go with it, and a statement after
 * fails its foreign key), and then nothing of it is left.
 */
async function storePassages(
  db: Queryable,
  model: string,
  meeting: { id: string; accountId: string },
  embedded: PassageToStore[],
  batch: number,
): Promise<boolean> {
  const [still] = await db
    .select({ language: meetings.language })
    .from(meetings)
    .where(eq(meetings.id, meeting.id));
  if (!still) return false;
  // Full-text search reads each passage in its meeting's language.
  const config = textSearchConfig(still.language ?? '');
  // Indexing again (a job run again after a crash, say) replaces what an earlier run stored.
  await db.delete(passages).where(eq(passages.meetingId, meeting.id));
  try {
    for (let i = 0; i < embedded.length; i += batch)
      await db.insert(passages).values(passageRows(embedded.slice(i, i + batch), model, meeting, config));
  } catch (err) {
    if (hasPgCode(err, PG_FOREIGN_KEY_VIOLATION)) return false;
    throw err;
  }
  return true;
}

function passageRows(
  embedded: PassageToStore[],
  model: string,
  meeting: { id: string; accountId: string },
  config: string,
) {
  return embedded.map(({ id, ...d }) => ({
    id: id ?? randomUUID(),
    meetingId: meeting.id,
    accountId: meeting.accountId,
    ...d,
    model,
    textSearchConfig: config,
    searchVector: searchVectorOf(config, d.text),
  }));
}

/**
 * Loads a meeting's transcript and indexes it (the background job, the seed). The model runs
 * outside any transaction (seconds with the semantic one). Then the passages are stored, a few
 * to a statement: the meeting becomes searchable as they land. Their segments' vectors follow
 * (about a third of the model's time for a meeting); until they are stored, a search that hits
 * one of these passages takes the segment sharing most words with the query for start_time
 * (search-passages.ts), never running the model in the request. A meeting deleted meanwhile
 * leaves nothing behind (its passages go with it, and one stored after fails its foreign key):
 * then there is nothing to index.
 */
export async function indexStoredTranscript(
  db: Db,
  embedder: EmbeddingProvider,
  meeting: { id: string; accountId: string },
): Promise<number> {
  const segments = await db
    .select({ sequence: transcriptSegments.sequence, content: transcriptSegments.content })
    .from(transcriptSegments)
    .where(eq(transcriptSegments.meetingId, meeting.id))
    .orderBy(asc(transcriptSegments.sequence));
  const drafts = makePassages(segments);
  const embedded = (await embedEach(embedder, drafts, (d) => d.text)).map(([d, embedding]) => ({
    ...d,
    id: randomUUID(),
    embedding,
  }));
  if (!(await storePassages(db, embedder.model, meeting, embedded, STORE_BATCH))) return 0;
  const bySequence = await embedSegmentsOf(embedder, drafts, segments);
  // A few passages to a statement, not one per passage: with PGlite a meeting's single-row
  // updates took several times the CPU of one statement
  // (docs/performance.md#segment-vectors-stored-a-few-passages-to-a-statement). A passage
  // replaced meanwhile (the transcript indexed again) is simply not found.
  for (let i = 0; i < embedded.length; i += STORE_BATCH) {
    const rows = embedded
      .slice(i, i + STORE_BATCH)
      .map((d) => ({ id: d.id, vectors: Buffer.from(segmentVectorsOf(d, bySequence)).toString('base64') }));
    await db.execute(sql`
      update passages p set segment_embeddings = decode(r.vectors, 'base64')
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id uuid, vectors text)
       where p.id = r.id and p.account_id = ${meeting.accountId} and p.model = ${embedder.model}`);
  }
  return embedded.length;
}

/** What Form B search matches a query against: the summary's words, and the plain text if any. */
export function summarySearchText(summary: Summary, text: string | null): string {
  return [
    summary.context,
    ...summary.decisions,
    ...summary.action_items.map((a) => [a.task, a.owner, a.deadline].filter(Boolean).join(' ')),
    summary.participants.join(', '),
    summary.next_step,
    summary.budget_mentioned,
    text,
  ]
    .filter((s): s is string => !!s && s.trim().length > 0)
    .join('\n');
}

export async function indexSummary(
  db: Queryable,
  embedder: EmbeddingProvider,
  meetingId: string,
  summary: Summary,
  text: string | null,
): Promise<void> {
  const words = summarySearchText(summary, text);
  const vector = await embedOne(embedder, words);
  // Full-text search reads the summary in its meeting's language.
  const [meeting] = await db
    .select({ language: meetings.language })
    .from(meetings)
    .where(eq(meetings.id, meetingId));
  const config = textSearchConfig(meeting?.language ?? '');
  await db
    .update(meetings)
    .set({
      summaryEmbedding: vector,
      summaryEmbeddingModel: embedder.model,
      summarySearchConfig: config,
      summarySearchVector: searchVectorOf(config, words),
    })
    .where(eq(meetings.id, meetingId));
}
