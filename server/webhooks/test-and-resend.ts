import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { deliveries, events, webhookEndpoints } from '../db/schema';
import { eventTypeOf, type WebhookEvent } from '../domain';
import { conflict, notFound } from '../errors';
import { getEndpointOrThrow } from './endpoints';
import type { Summary } from '../notes/summary';
import type { EventData } from './envelope';
import { newDelivery } from './fan-out-event';

/** Called after a commit that queued deliveries: attempt them now, not at the worker's next tick. */
export interface DeliveryKick {
  kick(): void;
}

/**
 * A sample meeting in the payload shape of `event`: a started meeting has no transcript,
 * end or duration yet; a transcribed one has its transcript; summary.ready adds the summary.
 */
export function sampleEventData(event: WebhookEvent, now: Date): EventData {
  const type = eventTypeOf(event);
  const started = new Date(now.getTime() - 15 * 60_000);
  const base = {
    id: randomUUID(),
    title: 'Test event from Meeting Notes',
    platform: 'zoom' as const,
    started_at: started.toISOString(),
  };
  if (type === 'meeting.started')
    return { ...base, duration_seconds: null, ended_at: null, transcript: [], summary: null };
  const transcript = [
    {
      sequence: 0,
      speaker: 'Ada',
      content: 'This is a test delivery from the settings app.',
      start_time: 0,
      end_time: 4.2,
    },
    {
      sequence: 1,
      speaker: 'Grace',
      content: 'It has the shape of a real event.',
      start_time: 4.2,
      end_time: 7.9,
    },
  ];
  const done = { ...base, duration_seconds: 900, ended_at: now.toISOString(), transcript };
  if (type !== 'summary.ready') return { ...done, summary: null };
  const summary: Summary = {
    context: 'A test delivery: two speakers confirm that webhooks reach the endpoint.',
    decisions: ['Verify every delivery by its signature'],
    action_items: [{ task: 'Check the signature of this delivery', owner: 'Ada', deadline: null }],
    participants: ['Ada', 'Grace'],
    next_step: 'Switch the receiver to production',
    budget_mentioned: null,
    sentiment: 'positive',
  };
  return { ...done, summary };
}

/**
 * "Send test event" of the settings app: one delivery of a sample meeting to one active
 * endpoint, under the event name chosen (else the first it subscribed to), in that event's real
 * payload shape, signed and retried like any other.
 */
export async function sendTestEvent(
  db: Db,
  worker: DeliveryKick,
  accountId: string,
  endpointId: string,
  event?: WebhookEvent,
): Promise<{ deliveryId: string }> {
  const endpoint = await getEndpointOrThrow(db, accountId, endpointId);
  if (!endpoint.active) throw conflict('The endpoint is inactive: re-enable it before sending a test event');
  const label: WebhookEvent = event ?? endpoint.events[0] ?? 'meeting.completed';
  const now = new Date();
  const data = sampleEventData(label, now);
  const outbox = { id: randomUUID(), accountId, type: eventTypeOf(label), data, createdAt: now };
  const deliveryId = await db.transaction(async (tx) => {
    await tx.insert(events).values({ ...outbox, meetingId: null });
    const delivery = newDelivery(endpointId, outbox, label);
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
  await db.transaction(async (tx) => {
    await tx.insert(deliveries).values({
      id,
      endpointId: original.delivery.endpointId,
      eventId: original.delivery.eventId,
      event: original.delivery.event,
      payload: original.delivery.payload,
      nextAttemptAt: now,
      createdAt: now,
    });
    // A later Recover does not queue this event a second time.
    await tx.update(deliveries).set({ resentAs: id }).where(eq(deliveries.id, deliveryId));
  });
  worker.kick();
  return { deliveryId: id };
}
