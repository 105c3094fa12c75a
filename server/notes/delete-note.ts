import { and, eq, isNotNull } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { meetings } from '../db/schema';
import { notFound } from '../errors';

/**
 * Removes a note permanently (docs/rules.md#getting-and-deleting-a-note). Its transcript, events
 * and everything else derived from it go with it through ON DELETE CASCADE, in the same statement.
 */
export async function deleteNoteOrThrow(db: Queryable, accountId: string, noteId: string): Promise<void> {
  const deleted = await db
    .delete(meetings)
    .where(and(eq(meetings.id, noteId), eq(meetings.accountId, accountId), isNotNull(meetings.transcribedAt)))
    .returning({ id: meetings.id });
  if (deleted.length === 0) throw notFound('Note');
}
