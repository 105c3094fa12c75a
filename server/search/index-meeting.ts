import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { meetings, passages, transcriptSegments } from '../db/schema';
import type { EmbeddingProvider } from '../embeddings/provider';
import type { Segment } from '../notes/note-record';
import type { Summary } from '../notes/summary';
import { makePassages } from './make-passages';

const INSERT_BATCH = 500;

/** Cuts a transcript into passages, embeds them and stores them, replacing earlier ones. */
export async function indexTranscript(
  db: Queryable,
  embedder: EmbeddingProvider,
  meeting: { id: string; accountId: string },
  segments: Pick<Segment, 'sequence' | 'content'>[],
): Promise<number> {
  const drafts = makePassages(segments);
  const vectors = await embedder.embed(drafts.map((d) => d.text));
  await db.delete(passages).where(eq(passages.meetingId, meeting.id));
  for (let i = 0; i < drafts.length; i += INSERT_BATCH) {
    await db.insert(passages).values(
      drafts.slice(i, i + INSERT_BATCH).map((d, j) => ({
        id: randomUUID(),
        meetingId: meeting.id,
        accountId: meeting.accountId,
        ...d,
        embedding: vectors[i + j]!,
        model: embedder.model,
      })),
    );
  }
  return drafts.length;
}

/** Loads a meeting's transcript and indexes it (the background job, and reindex). */
export async function indexStoredTranscript(db: Queryable, embedder: EmbeddingProvider, meeting: { id: string; accountId: string }) {
  const segments = await db
    .select({ sequence: transcriptSegments.sequence, content: transcriptSegments.content })
    .from(transcriptSegments)
    .where(eq(transcriptSegments.meetingId, meeting.id))
    .orderBy(asc(transcriptSegments.sequence));
  return indexTranscript(db, embedder, meeting, segments);
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
  const [vector] = await embedder.embed([summarySearchText(summary, text)]);
  await db
    .update(meetings)
    .set({ summaryEmbedding: vector!, summaryEmbeddingModel: embedder.model })
    .where(eq(meetings.id, meetingId));
}
