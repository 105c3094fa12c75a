import { and, eq } from 'drizzle-orm';
import type { Tx } from '../db/client';
import { meetings } from '../db/schema';
import { notFound } from '../errors';

/** The account's meeting, locked for the rest of the transaction; another account's is not found. */
export async function lockMeetingOrThrow(tx: Tx, accountId: string, meetingId: string) {
  const [meeting] = await tx
    .select()
    .from(meetings)
    .where(and(eq(meetings.id, meetingId), eq(meetings.accountId, accountId)))
    .for('update');
  if (!meeting) throw notFound('Meeting');
  return meeting;
}
