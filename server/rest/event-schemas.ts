import { z } from 'zod';
import { eventTypeOf, PLATFORMS, WEBHOOK_EVENTS, type WebhookEvent } from '../domain';
import type { EventPage, EventRecord, ListEventsQuery } from '../events/list-events';
import { encodeCursor } from '../http/opaque-cursor';
import {
  apiTimestamp,
  createdRange,
  dateTimeParam,
  enumParam,
  hasMoreField,
  limitParam,
  opaqueCursorParam,
  opaqueNextCursor,
  readOpaqueCursor,
} from '../http/params';
import { presentSummary, SummarySchema } from '../notes/summary';
import { INT32_MAX, MAX_TRANSCRIPT_SEGMENTS, TITLE_MAX_LENGTH, UUID_LENGTH } from '../openapi-bounds';
import type { EventData } from '../webhooks/envelope';
import { endTimeField, segmentFields } from './segment-fields';

// The events as webhooks deliver them and the Events API lists them (docs/rules.md#event-payloads,
// docs/rules.md#events-api). The payload is the same in both forms, so both forms' documents
// describe it with these schemas, and both forms' presenters are these.

/** The largest page of events. */
const EVENTS_LIMIT_MAX = 100;

export const EventSegment = z
  .object({ ...segmentFields, ...endTimeField })
  .meta({ id: 'EventTranscriptSegment', description: 'One segment of the transcript an event carries.' });

export const EventDataSchema = z
  .object({
    id: z
      .string()
      .uuid()
      .meta({ description: 'The UUID of the meeting (the note).', maxLength: UUID_LENGTH }),
    title: z
      .string()
      .nullable()
      .meta({ description: 'As stored: null when the meeting has no title.', maxLength: TITLE_MAX_LENGTH }),
    platform: z
      .enum(PLATFORMS)
      .meta({ description: 'Where the meeting was recorded; every platform, in both forms.' }),
    duration_seconds: z
      .number()
      .int()
      .meta({ format: 'int32', minimum: 0, maximum: INT32_MAX })
      .nullable()
      .meta({ description: 'Length in whole seconds; null until the transcript is stored.' }),
    started_at: apiTimestamp('When the meeting started'),
    ended_at: apiTimestamp('When the meeting ended')
      .nullable()
      .meta({ description: 'When the meeting ended; null until the transcript is stored.' }),
    transcript: z.array(EventSegment).meta({
      description: 'The segments in order of sequence; empty for meeting.started.',
      maxItems: MAX_TRANSCRIPT_SEGMENTS,
    }),
    summary: SummarySchema.nullable().meta({ description: 'The summary; null except in summary.ready.' }),
  })
  .meta({
    id: 'EventData',
    description: 'The meeting the event is about, as it was when the event happened.',
  });

export const EventSchema = z
  .object({
    id: z.string().uuid().meta({
      description: 'The UUID of the event: every delivery of it carries it in X-Service-Event-Id.',
      maxLength: UUID_LENGTH,
    }),
    event: z.enum(WEBHOOK_EVENTS).meta({ description: 'What happened.' }),
    created_at: apiTimestamp('When the event happened'),
    data: EventDataSchema,
  })
  .meta({
    id: 'Event',
    description: "An event of the account's meetings: the webhook envelope with the event's id.",
  });

export const EventListSchema = z
  .object({
    data: z
      .array(EventSchema)
      .meta({ description: 'The page of events, newest first.', maxItems: EVENTS_LIMIT_MAX }),
    next_cursor: opaqueNextCursor,
    has_more: hasMoreField,
  })
  .meta({ id: 'EventList', description: 'A page of events.' });

/** A list request: the query, and the name to label events with (an alias asked for by `type`). */
export type ListEventsRequest = ListEventsQuery & { label?: WebhookEvent };

/**
 * GET /v1/events' query. Events of an account can share a created_at, so both forms page with the
 * opaque cursor (a timestamp alone would skip or repeat one); created_before is inclusive where
 * the form's note list has it inclusive (Form B).
 */
export const listEventsInput = (beforeInclusive: boolean) =>
  z
    .object({
      limit: limitParam(EVENTS_LIMIT_MAX, 20),
      cursor: opaqueCursorParam,
      type: enumParam(WEBHOOK_EVENTS, 'type')
        .meta({
          description:
            'Only events of this type. meeting.completed is another name of meeting.transcribed: either lists those events, labelled with the name asked for.',
        })
        .optional(),
      created_after: dateTimeParam(
        'created_after',
        'Only events that happened at or after this time (inclusive).',
      ),
      created_before: dateTimeParam(
        'created_before',
        `Only events that happened before this time (${beforeInclusive ? 'inclusive' : 'exclusive'}).`,
      ),
    })
    .transform((input, ctx): ListEventsRequest => {
      const after = readOpaqueCursor(input.cursor, ctx);
      if (after === null) return z.NEVER;
      const range = createdRange(input, ctx, beforeInclusive);
      if (!range) return z.NEVER;
      return {
        limit: input.limit ?? 20,
        ...(after && { after }),
        ...(input.type && { type: eventTypeOf(input.type), label: input.type }),
        ...range,
      };
    });

/** The envelope's data field by field in the schema's order (jsonb keeps its own key order). */
function presentEventData(d: EventData): z.input<typeof EventDataSchema> {
  return {
    id: d.id,
    title: d.title,
    platform: d.platform,
    duration_seconds: d.duration_seconds,
    started_at: d.started_at,
    ended_at: d.ended_at,
    transcript: d.transcript.map((s) => ({
      sequence: s.sequence,
      speaker: s.speaker,
      content: s.content,
      start_time: s.start_time,
      end_time: s.end_time,
    })),
    summary: d.summary && presentSummary(d.summary),
  };
}

/** An event as the webhooks carried it, labelled `label` (its own type unless an alias was asked for). */
export function presentEvent(e: EventRecord, label: WebhookEvent = e.type): z.input<typeof EventSchema> {
  return { id: e.id, event: label, created_at: e.createdAt.toISOString(), data: presentEventData(e.data) };
}

export function presentEventList(page: EventPage, label?: WebhookEvent): z.input<typeof EventListSchema> {
  const last = page.events.at(-1);
  return {
    data: page.events.map((e) => presentEvent(e, label)),
    next_cursor: page.hasMore && last ? encodeCursor(last) : null,
    has_more: page.hasMore,
  };
}
