import { z } from 'zod';
import { segmentFields } from '../segment-fields';
import { PLATFORMS } from '../../domain';
import type { ListNotesQuery } from '../../notes/list-notes';
import {
  apiTimestamp,
  createdRange,
  dateTimeParam,
  enumParam,
  hasMoreField,
  limitParam,
  opaqueCursorParam,
  opaqueNextCursor,
  optionalText,
  readOpaqueCursor,
  requiredText,
} from '../../http/params';
import type { SearchQuery } from '../procedures/search';
import { EndpointActive, EndpointEvents, EndpointId, EndpointUrl } from '../webhook-params';
import {
  INT32_MAX,
  LANGUAGE_MAX_LENGTH,
  LANGUAGE_MIN_LENGTH,
  MAX_ANSWER_ARRAY_ITEMS,
  MAX_ANSWER_STRING_LENGTH,
  MAX_TRANSCRIPT_SEGMENTS,
  TITLE_MAX_LENGTH,
  MAX_WEBHOOK_ENDPOINTS,
  UUID_LENGTH,
} from '../../openapi-bounds';
import { SNIPPET_MAX_CHARS } from '../../search/make-snippet';

// Form A's wire shapes (docs/rules.md#fields-in-each-form, docs/rules.md#paging-through-notes).

/** The largest page of notes and of search hits (docs/rules.md#limits-on-input). */
const NOTES_LIMIT_MAX = 100;
const SEARCH_LIMIT_MAX = 50;

export const SegmentA = z
  .object({ ...segmentFields })
  .meta({ id: 'TranscriptSegment', description: 'One segment of a transcript; sequence is 1-indexed.' });

const noteFields = {
  id: z.string().uuid().meta({ description: 'The UUID of the note.', maxLength: UUID_LENGTH }),
  title: z.string().meta({
    description: 'Empty string when the meeting has no title.',
    maxLength: TITLE_MAX_LENGTH,
  }),
  platform: z.enum(PLATFORMS).meta({ description: 'Where the meeting was recorded.' }),
  duration_seconds: z.number().int().meta({
    description: 'Length of the meeting in whole seconds.',
    format: 'int32',
    minimum: 0,
    maximum: INT32_MAX,
  }),
  created_at: apiTimestamp('When the note was created'),
  ended_at: apiTimestamp('When the meeting ended'),
};

export const NoteListItemA = z
  .object({
    ...noteFields,
    transcript: z
      .array(SegmentA)
      .meta({ description: 'The segments in order of sequence.', maxItems: MAX_TRANSCRIPT_SEGMENTS }),
  })
  .meta({ id: 'NoteListItem', description: 'A note as it appears in a list.' });

export const NoteA = z
  .object({
    ...noteFields,
    language: z.string().meta({
      description: 'Language of the transcript, e.g. "en".',
      minLength: LANGUAGE_MIN_LENGTH,
      maxLength: LANGUAGE_MAX_LENGTH,
    }),
    transcript: z
      .array(SegmentA)
      .meta({ description: 'The segments in order of sequence.', maxItems: MAX_TRANSCRIPT_SEGMENTS }),
    // The recorder's text or one rendered from a model's summary: no bound of the service's own.
    summary: z.string().nullable().meta({
      description: 'Plain-text summary; null until one exists.',
      maxLength: MAX_ANSWER_STRING_LENGTH,
    }),
    action_items: z
      .array(
        z
          .object({
            text: z
              .string()
              .meta({ description: 'What is to be done.', maxLength: MAX_ANSWER_STRING_LENGTH }),
            assignee: z.string().nullable().meta({
              description: 'Who is to do it; null when nobody was named.',
              maxLength: MAX_ANSWER_STRING_LENGTH,
            }),
          })
          .meta({ id: 'ActionItem', description: 'A task agreed in the meeting.' }),
      )
      .meta({
        description: 'Tasks from the summary; empty until a summary exists.',
        maxItems: MAX_ANSWER_ARRAY_ITEMS,
      }),
  })
  .meta({ id: 'Note', description: 'A single note with language, summary and action items.' });

export const NoteListA = z
  .object({
    data: z
      .array(NoteListItemA)
      .meta({ description: 'The page of notes, newest first.', maxItems: NOTES_LIMIT_MAX }),
    next_cursor: opaqueNextCursor,
    has_more: hasMoreField,
  })
  .meta({ id: 'NoteList', description: 'A page of notes.' });

