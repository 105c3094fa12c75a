import { and, desc, eq, gte, inArray, isNotNull, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { meetings } from '../db/schema';
import type { Platform } from '../domain';
import type { NotePage } from './note-record';
import { foldedTranscript, noteColumns, toNoteRecords } from './load-notes';

/** A list request in form-neutral terms; each form's input schema produces one. */
export interface ListNotesQuery {
  limit: number;
  /** Keyset position: notes strictly after this one in (created_at desc, id desc) order. */
  after?: { createdAt: Date; id?: string };
  platforms?: Platform[];
  createdFrom?: Date;
  createdBefore?: { at: Date; inclusive: boolean };
  /** Leave the transcripts out (each record's is empty): for a caller that shows none. */
  withoutTranscripts?: boolean;
}

/** A page of the account's notes with their transcripts, in one statement. */
export async function listNotes(db: Queryable, accountId: string, query: ListNotesQuery): Promise<NotePage> {
  const conditions: (SQL | undefined)[] = [
    eq(meetings.accountId, accountId),
    isNotNull(meetings.transcribedAt),
  ];
  if (query.platforms) conditions.push(inArray(meetings.platform, query.platforms));
  if (query.createdFrom) conditions.push(gte(meetings.createdAt, query.createdFrom));
  if (query.createdBefore) {
    const { at, inclusive } = query.createdBefore;
    conditions.push(inclusive ? lte(meetings.createdAt, at) : lt(meetings.createdAt, at));
  }
  if (query.after) {
    const { createdAt, id } = query.after;
    // A row comparison, so the position is an index condition on (account_id, created_at, id):
    // the page at any depth reads only its own rows. The OR spelling of the same
    // order could not be one and filtered every row before the cursor.
    conditions.push(
      id
        ? sql`(${meetings.createdAt}, ${meetings.id}) < (${createdAt.toISOString()}::timestamptz, ${id}::uuid)`
        : lt(meetings.createdAt, createdAt),
    );
  }
  // One row more than the page tells whether another page follows. The transcripts are folded
  // over the page once it is chosen, so that choosing it is planned as the bare keyset query.
  const page = db
    .select(noteColumns)
    .from(meetings)
    .where(and(...conditions))
    .orderBy(desc(meetings.createdAt), desc(meetings.id))
    .limit(query.limit + 1)
    .as('page');
  const rows = await db
    .select({
      ...page._.selectedFields,
      segments: query.withoutTranscripts ? sql<string | null>`null` : foldedTranscript(page.id),
    })
    .from(page)
    .orderBy(desc(page.createdAt), desc(page.id));
  const hasMore = rows.length > query.limit;
  return { notes: toNoteRecords(rows.slice(0, query.limit)), hasMore };
}
