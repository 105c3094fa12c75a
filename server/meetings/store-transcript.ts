import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { meetings, transcriptSegments } from '../db/schema';
import { conflict, validationError } from '../errors';
import { inTimestampRange, MAX_DURATION_SECONDS, TIMESTAMP_RANGE_TEXT } from '../db/storage-bounds';
import { recordEvent } from '../events/record-event';
import { enqueueJob } from '../jobs/jobs';
import type { Segment } from '../notes/note-record';
import { indexTranscript } from '../search/index-meeting';
import { embedsInline, type Services } from '../services';
import { lockMeetingOrThrow } from './lock-meeting';

export interface StoreTranscriptInput {
  endedAt?: Date;
  durationSeconds?: number;
  segments: { speaker: string; content: string; startTime: number; endTime?: number | null }[];
  generateSummary?: boolean;
}

// Rows per INSERT: 6 parameters a row stays far below PostgreSQL's 65,535-parameter limit.
const SEGMENT_BATCH = 2000;

/**
 * Stores a meeting's transcript; from then on the meeting is a note. Segments keep the
 * recorder's order as sequence 1..n, and meeting.transcribed goes to the outbox in the
 * same transaction.
 */
export async function storeTranscript(
  db: Db,
  services: Services,
  accountId: string,
  meetingId: string,
  input: StoreTranscriptInput,
): Promise<{ id: string }> {
  const result = await db.transaction(async (tx) => {
    const meeting = await lockMeetingOrThrow(tx, accountId, meetingId);
    if (meeting.transcribedAt) throw conflict('This meeting already has a transcript');

    const transcribedAt = new Date();
    // Duration is given, or ended_at - started_at. ended_at is given, or follows from the
    // duration, or else is now, but never earlier than the transcript's last second.
    const transcriptEnd = Math.max(...input.segments.map((s) => s.endTime ?? s.startTime));
    const endedAt =
      input.endedAt ??
      (input.durationSeconds !== undefined
        ? new Date(meeting.startedAt.getTime() + input.durationSeconds * 1000)
        : new Date(
            Math.max(transcribedAt.getTime(), meeting.startedAt.getTime() + Math.ceil(transcriptEnd) * 1000),
          ));
    if (endedAt.getTime() < meeting.startedAt.getTime()) {
      throw validationError("ended_at must not be earlier than the meeting's started_at");
    }
    // started_at, ended_at and duration_seconds are each within bounds, but together
    // they may still describe an end after year 9999 or a duration the service cannot store.
    if (!inTimestampRange(endedAt.getTime())) {
      throw validationError(
        `The meeting would end outside ${TIMESTAMP_RANGE_TEXT}; send ended_at or a shorter duration_seconds`,
      );
    }
    const durationSeconds =
      input.durationSeconds ?? Math.round((endedAt.getTime() - meeting.startedAt.getTime()) / 1000);
    if (durationSeconds > MAX_DURATION_SECONDS) {
      throw validationError(
        `The meeting would last ${durationSeconds} seconds, more than ${MAX_DURATION_SECONDS}; check started_at, or send ended_at or duration_seconds`,
      );
    }

    const segments: Segment[] = input.segments.map((s, i) => ({
      sequence: i + 1,
      speaker: s.speaker,
      content: s.content,
      startTime: s.startTime,
      endTime: s.endTime ?? null,
    }));
    for (let i = 0; i < segments.length; i += SEGMENT_BATCH) {
      await tx
        .insert(transcriptSegments)
        .values(segments.slice(i, i + SEGMENT_BATCH).map((s) => ({ meetingId, ...s })));
    }
    const [updated] = await tx
      .update(meetings)
      .set({ endedAt, durationSeconds, transcribedAt, generateSummary: input.generateSummary ?? true })
      .where(eq(meetings.id, meetingId))
      .returning();
    // The meeting is locked in this transaction, so the update always finds it.
    if (!updated) throw new Error(`Storing the transcript of meeting ${meetingId} updated no row`);
    await recordEvent(tx, {
      type: 'meeting.transcribed',
      meeting: updated,
      transcript: segments,
      at: transcribedAt,
    });

    // Passages are embedded now (local embedder) or by the worker (the others); a summary is
    // generated in the background unless the recorder says not to.
    const job = { accountId, meetingId };
    if (embedsInline(services.embedder))
      await indexTranscript(tx, services.embedder, { id: meetingId, accountId }, segments);
    else await enqueueJob(tx, { kind: 'embed_transcript', ...job });
    if (updated.generateSummary) await enqueueJob(tx, { kind: 'summarize', ...job });
    return { id: meetingId };
  });
  services.kick();
  return result;
}
