import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
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
 * A note's transcript folded into one JSON array by the database, as a column of the note's own
 * row: a note or a page of notes with its transcripts is one statement. Each
 * fold reads one note's segments through the primary key (meeting_id, sequence).
 */
export const foldedTranscript = (meetingId: SQL | AnyColumn) =>
  sql<
    string | null
  >`(select json_agg(json_build_array(s.sequence, s.speaker, s.content, s.start_time, s.end_time) order by s.sequence)::text
    from transcript_segments s where s.meeting_id = ${meetingId})`;

export const noteWithTranscriptColumns = { ...noteColumns, segments: foldedTranscript(meetings.id) };

export type NoteWithTranscriptRow = NoteRow & { segments: string | null };

/** Records from rows selected with noteWithTranscriptColumns. */
export function toNoteRecords(rows: NoteWithTranscriptRow[]): NoteRecord[] {
  return rows.map((r) => toNoteRecord(r, r.segments ? decodeSegments(r.segments) : []));
}

function decodeSegments(folded: string): Segment[] {
  const tuples = JSON.parse(folded) as [number, string, string, number, number | null][];
  return tuples.map(([sequence, speaker, content, startTime, endTime]) => ({
    sequence,
    speaker,
    content,
    startTime,
    endTime,
  }));
}

/**
 * Attaches transcripts to note rows with one query for all of them, whatever their number
 * (no query per note), keeping the rows' order. The database folds each transcript into one
 * JSON array: decoding 100 arrays is several times faster than decoding 20,000 rows, above all
 * on PGlite (docs/performance.md#transcripts-folded-into-one-json-array).
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
  for (const { meeting_id, segments } of folded) byMeeting.set(meeting_id, decodeSegments(segments));
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
