import { z } from 'zod';
import { endTimeField, segmentFields } from '../segment-fields';
import type { Platform } from '../../domain';
import type { ListNotesQuery } from '../../notes/list-notes';
import { SummarySchema } from '../../notes/summary';
import {
  apiTimestamp,
  createdRange,
  dateTimeParam,
  enumParam,
  hasMoreField,
  isoDateTime,
  limitParam,
  MALFORMED,
  opaqueCursorParam,
  opaqueNextCursor,
  optionalText,
  readOpaqueCursor,
  requiredText,
} from '../../http/params';
import type { SearchQuery } from '../procedures/search';
import { EndpointActive, EndpointEvents, EndpointId, EndpointUrl } from '../webhook-params';
import { WEBHOOK_EVENTS } from '../../domain';
import { uuidPathParam } from '../../http/params';
import {
  API_TIMESTAMP_LENGTH,
  API_TIMESTAMP_PATTERN,
  INT32_MAX,
  MAX_ANSWER_STRING_LENGTH,
  MAX_QUERY_VALUE_LENGTH,
  MAX_TRANSCRIPT_SEGMENTS,
  MAX_WEBHOOK_ENDPOINTS,
  TITLE_MAX_LENGTH,
  UUID_LENGTH,
} from '../../openapi-bounds';

// Form B's wire shapes (docs/rules.md#fields-in-each-form, docs/rules.md#paging-through-notes).

/** The largest page of notes, of search results and of the delivery log (docs/rules.md#limits-on-input). */
const NOTES_LIMIT_MAX = 100;
const SEARCH_LIMIT_MAX = 20;
const DELIVERIES_LIMIT_MAX = 100;

export const PLATFORMS_B = ['meet', 'zoom', 'teams', 'phone'] as const;

export const SegmentB = z
  .object({ ...segmentFields, ...endTimeField })
  .meta({ id: 'TranscriptSegment', description: 'One segment of a transcript; sequence is 1-indexed.' });

export const NoteB = z
  .object({
    id: z.string().uuid().meta({ description: 'The UUID of the note.', maxLength: UUID_LENGTH }),
    title: z
      .string()
      .nullable()
      .meta({ description: 'Null when the meeting has no title.', maxLength: TITLE_MAX_LENGTH }),
    platform: z
      .enum(PLATFORMS_B)
      .meta({ description: 'Recordings from a microphone are reported as phone.' }),
    duration_seconds: z.number().int().meta({
      description: 'Length of the meeting in whole seconds.',
      format: 'int32',
      minimum: 0,
      maximum: INT32_MAX,
    }),
    started_at: apiTimestamp('When the meeting started'),
    ended_at: apiTimestamp('When the meeting ended'),
    status: z.literal('ready').meta({ description: 'Always ready: only finished notes are listed.' }),
    transcript: z
      .array(SegmentB)
      .meta({ description: 'The segments in order of sequence.', maxItems: MAX_TRANSCRIPT_SEGMENTS }),
    summary: SummarySchema.nullable().meta({ description: 'Null until the AI summary has been generated.' }),
  })
  .meta({ id: 'Note', description: 'A note with its transcript and AI summary.' });

export const NoteListB = z
  .object({
    data: z.array(NoteB).meta({ description: 'The page of notes, newest first.', maxItems: NOTES_LIMIT_MAX }),
    // A created_at the service wrote: toISOString, always the same length.
    next_cursor: z.iso
      .datetime()
      .meta({ maxLength: API_TIMESTAMP_LENGTH, pattern: API_TIMESTAMP_PATTERN })
      .nullable()
      .meta({
        description:
          'The created_at of the last note on the page (a date-time); pass as cursor. Null on the last page.',
      }),
    has_more: hasMoreField,
  })
  .meta({ id: 'NoteList', description: 'A page of notes.' });

