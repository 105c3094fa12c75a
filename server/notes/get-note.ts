import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { preparedPerDatabase } from '../db/prepared';
import { meetings } from '../db/schema';
import { notFound } from '../errors';
import type { NoteRecord } from './note-record';
import { noteWithTranscriptColumns, toNoteRecords } from './load-notes';

/**
 * A note of the account with its transcript, in one statement; another account's note, or a
 * meeting not yet transcribed (not a note yet), is not found. Prepared, as the key's lookup is:
 * building and planning it on every call cost more than running it (docs/performance.md, "A
 * note's read prepared").
 */
export async function getNoteOrThrow(db: Queryable, accountId: string, noteId: string): Promise<NoteRecord> {
  const rows = await preparedRead(db).execute({ noteId, accountId });
  const [note] = toNoteRecords(rows);
  if (!note) throw notFound('Note');
  return note;
}

const preparedRead = preparedPerDatabase((db) =>
  db
    .select(noteWithTranscriptColumns)
    .from(meetings)
    .where(
      and(
        eq(meetings.id, sql.placeholder('noteId')),
        eq(meetings.accountId, sql.placeholder('accountId')),
        isNotNull(meetings.transcribedAt),
      ),
    )
    .prepare('get_note'),
);
