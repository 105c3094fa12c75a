import { randomUUID } from 'node:crypto';
import { and, eq, lte } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { deliveries, webhookEndpoints, type EventType, type WebhookEvent } from '../db/schema';

/**
 * SPEC 6.1, D9: the name an endpoint receives an event under, or null if it did not subscribe.
 * meeting.completed is an alias of meeting.transcribed: one delivery for that moment, labelled
 * meeting.transcribed when the endpoint subscribed to both.
 */
export function labelFor(type: EventType, subscribed: readonly string[]): WebhookEvent | null {
  if (subscribed.includes(type)) return type;
  if (type === 'meeting.transcribed' && subscribed.includes('meeting.completed')) return 'meeting.completed';
  return null;
}

/** D9: the envelope, serialised once as compact JSON; every attempt sends these bytes. */
export function serializeEnvelope(event: WebhookEvent, createdAt: Date, data: unknown): string {
  return JSON.stringify({ event, created_at: createdAt.toISOString(), data });
}

/**
 * Turns an outbox event into one pending delivery per subscribed active endpoint, in the
 * event's own transaction: an endpoint inactive at that moment never gets it (SPEC 3.1), and
 * one re-enabled later does not either.
 */
export async function fanOutEvent(
  tx: Queryable,
  event: { id: string; accountId: string; type: EventType; data: unknown; createdAt: Date },
): Promise<number> {
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
    if (!label) return [];
    return [
      {
        id: randomUUID(),
        endpointId: endpoint.id,
        eventId: event.id,
        event: label,
        payload: serializeEnvelope(label, event.createdAt, event.data),
        nextAttemptAt: event.createdAt,
        createdAt: event.createdAt,
      },
    ];
  });
  if (rows.length > 0) await tx.insert(deliveries).values(rows);
  return rows.length;
}