// Form B has no microphone; such notes are phone notes, and the phone filter finds them.
export const PLATFORM_FILTER_B: Record<(typeof PLATFORMS_B)[number], Platform[]> = {
  meet: ['meet'],
  zoom: ['zoom'],
  teams: ['teams'],
  phone: ['phone', 'microphone'],
};

/** The list's filters, which a search takes too (docs/rules.md#paging-through-notes). */
const noteFiltersB = {
  platform: enumParam(PLATFORMS_B, 'platform')
    .meta({
      description: 'Only notes recorded on this platform; phone includes recordings from a microphone.',
    })
    .optional(),
  created_after: dateTimeParam('created_after', 'Only notes created at or after this time (inclusive).'),
  created_before: dateTimeParam('created_before', 'Only notes created at or before this time (inclusive).'),
};

/** The filters as a query; created_before is inclusive in Form B. */
function filtersOfB(
  input: {
    platform?: (typeof PLATFORMS_B)[number] | undefined;
    created_after?: string;
    created_before?: string;
  },
  ctx: z.RefinementCtx,
) {
  const range = createdRange(input, ctx, true);
  if (!range) return null;
  return { ...(input.platform && { platforms: PLATFORM_FILTER_B[input.platform] }), ...range };
}

export const listNotesInputB = z
  .object({
    limit: limitParam(NOTES_LIMIT_MAX, 20),
    cursor: z
      .string()
      .meta({
        description: 'The next_cursor of the previous page: an ISO 8601 date-time with Z or an offset.',
        format: 'date-time',
        // Any number of fractional digits is read: the request's length is the only bound.
        maxLength: MAX_QUERY_VALUE_LENGTH,
      })
      .optional(),
    ...noteFiltersB,
  })
  .transform((input, ctx): ListNotesQuery => {
    let after: Date | undefined;
    if (input.cursor !== undefined) {
      const parsed = isoDateTime('cursor').safeParse(input.cursor);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'cursor is malformed', params: MALFORMED });
        return z.NEVER;
      }
      after = new Date(parsed.data);
    }
    const filters = filtersOfB(input, ctx);
    if (!filters) return z.NEVER;
    return {
      limit: input.limit ?? 20,
      // created_at is distinct within an account, so the timestamp alone is an exact position.
      ...(after && { after: { createdAt: after } }),
      ...filters,
    };
  });

export const SearchResultsB = z
  .object({
    data: z
      .array(NoteB)
      .meta({ description: 'Notes ranked by how well their summary matches.', maxItems: SEARCH_LIMIT_MAX }),
  })
  .meta({ id: 'SearchResults', description: 'Notes whose summaries best match the query.' });

export const searchNotesInputB = z
  .object({
    q: requiredText('q').meta({
      description: 'A natural-language query, matched against meeting summaries; not blank.',
      minLength: 1,
      // Form B sets no length of its own: the request's length is the only bound.
      maxLength: MAX_QUERY_VALUE_LENGTH,
      pattern: '\\S',
    }),
    limit: limitParam(SEARCH_LIMIT_MAX, 5),
    ...noteFiltersB,
    speaker: optionalText('speaker', 'Only notes in which this person speaks: the whole name, case aside.'),
  })
  .transform((input, ctx): SearchQuery => {
    // The list's filters and rules.
    const filters = filtersOfB(input, ctx);
    if (!filters) return z.NEVER;
    return {
      q: input.q,
      limit: input.limit ?? 5,
      filters: { ...filters, ...(input.speaker && { speaker: input.speaker }) },
    };
  });

export const CreatedEndpointB = z
  .object({
    id: EndpointId,
    url: EndpointUrl,
    events: EndpointEvents,
    active: EndpointActive,
    created_at: apiTimestamp('When the endpoint was registered'),
    secret: z.string().meta({
      description: '64 hexadecimal characters: shown in this response only.',
      minLength: 64,
      maxLength: 64,
      pattern: '^[0-9a-f]{64}$',
    }),
  })
  .meta({ id: 'CreatedWebhookEndpoint', description: 'A new endpoint, with its signing secret.' });

