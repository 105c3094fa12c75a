import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Db, type Tx } from '../db/client';
import { meetings } from '../db/schema';
import type { Platform } from '../domain';
import { notFound } from '../errors';
import { recordEvent } from '../events/record-event';
import type { Services } from '../services';

export interface CreateMeetingInput {
  title?: string | null;
  platform: Platform;
  startedAt?: Date;
  language?: string;
  /** Only for imports and the demo seed: the time the meeting was first recorded. */
  createdAt?: Date;
}

/**
 * The meetings of one account never share a created_at, so Form B's timestamp cursor is exact. The
 * account row hands out the next millisecond under its row lock, so concurrent recordings of one
 * account are ordered.
 */
async function allocateCreatedAt(tx: Tx, accountId: string): Promise<Date> {
  const [row] = await queryRows<{ created_at: string | Date }>(
    tx,
    sql`update accounts
        set last_meeting_created_at = greatest(date_trunc('milliseconds', clock_timestamp()),
                                               last_meeting_created_at + interval '1 millisecond')
        where id = ${accountId}
        returning last_meeting_created_at as created_at`,
  );
  if (!row) throw notFound('Account');
  return new Date(row.created_at);
}

/** An explicit created_at (imports): still kept distinct by the unique index, and remembered as the latest. */
async function claimCreatedAt(tx: Tx, accountId: string, at: Date): Promise<Date> {
  const [row] = await queryRows<{ id: string }>(
    tx,
    sql`update accounts
        set last_meeting_created_at = greatest(last_meeting_created_at, ${at.toISOString()}::timestamptz)
        where id = ${accountId}
        returning id`,
  );
  if (!row) throw notFound('Account');
  return at;
}

export async function createMeeting(
  db: Db,
  services: Pick<Services, 'kick'>,
  accountId: string,
  input: CreateMeetingInput,
): Promise<{ id: string }> {
  const result = await db.transaction(async (tx) => {
    const createdAt = input.createdAt
      ? await claimCreatedAt(tx, accountId, input.createdAt)
      : await allocateCreatedAt(tx, accountId);
    const [meeting] = await tx
      .insert(meetings)
      .values({
        id: randomUUID(),
        accountId,
        title: input.title ?? null,
        platform: input.platform,
        language: input.language ?? 'en',
        startedAt: input.startedAt ?? createdAt,
        createdAt,
      })
      .returning();
    if (!meeting) throw new Error('Inserting the meeting returned no row');
    await recordEvent(tx, { type: 'meeting.started', meeting, at: createdAt });
    return { id: meeting.id };
  });
  // The meeting.started deliveries go out now, not at the worker's next tick.
  services.kick();
  return result;
}
