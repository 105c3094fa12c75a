import { and, desc, eq, gte, isNotNull, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { events } from '../db/schema';
import type { EventType } from '../domain';
import { notFound } from '../errors';
import type { EventData } from '../webhooks/envelope';
import { eventRetentionStart } from '../webhooks/prune-events';

// The account's events as the Events API reads them (docs/rules.md#events-api): the meetings'
// events of the last EVENT_RETENTION_DAYS, newest first. Test events (no meeting) are not listed.

/** An event as it was recorded: its data is the envelope's `data`, taken when it happened. */
export interface EventRecord {
  id: string;
  type: EventType;
  data: EventData;
  createdAt: Date;
}

/** A list request in form-neutral terms; each form's input schema produces one. */
export interface ListEventsQuery {
  limit: number;
  /** Keyset position: events strictly after this one in (created_at desc, id desc) order. */
  after?: { createdAt: Date; id: string };
  type?: EventType;
  createdFrom?: Date;
  createdBefore?: { at: Date; inclusive: boolean };
}

export interface EventPage {
  events: EventRecord[];
  hasMore: boolean;
}

const columns = { id: events.id, type: events.type, data: events.data, createdAt: events.createdAt };

const listed = (accountId: string, now: Date): SQL[] => [
  eq(events.accountId, accountId),
  isNotNull(events.meetingId),
  gte(events.createdAt, eventRetentionStart(now)),
];

/** A page of the account's events, newest first, in one statement on (account_id, created_at, id). */
export async function listEvents(
  db: Queryable,
  accountId: string,
  query: ListEventsQuery,
  now = new Date(),
): Promise<EventPage> {
  const conditions: (SQL | undefined)[] = listed(accountId, now);
  if (query.type) conditions.push(eq(events.type, query.type));
  if (query.createdFrom) conditions.push(gte(events.createdAt, query.createdFrom));
  if (query.createdBefore) {
    const { at, inclusive } = query.createdBefore;
    conditions.push(inclusive ? lte(events.createdAt, at) : lt(events.createdAt, at));
  }
  if (query.after) {
    // Events of one account can share a created_at (a transcript and its summary stored together):
    // the id breaks the tie, as a row comparison the index can seek to.
    const { createdAt, id } = query.after;
    conditions.push(
      sql`(${events.createdAt}, ${events.id}) < (${createdAt.toISOString()}::timestamptz, ${id}::uuid)`,
    );
  }
  const rows = (await db
    .select(columns)
    .from(events)
    .where(and(...conditions))
    .orderBy(desc(events.createdAt), desc(events.id))
    .limit(query.limit + 1)) as EventRecord[];
  return { events: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

/** One of the account's listed events; anything else (another account's, a test event, one past its retention) is not found. */
export async function getEventOrThrow(
  db: Queryable,
  accountId: string,
  eventId: string,
  now = new Date(),
): Promise<EventRecord> {
  const [row] = (await db
    .select(columns)
    .from(events)
    .where(and(eq(events.id, eventId), ...listed(accountId, now)))) as EventRecord[];
  if (!row) throw notFound('Event');
  return row;
}
