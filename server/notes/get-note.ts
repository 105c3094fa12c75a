import { and, eq, isNotNull } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { meetings } from '../db/schema';
import { notFound } from '../errors';
import type { NoteRecord } from './note-record';
import { noteWithTranscriptColumns, toNoteRecords } from './load-notes';

/**
 * A note of the account with its transcript, in one statement; another account's note, or a
 * meeting not yet transcribed (not a note yet), is not found.
 */
export async function getNoteOrThrow(db: Queryable, accountId: string, noteId: string): Promise<NoteRecord> {
  const rows = await db
    .select(noteWithTranscriptColumns)
    .from(meetings)
    .where(
      and(eq(meetings.id, noteId), eq(meetings.accountId, accountId), isNotNull(meetings.transcribedAt)),
    );
  const [note] = toNoteRecords(rows);
  if (!note) throw notFound('Note');
  return note;
}
