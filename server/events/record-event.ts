import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/client';
import { events, type EventType, type Platform } from '../db/schema';
import type { Segment } from '../notes/note-record';
import type { Summary } from '../notes/summary';
import { fanOutEvent } from '../webhooks/fan-out-event';

/** The envelope's data object of SPEC 6.2 as D9 fixes it: full platform enum, title as stored. */
export interface EventData {
  id: string;
  title: string | null;
  platform: Platform;
  duration_seconds: number | null;
  started_at: string;
  ended_at: string | null;
  transcript: {
    sequence: number;
    speaker: string;
    content: string;
    start_time: number;
    end_time: number | null;
  }[];
  summary: Summary | null;
}

export interface EventSubject {
  id: string;
  accountId: string;
  title: string | null;
  platform: Platform;
  startedAt: Date;
  endedAt: Date | null;
  durationSeconds: number | null;
}

export function buildEventData(
  meeting: EventSubject,
  transcript: Segment[],
  summary: Summary | null,
): EventData {
  return {
    id: meeting.id,
    title: meeting.title,
    platform: meeting.platform,
    duration_seconds: meeting.durationSeconds,
    started_at: meeting.startedAt.toISOString(),
    ended_at: meeting.endedAt?.toISOString() ?? null,
    transcript: transcript.map((s) => ({
      sequence: s.sequence,
      speaker: s.speaker,
      content: s.content,
      start_time: s.startTime,
      end_time: s.endTime,
    })),
    summary,
  };
}

/**
 * Writes an event to the outbox. Call it inside the transaction that makes the change, so the
 * event exists if and only if the change was committed.
 */
export async function recordEvent(
  tx: Queryable,
  input: {
    type: EventType;
    meeting: EventSubject;
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
  await tx.insert(events).values({ ...event, meetingId: input.meeting.id, fannedOutAt: event.createdAt });
  await fanOutEvent(tx, event);
  return event.id;
}
