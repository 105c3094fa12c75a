import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { meetings, transcriptSegments } from '../db/schema';
import { conflict, notFound } from '../errors';
import { recordEvent } from '../events/record-event';
import type { Summary } from '../notes/summary';

/** Stores or replaces a meeting's summary and fires summary.ready (D16, D18). */
export async function storeSummary(
  db: Db,
  accountId: string,
  meetingId: string,
  input: { summary: Summary; text?: string | null },
): Promise<{ id: string }> {
  return db.transaction(async (tx) => {
    const [meeting] = await tx
      .select()
      .from(meetings)
      .where(and(eq(meetings.id, meetingId), eq(meetings.accountId, accountId)))
      .for('update');
    if (!meeting) throw notFound('Meeting');
    if (!meeting.transcribedAt) throw conflict('A summary can only be stored after the transcript');
    const summaryAt = new Date();
    const [updated] = await tx
      .update(meetings)
      .set({ summary: input.summary, summaryText: input.text ?? null, summaryAt })
      .where(eq(meetings.id, meetingId))
      .returning();
    const segments = await tx
      .select()
      .from(transcriptSegments)
      .where(eq(transcriptSegments.meetingId, meetingId))
      .orderBy(asc(transcriptSegments.sequence));
    await recordEvent(tx, { type: 'summary.ready', meeting: updated!, transcript: segments, summary: input.summary, at: summaryAt });
    return { id: meetingId };
  });
}
