import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { transcriptSegments } from '../db/schema';
import type { Services } from '../services';
import { storeSummary } from './store-summary';

/**
 * The summary job: summarises a transcribed meeting's transcript with the configured
 * summarizer and stores the summary as the recorder's own would be (summary.ready, search),
 * unless the recorder sent one meanwhile.
 */
export async function generateSummary(
  db: Db,
  services: Services,
  meeting: { id: string; accountId: string; title: string | null; language: string },
): Promise<void> {
  const segments = await db
    .select({
      speaker: transcriptSegments.speaker,
      content: transcriptSegments.content,
      startTime: transcriptSegments.startTime,
    })
    .from(transcriptSegments)
    .where(eq(transcriptSegments.meetingId, meeting.id))
    .orderBy(asc(transcriptSegments.sequence));
  const summary = await services.summarizer.summarize({
    title: meeting.title,
    language: meeting.language,
    segments,
  });
  await storeSummary(db, services, meeting.accountId, meeting.id, { summary, onlyIfMissing: true });
}