/** The list's filters, which a search takes too (docs/rules.md#paging-through-notes). */
const noteFiltersA = {
  platform: enumParam(PLATFORMS, 'platform')
    .meta({ description: 'Only notes recorded on this platform.' })
    .optional(),
  created_after: dateTimeParam('created_after', 'Only notes created at or after this time (inclusive).'),
  created_before: dateTimeParam('created_before', 'Only notes created before this time (exclusive).'),
};

/** The filters as a query; created_before is exclusive in Form A. */
function filtersOfA(
  input: {
    platform?: (typeof PLATFORMS)[number] | undefined;
    created_after?: string;
    created_before?: string;
  },
  ctx: z.RefinementCtx,
) {
  const range = createdRange(input, ctx, false);
  if (!range) return null;
  return { ...(input.platform && { platforms: [input.platform] }), ...range };
}

export const listNotesInputA = z
  .object({
    limit: limitParam(NOTES_LIMIT_MAX, 20),
    cursor: opaqueCursorParam,
    ...noteFiltersA,
  })
  .transform((input, ctx): ListNotesQuery => {
    const after = readOpaqueCursor(input.cursor, ctx);
    if (after === null) return z.NEVER;
    const filters = filtersOfA(input, ctx);
    if (!filters) return z.NEVER;
    return { limit: input.limit ?? 20, ...(after && { after }), ...filters };
  });

export const SearchHitA = z
  .object({
    note_id: z
      .string()
      .uuid()
      .meta({ description: 'The UUID of the note that matched.', maxLength: UUID_LENGTH }),
    title: z.string().meta({
      description: 'Empty string when the meeting has no title.',
      maxLength: TITLE_MAX_LENGTH,
    }),
    snippet: z.string().meta({
      description: `At most ${SNIPPET_MAX_CHARS} characters of the matching passage, around its best-matching part.`,
      maxLength: SNIPPET_MAX_CHARS,
    }),
    score: z.number().meta({
      description:
        "Similarity to the query: the cosine similarity of the embeddings, raised toward 1 when the passage holds the query's words; higher ranks first.",
    }),
    start_time: z.number().meta({
      description: 'Seconds from the start of the recording to the segment that matched.',
      minimum: 0,
      maximum: INT32_MAX,
    }),
  })
  .meta({ id: 'SearchHit', description: 'A transcript passage that matches the query.' });

export const SearchResultsA = z
  .object({
    data: z.array(SearchHitA).meta({ description: 'The best matches first.', maxItems: SEARCH_LIMIT_MAX }),
  })
  .meta({ id: 'SearchResults', description: 'Passages ranked by similarity to the query.' });

export const searchNotesInputA = z
  .object({
    q: requiredText('q')
      .refine((q) => q.length <= 256, { error: 'q must be at most 256 characters' })
      .meta({
        description: 'What to look for, in your words: not blank, at most 256 characters after trimming.',
        minLength: 1,
        maxLength: 256,
        pattern: '\\S',
      }),
    limit: limitParam(SEARCH_LIMIT_MAX, 10),
    ...noteFiltersA,
    speaker: optionalText('speaker', 'Only moments where this person speaks: the whole name, case aside.'),
  })
  .transform((input, ctx): SearchQuery => {
    // The list's filters and rules.
    const filters = filtersOfA(input, ctx);
    if (!filters) return z.NEVER;
    return {
      q: input.q,
      limit: input.limit ?? 10,
      filters: { ...filters, ...(input.speaker && { speaker: input.speaker }) },
    };
  });

export const CreatedEndpointA = z
  .object({
    id: EndpointId,
    url: EndpointUrl,
    events: EndpointEvents,
    secret: z.string().meta({
      description: 'whsec_… signing secret: shown in this response only.',
      minLength: 50,
      maxLength: 50,
      pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    }),
    created_at: apiTimestamp('When the endpoint was registered'),
    active: EndpointActive,
  })
  .meta({ id: 'CreatedWebhookEndpoint', description: 'A new endpoint, with its signing secret.' });

export const EndpointA = CreatedEndpointA.omit({ secret: true }).meta({
  id: 'WebhookEndpoint',
  description: 'A registered webhook endpoint.',
});
export const EndpointListA = z
  .object({
    data: z
      .array(EndpointA)
      .meta({ description: 'The endpoints, newest first.', maxItems: MAX_WEBHOOK_ENDPOINTS }),
  })
  .meta({ id: 'WebhookEndpointList', description: 'Every webhook endpoint of the account.' });