export const EndpointB = CreatedEndpointB.omit({ secret: true }).meta({
  id: 'WebhookEndpoint',
  description: 'A registered webhook endpoint.',
});
export const EndpointListB = z
  .object({
    data: z
      .array(EndpointB)
      .meta({ description: 'The endpoints, newest first.', maxItems: MAX_WEBHOOK_ENDPOINTS }),
  })
  .meta({ id: 'WebhookEndpointList', description: 'Every webhook endpoint of the account.' });
export const DeletedEndpointB = z
  .object({ success: z.literal(true).meta({ description: 'Always true: the endpoint is gone.' }) })
  .meta({ id: 'DeletedWebhookEndpoint', description: 'The answer to a delete.' });

// The webhook envelope an attempt sent (server/webhooks/envelope.ts).
const DeliveryPayloadB = z
  .looseObject({
    event: z.enum(WEBHOOK_EVENTS).meta({ description: 'The event delivered.' }),
    created_at: apiTimestamp('When the event happened'),
    // The envelope's data keys (server/webhooks/envelope.ts); duration_seconds is the longest.
    data: z
      .record(z.string().meta({ maxLength: 'duration_seconds'.length }), z.unknown())
      .meta({ description: 'The meeting the event is about.' }),
  })
  .meta({
    id: 'WebhookPayload',
    description: 'The JSON object sent: the event envelope (event, created_at, data).',
  });

// One item of the delivery log (docs/rules.md#delivery-records).
export const DeliveryAttemptB = z
  .object({
    id: z.string().uuid().meta({ description: 'The UUID of the attempt.', maxLength: UUID_LENGTH }),
    delivery_id: z.string().uuid().meta({
      description: 'Stable across the retries of one delivery (X-Service-Delivery).',
      maxLength: UUID_LENGTH,
    }),
    event: z.enum(WEBHOOK_EVENTS).meta({ description: 'The event delivered.' }),
    // Stored in integer columns; an HTTP status has three digits.
    attempt: z.number().int().meta({
      description: 'Which attempt of the delivery, from 1.',
      format: 'int32',
      minimum: 1,
      maximum: INT32_MAX,
    }),
    status_code: z
      .number()
      .int()
      .meta({ format: 'int32', minimum: 0, maximum: 999 })
      .nullable()
      .meta({ description: "The endpoint's HTTP status; null when no answer arrived." }),
    success: z.boolean().meta({ description: 'Whether the endpoint answered 2xx.' }),
    // May quote what the network layer said: no bound of the service's own.
    error: z.string().nullable().meta({
      description: 'e.g. "timeout", "connection refused", "blocked: private address".',
      maxLength: MAX_ANSWER_STRING_LENGTH,
    }),
    duration_ms: z.number().int().meta({
      description: 'How long the attempt took, in milliseconds.',
      format: 'int32',
      minimum: 0,
      maximum: INT32_MAX,
    }),
    payload: DeliveryPayloadB,
    created_at: apiTimestamp('When the attempt was made'),
  })
  .meta({ id: 'DeliveryAttempt', description: 'One attempt to deliver an event to the endpoint.' });

export const DeliveryPageB = z
  .object({
    data: z
      .array(DeliveryAttemptB)
      .meta({ description: 'The page of attempts, newest first.', maxItems: DELIVERIES_LIMIT_MAX }),
    next_cursor: opaqueNextCursor,
    has_more: hasMoreField,
  })
  .meta({ id: 'DeliveryAttemptList', description: 'A page of delivery attempts.' });

export const listDeliveriesInputB = z
  .object({
    id: uuidPathParam,
    limit: limitParam(DELIVERIES_LIMIT_MAX, 25),
    cursor: opaqueCursorParam,
  })
  .transform((input, ctx) => {
    const after = readOpaqueCursor(input.cursor, ctx);
    if (after === null) return z.NEVER;
    return { id: input.id, limit: input.limit ?? 25, ...(after && { after }) };
  });
