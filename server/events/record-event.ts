import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/client';
import type { EventType } from '../domain';
import type { Segment } from '../notes/note-record';
import type { Summary } from '../notes/summary';
import { buildEventData, type EventSubject } from '../webhooks/envelope';
import { recordEventWithDeliveries } from '../webhooks/fan-out-event';

/**
 * Writes an event to the outbox and turns it into webhook deliveries. Call it inside the
 * transaction that makes the change, so the event and its deliveries exist if and only if the
 * change was committed.
 */
export async function recordEvent(
  tx: Queryable,
  input: {
    type: EventType;
    meeting: EventSubject & { accountId: string };
    transcript?: Segment[];
    summary?: Summary | null;
    at?: Date;
  },
): Promise<string> {
  const event = {
    id: randomUUID(),
    accountId: input.meeting.accountId,
    type: input.type,
    data: buildEventData(input.meeting, input.transcript ?? [], input.summary ?? null),
    createdAt: input.at ?? new Date(),
  };
  await recordEventWithDeliveries(tx, { ...event, meetingId: input.meeting.id });
  return event.id;
}
