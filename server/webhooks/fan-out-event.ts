import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import type { deliveries } from '../db/schema';
import { EVENT_ALIASES, type EventAlias, type EventType, type WebhookEvent } from '../domain';
import { serializeEnvelope } from './envelope';

/** An event of the outbox (the events table), as it is turned into deliveries. */
export interface OutboxEvent {
  id: string;
  accountId: string;
  type: EventType;
  data: unknown;
  createdAt: Date;
}

/**
 * The names an event can reach an endpoint under, in order of preference: its own,
 * then its aliases (meeting.completed for meeting.transcribed). An endpoint gets one delivery,
 * under the first of these it subscribed to, so one that subscribed to both gets
 * meeting.transcribed once.
 */
export function labelsFor(type: EventType): WebhookEvent[] {
  const aliases = (Object.keys(EVENT_ALIASES) as EventAlias[]).filter((name) => EVENT_ALIASES[name] === type);
  return [type, ...aliases];
}

/** A pending delivery of the event to one endpoint under `label`, due at once; its payload is fixed now. */
export function newDelivery(
  endpointId: string,
  event: OutboxEvent,
  label: WebhookEvent,
): typeof deliveries.$inferInsert {
  return {
    id: randomUUID(),
    endpointId,
    eventId: event.id,
    event: label,
    payload: serializeEnvelope(label, event.createdAt, event.data),
    nextAttemptAt: event.createdAt,
    createdAt: event.createdAt,
  };
}

/**
 * Writes the event to the outbox and turns it into one pending delivery per subscribed active
 * endpoint, in one statement inside the event's own transaction: an endpoint inactive at that
 * moment never gets it, and one re-enabled later does not either.
 *
 * One statement rather than three (insert the event, read the endpoints, insert the deliveries):
 * each round trip inside the transaction delays the commit, and with it the first attempt, which
 * is made right after the commit (docs/performance.md#an-event-and-its-deliveries-in-one-statement
 * has the figures). Each endpoint's payload is one of the serialized envelopes passed in, picked
 * by the label it subscribed to, so the bytes signed and sent are still serializeEnvelope's.
 */
export async function recordEventWithDeliveries(
  tx: Queryable,
  event: OutboxEvent & { meetingId: string | null },
): Promise<void> {
  const at = event.createdAt.toISOString();
  const candidates = labelsFor(event.type).map((label, rank) => ({
    label,
    rank,
    payload: serializeEnvelope(label, event.createdAt, event.data),
  }));
  await tx.execute(sql`
    with recorded as (
      insert into events (id, account_id, meeting_id, type, data, created_at)
      values (${event.id}, ${event.accountId}, ${event.meetingId}, ${event.type},
              ${JSON.stringify(event.data)}::jsonb, ${at}::timestamptz)
      returning id)
    insert into deliveries (id, endpoint_id, event_id, event, payload, meeting_id, next_attempt_at, created_at)
    select gen_random_uuid(), e.id, recorded.id, chosen.label, chosen.payload, ${event.meetingId}::uuid,
           ${at}::timestamptz, ${at}::timestamptz
    from recorded
    join webhook_endpoints e
      on e.account_id = ${event.accountId} and e.active and e.active_since <= ${at}::timestamptz
    cross join lateral (
      select c.label, c.payload
      from jsonb_to_recordset(${JSON.stringify(candidates)}::jsonb) as c(label text, rank int, payload text)
      where c.label = any(e.events)
      order by c.rank
      limit 1) chosen`);
}
