import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { deliveries, events, webhookEndpoints } from '../db/schema';
import { eventTypeOf, type WebhookEvent } from '../domain';
import { conflict, notFound } from '../errors';
import { getEndpointOrThrow } from './endpoints';
import type { EventData } from './envelope';
import { newDelivery } from './fan-out-event';

/** Called after a commit that queued deliveries: attempt them now, not at the worker's next tick. */
export interface DeliveryKick {
  kick(): void;
}

/**
 * "Send test event" of the settings app: one delivery of a sample meeting to one active
 * endpoint, under the first event name it subscribed to, signed and retried like any other.
 */
export async function sendTestEvent(
  db: Db,
  worker: DeliveryKick,
  accountId: string,
  endpointId: string,
): Promise<{ deliveryId: string }> {
  const endpoint = await getEndpointOrThrow(db, accountId, endpointId);
  if (!endpoint.active) throw conflict('The endpoint is inactive: re-enable it before sending a test event');
  const label: WebhookEvent = endpoint.events[0] ?? 'meeting.completed';
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
  const event = { id: randomUUID(), accountId, type: eventTypeOf(label), data, createdAt: now };
  const deliveryId = await db.transaction(async (tx) => {
    await tx.insert(events).values({ ...event, meetingId: null });
    const delivery = newDelivery(endpointId, event, label);
    await tx.insert(deliveries).values(delivery);
    return delivery.id;
  });
  worker.kick();
  return { deliveryId };
}

/** "Resend": the same payload again as a new delivery (new X-Service-Delivery, fresh attempts). */
export async function resendDelivery(
  db: Db,
  worker: DeliveryKick,
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
  worker.kick();
  return { deliveryId: id };
}
