import { asc, inArray } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { meetings, transcriptSegments } from '../db/schema';
import type { NoteRecord, Segment } from './note-record';
import type { Summary } from './summary';

export type MeetingRow = typeof meetings.$inferSelect;

/** Columns a note needs; the rest of a meeting row stays inside. */
export const noteColumns = {
  id: meetings.id,
  title: meetings.title,
  platform: meetings.platform,
  language: meetings.language,
  startedAt: meetings.startedAt,
  endedAt: meetings.endedAt,
  durationSeconds: meetings.durationSeconds,
  createdAt: meetings.createdAt,
  summary: meetings.summary,
  summaryText: meetings.summaryText,
};

export type NoteRow = { [K in keyof typeof noteColumns]: MeetingRow[K] };

/**
 * Attaches transcripts to note rows with one query for all of them, whatever their number
 * (no query per note), keeping the rows' order.
 */
export async function withTranscripts(db: Queryable, rows: NoteRow[]): Promise<NoteRecord[]> {
  if (rows.length === 0) return [];
  const segments = await db
    .select()
    .from(transcriptSegments)
    .where(
      inArray(
        transcriptSegments.meetingId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(transcriptSegments.meetingId), asc(transcriptSegments.sequence));
  const byMeeting = new Map<string, Segment[]>();
  for (const s of segments) {
    let list = byMeeting.get(s.meetingId);
    if (!list) byMeeting.set(s.meetingId, (list = []));
    list.push({ sequence: s.sequence, speaker: s.speaker, content: s.content, startTime: s.startTime, endTime: s.endTime });
  }
  return rows.map((r) => toNoteRecord(r, byMeeting.get(r.id) ?? []));
}

export function toNoteRecord(row: NoteRow, transcript: Segment[]): NoteRecord {
  // A visible note always has ended_at and duration (set when its transcript is stored).
  return {
    id: row.id,
    title: row.title,
    platform: row.platform,
    language: row.language,
    startedAt: row.startedAt,
    endedAt: row.endedAt ?? row.startedAt,
    durationSeconds: row.durationSeconds ?? 0,
    createdAt: row.createdAt,
    summary: (row.summary as Summary | null) ?? null,
    summaryText: row.summaryText,
    transcript,
  };
}
