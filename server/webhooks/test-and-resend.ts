import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { deliveries, events, webhookEndpoints } from '../db/schema';
import { conflict, notFound } from '../errors';
import type { EventData } from '../events/record-event';
import { getEndpointOrThrow } from './endpoints';
import { serializeEnvelope } from './fan-out-event';

/**
 * "Send test event" of the settings app: one delivery of a sample meeting to one active
 * endpoint, under the first event name it subscribed to, signed and retried like any other.
 */
export async function sendTestEvent(
  db: Db,
  accountId: string,
  endpointId: string,
): Promise<{ deliveryId: string }> {
  const endpoint = await getEndpointOrThrow(db, accountId, endpointId);
  if (!endpoint.active) throw conflict('The endpoint is inactive: re-enable it before sending a test event');
  const label = (endpoint.events[0] ?? 'meeting.completed') as (typeof deliveries.$inferInsert)['event'];
  const now = new Date();
  const data: EventData = {
    id: randomUUID(),
    title: 'Test event from Meeting Notes',
    platform: 'zoom',
    duration_seconds: 60,
    started_at: new Date(now.getTime() - 60_000).toISOString(),
    ended_at: now.toISOString(),
    transcript: [
      {
        sequence: 1,
        speaker: 'Meeting Notes',
        content: 'This is a test delivery.',
        start_time: 0,
        end_time: 3,
      },
    ],
    summary: null,
  };
  const type = label === 'meeting.completed' ? 'meeting.transcribed' : label;
  return db.transaction(async (tx) => {
    const eventId = randomUUID();
    await tx
      .insert(events)
      .values({ id: eventId, accountId, meetingId: null, type, data, createdAt: now, fannedOutAt: now });
    const deliveryId = randomUUID();
    await tx.insert(deliveries).values({
      id: deliveryId,
      endpointId,
      eventId,
      event: label,
      payload: serializeEnvelope(label, now, data),
      nextAttemptAt: now,
      createdAt: now,
    });
    return { deliveryId };
  });
}

/** "Resend": the same payload again as a new delivery (new X-Service-Delivery, fresh attempts). */
export async function resendDelivery(
  db: Db,
  accountId: string,
  deliveryId: string,
): Promise<{ deliveryId: string }> {
  const [original] = await db
    .select({ delivery: deliveries, active: webhookEndpoints.active })
    .from(deliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, deliveries.endpointId))
    .where(and(eq(deliveries.id, deliveryId), eq(webhookEndpoints.accountId, accountId)));
  if (!original) throw notFound('Delivery');
  if (!original.active) throw conflict('The endpoint is inactive: re-enable it before resending');
  const now = new Date();
  const id = randomUUID();
  await db.insert(deliveries).values({
    id,
    endpointId: original.delivery.endpointId,
    eventId: original.delivery.eventId,
    event: original.delivery.event,
    payload: original.delivery.payload,
    nextAttemptAt: now,
    createdAt: now,
  });
  return { deliveryId: id };
}
