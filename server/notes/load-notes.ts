import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { meetings } from '../db/schema';
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
 * (no query per note), keeping the rows' order. The database folds each transcript into one
 * JSON array: decoding 100 arrays is several times faster than decoding 20,000 rows, above all
 * on PGlite (measured: 170 ms → 40 ms for 100 notes of 200 segments).
 */
export async function withTranscripts(db: Queryable, rows: NoteRow[]): Promise<NoteRecord[]> {
  if (rows.length === 0) return [];
  const folded = await queryRows<{ meeting_id: string; segments: string }>(
    db,
    sql`select meeting_id,
               json_agg(json_build_array(sequence, speaker, content, start_time, end_time) order by sequence)::text as segments
        from transcript_segments
        where meeting_id in ${rows.map((r) => r.id)}
        group by meeting_id`,
  );
  const byMeeting = new Map<string, Segment[]>();
  for (const { meeting_id, segments } of folded) {
    const tuples = JSON.parse(segments) as [number, string, string, number, number | null][];
    byMeeting.set(
      meeting_id,
      tuples.map(([sequence, speaker, content, startTime, endTime]) => ({
        sequence,
        speaker,
        content,
        startTime,
        endTime,
      })),
    );
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
