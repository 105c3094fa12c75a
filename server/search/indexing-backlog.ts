import { and, eq, isNull } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { jobs } from '../db/schema';

/**
 * The account's meetings whose transcript still waits to be embedded: stored and listed, but not
 * yet found by search. (With the word embedder, transcripts are embedded as they are stored and
 * nothing waits.) One indexed read of the account's queued work.
 */
export async function meetingsAwaitingIndex(db: Queryable, accountId: string): Promise<Set<string>> {
  const rows = await db
    .selectDistinct({ meetingId: jobs.meetingId })
    .from(jobs)
    .where(and(eq(jobs.accountId, accountId), eq(jobs.kind, 'embed_transcript'), isNull(jobs.failedAt)));
  return new Set(rows.flatMap((r) => (r.meetingId ? [r.meetingId] : [])));
}
