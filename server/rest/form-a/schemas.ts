import { z } from 'zod';
import { PLATFORMS } from '../../domain';
import type { ListNotesQuery } from '../../notes/list-notes';
import {
  createdRange,
  dateTimeParam,
  enumParam,
  limitParam,
  MALFORMED,
  requiredText,
} from '../../http/params';
import type { SearchQuery } from '../procedures/search';
import { EndpointEvents } from '../webhook-params';
import { decodeCursor } from '../../http/opaque-cursor';

// Form A's wire shapes (SPEC 2.1-2.3, 4.1-4.3; D5, D6).

export const SegmentA = z
  .object({
    sequence: z.number().int(),
    speaker: z.string(),
    content: z.string(),
    start_time: z.number(),
  })
  .meta({ id: 'TranscriptSegment', description: 'One segment of a transcript; sequence is 1-indexed.' });

const noteFields = {
  id: z.string().uuid(),
  title: z.string().meta({ description: 'Empty string when the meeting has no title.' }),
  platform: z.enum(PLATFORMS),
  duration_seconds: z.number().int(),
  created_at: z.string().meta({ description: 'ISO 8601 UTC, millisecond precision.' }),
  ended_at: z.string(),
};

export const NoteListItemA = z
  .object({ ...noteFields, transcript: z.array(SegmentA) })
  .meta({ id: 'NoteListItem', description: 'A note as it appears in a list.' });

export const NoteA = z
  .object({
    ...noteFields,
    language: z.string(),
    transcript: z.array(SegmentA),
    summary: z.string().nullable().meta({ description: 'Plain-text summary; null until one exists.' }),
    action_items: z.array(
      z.object({ text: z.string(), assignee: z.string().nullable() }).meta({ id: 'ActionItem' }),
    ),
  })
  .meta({ id: 'Note', description: 'A single note with language, summary and action items.' });

export const NoteListA = z
  .object({
    data: z.array(NoteListItemA),
    next_cursor: z.string().nullable().meta({ description: 'Opaque; pass as cursor for the next page.' }),
    has_more: z.boolean(),
  })
  .meta({ id: 'NoteList' });

export const listNotesInputA = z
  .object({
    limit: limitParam(100, 20),
    cursor: z.string().meta({ description: 'The opaque next_cursor of the previous page.' }).optional(),
    platform: enumParam(PLATFORMS, 'platform').optional(),
    created_after: dateTimeParam('created_after', 'Only notes created at or after this time (inclusive).'),
    created_before: dateTimeParam('created_before', 'Only notes created before this time (exclusive).'),
  })
  .transform((input, ctx): ListNotesQuery => {
    const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    if (after === null) {
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'cursor is malformed', params: MALFORMED });
      return z.NEVER;
    }
    // SPEC 4.1: created_before is exclusive in Form A.
    const range = createdRange(input, ctx, false);
    if (!range) return z.NEVER;
    return {
      limit: input.limit ?? 20,
      ...(after && { after }),
      ...(input.platform && { platforms: [input.platform] }),
      ...range,
    };
  });

export const SearchHitA = z
  .object({
    note_id: z.string().uuid(),
    title: z.string().meta({ description: 'Empty string when the meeting has no title.' }),
    snippet: z.string().meta({
      description: 'At most 300 characters of the matching passage, around its best-matching part.',
    }),
    score: z.number().meta({ description: 'Cosine similarity of the embeddings; higher ranks first.' }),
    start_time: z
      .number()
      .meta({ description: 'Seconds from the start of the recording to the segment that matched.' }),
  })
  .meta({ id: 'SearchHit' });

export const SearchResultsA = z.object({ data: z.array(SearchHitA) }).meta({ id: 'SearchResults' });

export const searchNotesInputA = z
  .object({
    q: requiredText('q')
      .refine((q) => q.length <= 256, { error: 'q must be at most 256 characters' })
      .meta({ description: 'What to look for, in your words (at most 256 characters).' }),
    limit: limitParam(50, 10),
  })
  .transform((input): SearchQuery => ({ q: input.q, limit: input.limit ?? 10 }));

export const CreatedEndpointA = z
  .object({
    id: z.string().uuid(),
    url: z.string(),
    events: EndpointEvents,
    secret: z.string().meta({ description: 'whsec_… signing secret: shown in this response only.' }),
    created_at: z.string(),
    active: z.boolean(),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });

export const EndpointA = CreatedEndpointA.omit({ secret: true }).meta({ id: 'WebhookEndpoint' });
export const EndpointListA = z.object({ data: z.array(EndpointA) }).meta({ id: 'WebhookEndpointList' });
