import { z } from 'zod';
import type { Platform } from '../../domain';
import type { ListNotesQuery } from '../../notes/list-notes';
import { SummarySchema } from '../../notes/summary';
import {
  createdRange,
  dateTimeParam,
  enumParam,
  isoDateTime,
  limitParam,
  MALFORMED,
  requiredText,
} from '../../http/params';
import type { SearchQuery } from '../procedures/search';
import { EndpointEvents } from '../webhook-params';
import { decodeCursor } from '../../http/opaque-cursor';
import { uuidPathParam } from '../../http/params';

// Form B's wire shapes (SPEC 2.1, 2.2, 2.4, 4.1, 4.2; D5, D6).

export const PLATFORMS_B = ['meet', 'zoom', 'teams', 'phone'] as const;

export const SegmentB = z
  .object({
    sequence: z.number().int(),
    speaker: z.string(),
    content: z.string(),
    start_time: z.number(),
    end_time: z.number().nullable(),
  })
  .meta({ id: 'TranscriptSegment', description: 'One segment of a transcript; sequence is 1-indexed.' });

export const NoteB = z
  .object({
    id: z.string().uuid(),
    title: z.string().nullable(),
    platform: z
      .enum(PLATFORMS_B)
      .meta({ description: 'Recordings from a microphone are reported as phone.' }),
    duration_seconds: z.number().int(),
    started_at: z.string().meta({ description: 'ISO 8601 UTC, millisecond precision.' }),
    ended_at: z.string(),
    status: z.literal('ready'),
    transcript: z.array(SegmentB),
    summary: SummarySchema.nullable().meta({ description: 'Null until the AI summary has been generated.' }),
  })
  .meta({ id: 'Note' });

export const NoteListB = z
  .object({
    data: z.array(NoteB),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'The created_at of the last note on the page; pass as cursor.' }),
    has_more: z.boolean(),
  })
  .meta({ id: 'NoteList' });

// D6: Form B has no microphone; such notes are phone notes, and the phone filter finds them.
const PLATFORM_FILTER_B: Record<(typeof PLATFORMS_B)[number], Platform[]> = {
  meet: ['meet'],
  zoom: ['zoom'],
  teams: ['teams'],
  phone: ['phone', 'microphone'],
};

export const listNotesInputB = z
  .object({
    limit: limitParam(100, 20),
    cursor: z
      .string()
      .meta({ description: 'The next_cursor of the previous page (a timestamp).' })
      .optional(),
    platform: enumParam(PLATFORMS_B, 'platform').optional(),
    created_after: dateTimeParam('created_after', 'Only notes created at or after this time (inclusive).'),
    created_before: dateTimeParam('created_before', 'Only notes created at or before this time (inclusive).'),
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
    // SPEC 4.1: created_before is inclusive in Form B.
    const range = createdRange(input, ctx, true);
    if (!range) return z.NEVER;
    return {
      limit: input.limit ?? 20,
      // D5: created_at is distinct within an account, so the timestamp alone is an exact position.
      ...(after && { after: { createdAt: after } }),
      ...(input.platform && { platforms: PLATFORM_FILTER_B[input.platform] }),
      ...range,
    };
  });

export const SearchResultsB = z
  .object({ data: z.array(NoteB).meta({ description: 'Notes ranked by how well their summary matches.' }) })
  .meta({ id: 'SearchResults' });

export const searchNotesInputB = z
  .object({
    q: requiredText('q').meta({
      description: 'A natural-language query, matched against meeting summaries.',
    }),
    limit: limitParam(20, 5),
  })
  .transform((input): SearchQuery => ({ q: input.q, limit: input.limit ?? 5 }));

export const CreatedEndpointB = z
  .object({
    id: z.string().uuid(),
    url: z.string(),
    events: EndpointEvents,
    active: z.boolean(),
    created_at: z.string(),
    secret: z.string().meta({ description: '64 hexadecimal characters: shown in this response only.' }),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });

export const EndpointB = CreatedEndpointB.omit({ secret: true }).meta({ id: 'WebhookEndpoint' });
export const EndpointListB = z.object({ data: z.array(EndpointB) }).meta({ id: 'WebhookEndpointList' });
export const DeletedEndpointB = z.object({ success: z.literal(true) });

// D13
export const DeliveryAttemptB = z
  .object({
    id: z.string().uuid(),
    delivery_id: z
      .string()
      .uuid()
      .meta({ description: 'Stable across the retries of one delivery (X-Service-Delivery).' }),
    event: z.string(),
    attempt: z.number().int(),
    status_code: z.number().int().nullable(),
    success: z.boolean(),
    error: z
      .string()
      .nullable()
      .meta({ description: 'e.g. "timeout", "connection refused", "blocked: private address".' }),
    duration_ms: z.number().int(),
    payload: z.record(z.string(), z.unknown()).meta({ description: 'The JSON object sent.' }),
    created_at: z.string(),
  })
  .meta({ id: 'DeliveryAttempt' });

export const DeliveryPageB = z
  .object({ data: z.array(DeliveryAttemptB), next_cursor: z.string().nullable(), has_more: z.boolean() })
  .meta({ id: 'DeliveryAttemptList' });

export const listDeliveriesInputB = z
  .object({
    id: uuidPathParam,
    limit: limitParam(100, 25),
    cursor: z.string().meta({ description: 'The next_cursor of the previous page.' }).optional(),
  })
  .transform((input, ctx) => {
    const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    if (after === null) {
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'cursor is malformed', params: MALFORMED });
      return z.NEVER;
    }
    return { id: input.id, limit: input.limit ?? 25, ...(after && { after }) };
  });
