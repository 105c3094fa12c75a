import { and, eq, isNotNull } from 'drizzle-orm';
import { sendPasswordResetEmail } from '../auth/password-reset';
import type { Db } from '../db/client';
import { meetings } from '../db/schema';
import { generateSummary } from '../meetings/generate-summary';
import type { Summary } from '../notes/summary';
import { indexStoredTranscript, indexSummary } from '../search/index-meeting';
import type { Services } from '../services';
import type { Job } from '../jobs/jobs';

/** Does one job. A job whose meeting is gone has nothing left to do. */
export async function runJob(db: Db, services: Services, job: Job): Promise<void> {
  if (job.kind === 'send_password_reset') {
    if (job.email) await sendPasswordResetEmail(db, services.mailer, services.accounts.appUrl, job.email);
    return;
  }
  if (!job.meetingId) return;
  const [meeting] = await db
    .select({
      id: meetings.id,
      accountId: meetings.accountId,
      title: meetings.title,
      language: meetings.language,
      summary: meetings.summary,
      summaryText: meetings.summaryText,
    })
    .from(meetings)
    .where(and(eq(meetings.id, job.meetingId), isNotNull(meetings.transcribedAt)));
  if (!meeting) return;
  switch (job.kind) {
    case 'embed_transcript':
      await indexStoredTranscript(db, services.embedder, meeting);
      return;
    case 'embed_summary':
      if (meeting.summary)
        await indexSummary(
          db,
          services.embedder,
          meeting.id,
          meeting.summary as Summary,
          meeting.summaryText,
        );
      return;
    case 'summarize':
      if (meeting.summary) return; // the recorder sent one meanwhile
      await generateSummary(db, services, meeting);
      return;
  }
}
