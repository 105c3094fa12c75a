import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { meetings, transcriptSegments } from '../db/schema';
import { conflict } from '../errors';
import { recordEvent } from '../events/record-event';
import { cancelJobs, enqueueJob } from '../jobs/jobs';
import type { Summary } from '../notes/summary';
import { indexSummary } from '../search/index-meeting';
import { embedsInline, type Services } from '../services';
import { lockMeetingOrThrow } from './lock-meeting';

/**
 * Stores or replaces a meeting's summary and fires summary.ready (docs/rules.md#summaries). A generated
 * summary (onlyIfMissing) never replaces one the recorder sent meanwhile.
 */
export async function storeSummary(
  db: Db,
  services: Services,
  accountId: string,
  meetingId: string,
  input: { summary: Summary; text?: string | null; onlyIfMissing?: boolean },
): Promise<{ id: string }> {
  const result = await db.transaction(async (tx) => {
    const meeting = await lockMeetingOrThrow(tx, accountId, meetingId);
    if (!meeting.transcribedAt) throw conflict('A summary can only be stored after the transcript');
    if (input.onlyIfMissing && meeting.summary) return { id: meetingId };
    const summaryAt = new Date();
    const [updated] = await tx
      .update(meetings)
      .set({ summary: input.summary, summaryText: input.text ?? null, summaryAt })
      .where(eq(meetings.id, meetingId))
      .returning();
    // The meeting is locked in this transaction, so the update always finds it.
    if (!updated) throw new Error(`Storing the summary of meeting ${meetingId} updated no row`);
    const segments = await tx
      .select()
      .from(transcriptSegments)
      .where(eq(transcriptSegments.meetingId, meetingId))
      .orderBy(asc(transcriptSegments.sequence));
    await recordEvent(tx, {
      type: 'summary.ready',
      meeting: updated,
      transcript: segments,
      summary: input.summary,
      at: summaryAt,
    });

    // Form B search matches summaries: embed it now or in the background, as for passages.
    await cancelJobs(tx, meetingId, 'summarize');
    if (embedsInline(services.embedder))
      await indexSummary(tx, services.embedder, meetingId, input.summary, input.text ?? null);
    else await enqueueJob(tx, { kind: 'embed_summary', accountId, meetingId });
    return { id: meetingId };
  });
  services.kick();
  return result;
}
