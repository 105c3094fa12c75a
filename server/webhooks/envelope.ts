import type { Platform, WebhookEvent } from '../domain';
import type { Segment } from '../notes/note-record';
import type { Summary } from '../notes/summary';

// The webhook envelope: { event, created_at, data } (docs/rules.md#event-payloads). An event's data is built once,
// when the event is recorded (server/events), and every delivery of it sends the same bytes.

/** The envelope's data object, the same for both forms: full platform enum, title as stored. */
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

/** The meeting an event is about, as the meetings table holds it. */
export interface EventSubject {
  id: string;
  title: string | null;
  platform: Platform;
  startedAt: Date;
  endedAt: Date | null;
  durationSeconds: number | null;
}

export function buildEventData(
  meeting: EventSubject,
  transcript: readonly Segment[],
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

/** The envelope, serialised once as compact JSON; every attempt sends these bytes. */
export function serializeEnvelope(event: WebhookEvent, createdAt: Date, data: unknown): string {
  return JSON.stringify({ event, created_at: createdAt.toISOString(), data });
}
