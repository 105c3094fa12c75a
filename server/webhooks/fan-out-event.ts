import { randomUUID } from 'node:crypto';
import { and, eq, lte } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { deliveries, webhookEndpoints } from '../db/schema';
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
 * SPEC 6.1, D9: the name an endpoint receives an event under, or null if it did not subscribe.
 * meeting.completed is an alias of meeting.transcribed: one delivery for that moment, labelled
 * meeting.transcribed when the endpoint subscribed to both.
 */
export function labelFor(type: EventType, subscribed: readonly string[]): WebhookEvent | null {
  if (subscribed.includes(type)) return type;
  const alias = (Object.keys(EVENT_ALIASES) as EventAlias[]).find(
    (name) => EVENT_ALIASES[name] === type && subscribed.includes(name),
  );
  return alias ?? null;
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
 * Turns an outbox event into one pending delivery per subscribed active endpoint, in the
 * event's own transaction: an endpoint inactive at that moment never gets it (SPEC 3.1), and
 * one re-enabled later does not either.
 */
export async function fanOutEvent(tx: Queryable, event: OutboxEvent): Promise<number> {
  const endpoints = await tx
    .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.accountId, event.accountId),
        eq(webhookEndpoints.active, true),
        lte(webhookEndpoints.activeSince, event.createdAt),
      ),
    );
  const rows = endpoints.flatMap((endpoint) => {
    const label = labelFor(event.type, endpoint.events);
    return label ? [newDelivery(endpoint.id, event, label)] : [];
  });
  if (rows.length > 0) await tx.insert(deliveries).values(rows);
  return rows.length;
}
