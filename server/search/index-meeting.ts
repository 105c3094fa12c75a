import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import type { Db, Queryable } from '../db/client';
import { meetings, passages, transcriptSegments } from '../db/schema';
import type { EmbeddingProvider } from '../embeddings/provider';
import type { Segment } from '../notes/note-record';
import type { Summary } from '../notes/summary';
import { embedEach, embedOne } from './embed-checked';
import { makePassages } from './make-passages';

// Each row carries its segments' vectors too (a few thousand numbers): batches stay moderate.
const INSERT_BATCH = 100;

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
 * the segment that best matches the query (D7), and with the segments' vectors stored here a
 * search picks it without running the model again (issue 13: that took 0.65–1 s per search).
 */
export async function embedTranscript(
  embedder: EmbeddingProvider,
  segments: Pick<Segment, 'sequence' | 'content'>[],
  opts: { signal?: AbortSignal } = {},
) {
  const drafts = makePassages(segments);
  const covered = new Set<number>();
  for (const d of drafts) for (let seq = d.firstSequence; seq <= d.lastSequence; seq++) covered.add(seq);
  const segmentsUsed = segments.filter((s) => covered.has(s.sequence));
  const embedded = await embedEach(embedder, drafts, (d) => d.text, opts);
  const segmentVectors = await embedEach(embedder, segmentsUsed, (s) => s.content, opts);
  const bySequence = new Map(segmentVectors.map(([s, vector]) => [s.sequence, vector]));
  return embedded.map(([d, embedding]) => ({
    ...d,
    embedding,
    segmentEmbeddings: segmentVectorsOf(d, bySequence),
  }));
}

/** Cuts a transcript into passages, embeds them and stores them, replacing earlier ones. */
export async function indexTranscript(
  db: Queryable,
  embedder: EmbeddingProvider,
  meeting: { id: string; accountId: string },
  segments: Pick<Segment, 'sequence' | 'content'>[],
): Promise<number> {
  const embedded = await embedTranscript(embedder, segments);
  await storePassages(db, embedder.model, meeting, embedded);
  return embedded.length;
}

async function storePassages(
  db: Queryable,
  model: string,
  meeting: { id: string; accountId: string },
  embedded: Awaited<ReturnType<typeof embedTranscript>>,
): Promise<void> {
  await db.delete(passages).where(eq(passages.meetingId, meeting.id));
  for (let i = 0; i < embedded.length; i += INSERT_BATCH) {
    await db.insert(passages).values(
      embedded.slice(i, i + INSERT_BATCH).map((d) => ({
        id: randomUUID(),
        meetingId: meeting.id,
        accountId: meeting.accountId,
        ...d,
        model,
      })),
    );
  }
}

/**
 * Loads a meeting's transcript and indexes it (the background job, the seed). The model runs
 * outside any transaction (seconds with the semantic one); the passages are then replaced in one,
 * unless the meeting was deleted meanwhile (then there is nothing to index).
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
  const embedded = await embedTranscript(embedder, segments);
  return db.transaction(async (tx) => {
    const [still] = await tx
      .select({ id: meetings.id })
      .from(meetings)
      .where(eq(meetings.id, meeting.id))
      .for('update');
    if (!still) return 0;
    await storePassages(tx, embedder.model, meeting, embedded);
    return embedded.length;
  });
}

/** What Form B search matches a query against (D7): the summary's words, and the plain text if any. */
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
  const vector = await embedOne(embedder, summarySearchText(summary, text));
  await db
    .update(meetings)
    .set({ summaryEmbedding: vector, summaryEmbeddingModel: embedder.model })
    .where(eq(meetings.id, meetingId));
}
