import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Db } from '../db/client';
import { AppError } from '../errors';
import { decodeCursor, encodeCursor } from '../http/opaque-cursor';
import { isoDateTime } from '../http/params';
import { unstorableInputError } from '../http/storable-input';
import { toAppError } from '../http/to-app-error';
import { getNoteOrThrow } from '../notes/get-note';
import { listActionItems } from '../notes/list-action-items';
import { listNotes } from '../notes/list-notes';
import type { NoteRecord } from '../notes/note-record';
import { renderSummaryText } from '../notes/summary';
import type { NotesVocabulary } from '../rest/forms';
import { searchPassages } from '../search/search-passages';
import type { SearchFilters } from '../notes/note-filters';
import type { Services } from '../services';
import { BOUNDS, clip, clipNullable, firstItems, MAX_RESULT_CHARS } from './result-bounds';

// The MCP server's tools (docs/mcp.md#tools): the account's meetings for an AI agent, in the
// words of the key's form (its platform names, its date-range rule). Each answers MCP content
// with structuredContent that its output schema describes; every failure is a tool error the
// model can read, never a transport error.

/** What a tool call runs with: the caller's account and the key's form. */
export interface ToolContext {
  db: Db;
  services: Pick<Services, 'embedder' | 'exactSearchMaxRows'>;
  accountId: string;
  vocabulary: NotesVocabulary;
  requestId: string;
}

export const SEARCH_LIMIT_MAX = 20;
export const LIST_LIMIT_MAX = 50;
export const ACTION_ITEMS_LIMIT_MAX = 50;
export const TRANSCRIPT_LIMIT_MAX = 200;
const QUERY_MAX_CHARS = 256;

const iso = (d: Date) => d.toISOString();

// ---- Inputs -------------------------------------------------------------------------------

/**
 * An instant as the list's filters take it. Its JSON Schema says `format: date-time` only: zod's
 * own pattern for it is 400 characters a model would read on every tools/list.
 */
const dateBound = (name: string, what: string) => {
  const instant = isoDateTime(name);
  return z
    .string()
    .superRefine((value, ctx) => {
      const parsed = instant.safeParse(value);
      if (!parsed.success)
        for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
    })
    .meta({ format: 'date-time', description: what })
    .optional();
};

/** The list's filters, in the key's form's words. */
function noteFilterShape(vocabulary: NotesVocabulary) {
  const before = vocabulary.createdBeforeInclusive ? 'at or before (inclusive)' : 'before (exclusive)';
  return {
    created_after: dateBound(
      'created_after',
      'Only meetings recorded at or after this instant (inclusive), as ISO 8601 with Z or an offset, e.g. 2026-03-01T00:00:00Z.',
    ),
    created_before: dateBound(
      'created_before',
      `Only meetings recorded ${before} this instant, as ISO 8601 with Z or an offset.`,
    ),
    platform: z.enum(vocabulary.platforms).describe('Only meetings recorded on this platform.').optional(),
  };
}

type FilterArgs = { created_after?: string; created_before?: string; platform?: string };

/** The filters as the search and the list take them; a reversed range is the caller's mistake. */
function filtersOf(args: FilterArgs, vocabulary: NotesVocabulary): SearchFilters {
  const from = args.created_after ? new Date(args.created_after) : undefined;
  const before = args.created_before ? new Date(args.created_before) : undefined;
  if (from && before && from > before)
    throw new AppError('validation_error', 'created_after must not be later than created_before');
  return {
    ...(args.platform && { platforms: vocabulary.platformsOf(args.platform) }),
    ...(from && { createdFrom: from }),
    ...(before && { createdBefore: { at: before, inclusive: vocabulary.createdBeforeInclusive } }),
  };
}

const text = (name: string, max: number, what: string) =>
  z
    .string()
    .trim()
    .min(1, `${name} must not be blank`)
    .max(max, `${name} must be at most ${max} characters`)
    .describe(what);

const limit = (max: number, fallback: number, what: string) =>
  z.number().int().min(1).max(max).describe(`${what}, 1 to ${max} (default ${fallback}).`).optional();

const cursorArg = z
  .string()
  .max(200)
  .describe('The next_cursor of the previous call, to read the next page.')
  .optional();

// ---- Outputs ------------------------------------------------------------------------------

const meetingId = z.string().describe('The meeting id: pass it to get_meeting.');
const title = z.string().nullable().describe('The meeting title; null when it has none.');
const date = z.string().describe('When the meeting began, ISO 8601 in UTC.');
const nextCursor = z
  .string()
  .nullable()
  .describe('Pass as cursor to read the next page; null when this is the last page.');

const SearchOutput = z.object({
  results: z
    .array(
      z.object({
        meeting_id: meetingId,
        title,
        date,
        speaker: z.string().describe('Who speaks at this moment.'),
        start_time: z.number().describe('Seconds from the start of the recording to this moment.'),
        snippet: z.string().describe('The words around the moment.'),
        score: z.number().describe('Similarity to the query; higher ranks first.'),
      }),
    )
    .describe('The best moments first.'),
});

const ActionItem = z.object({
  task: z.string(),
  owner: z.string().nullable().describe('Who is to do it; null when nobody was named.'),
  deadline: z.string().nullable().describe('When it is due, as said in the meeting; null when not said.'),
});

const MeetingOutput = z.object({
  id: meetingId,
  title,
  date,
  ended_at: z.string().describe('When the meeting ended, ISO 8601 in UTC.'),
  duration_seconds: z.number(),
  platform: z.string(),
  language: z.string(),
  participants: z
    .array(z.string())
    .describe("The summary's participants, or else the transcript's speakers."),
  summary: z.string().nullable().describe('What the meeting was about and decided; null until summarised.'),
  decisions: z.array(z.string()),
  action_items: z.array(ActionItem),
  next_step: z.string().nullable(),
  transcript: z
    .object({
      segments: z.array(
        z.object({
          sequence: z.number(),
          speaker: z.string(),
          start_time: z.number().describe('Seconds from the start of the recording.'),
          text: z.string(),
        }),
      ),
      offset: z.number().describe('The index of the first segment on this page, from 0.'),
      total_segments: z.number(),
      next_offset: z
        .number()
        .nullable()
        .describe('Pass as transcript_offset to read on; null when the transcript ends on this page.'),
    })
    .optional()
    .describe('A page of the transcript, when include_transcript was true.'),
  truncated: z
    .boolean()
    .describe('True when a text or list was shortened to keep the result small (see docs/mcp.md).'),
});

const ListOutput = z.object({
  meetings: z.array(
    z.object({
      id: meetingId,
      title,
      date,
      duration_seconds: z.number(),
      platform: z.string(),
      summary: z
        .string()
        .nullable()
        .describe(`The summary's first ${BOUNDS.summaryPreview} characters; null until summarised.`),
    }),
  ),
  next_cursor: nextCursor,
});

const ActionItemsOutput = z.object({
  action_items: z.array(
    ActionItem.extend({
      meeting_id: meetingId,
      meeting_title: title,
      meeting_date: date,
    }),
  ),
  next_cursor: nextCursor,
});

// ---- Results ------------------------------------------------------------------------------

function result<T extends Record<string, unknown>>(structured: T): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A failure as a tool error: what the model can act on, never a stack trace. */
function toolError(err: unknown, context: ToolContext, tool: string): CallToolResult {
  const appError = toAppError(err, { requestId: context.requestId, method: 'MCP', path: tool });
  return { content: [{ type: 'text', text: appError.message }], isError: true };
}

const run =
  <A>(context: ToolContext, tool: string, answer: (args: A) => Promise<Record<string, unknown>>) =>
  async (args: A): Promise<CallToolResult> => {
    try {
      // Text PostgreSQL refuses (NUL, unpaired surrogates) is the caller's mistake, not a fault.
      const unstorable = unstorableInputError(args);
      if (unstorable) throw unstorable.cause;
      return result(await answer(args));
    } catch (err) {
      return toolError(err, context, tool);
    }
  };

function summaryText(note: NoteRecord): string | null {
  if (note.summaryText) return note.summaryText;
  return note.summary ? renderSummaryText(note.summary) : null;
}

/** A meeting with a page of its transcript, within MAX_RESULT_CHARS. */
export function presentMeeting(
  note: NoteRecord,
  vocabulary: NotesVocabulary,
  transcript?: { offset: number; limit: number },
) {
  const cut = { truncated: false };
  const s = note.summary;
  const speakers = [...new Set(note.transcript.map((t) => t.speaker))];
  const meeting: z.infer<typeof MeetingOutput> = {
    id: note.id,
    title: note.title,
    date: iso(note.startedAt),
    ended_at: iso(note.endedAt),
    duration_seconds: note.durationSeconds,
    platform: vocabulary.presentPlatform(note.platform),
    language: note.language,
    participants: firstItems(
      s?.participants.length ? s.participants : speakers,
      BOUNDS.participants,
      cut,
    ).map((p) => clip(p, BOUNDS.name, cut)),
    summary: clipNullable(summaryText(note), BOUNDS.summary, cut),
    decisions: firstItems(s?.decisions ?? [], BOUNDS.items, cut).map((d) => clip(d, BOUNDS.item, cut)),
    action_items: firstItems(s?.action_items ?? [], BOUNDS.items, cut).map((a) => ({
      task: clip(a.task, BOUNDS.item, cut),
      owner: clipNullable(a.owner, BOUNDS.name, cut),
      deadline: clipNullable(a.deadline, BOUNDS.deadline, cut),
    })),
    next_step: clipNullable(s?.next_step ?? null, BOUNDS.item, cut),
    truncated: false,
  };
  if (transcript) {
    const total = note.transcript.length;
    const offset = Math.min(transcript.offset, total);
    const page: z.infer<typeof MeetingOutput>['transcript'] & object = {
      segments: [],
      offset,
      total_segments: total,
      next_offset: null,
    };
    // The page stops at its limit, or before the segment that would take the result past the
    // bound (with room left for next_offset's digits).
    let room = MAX_RESULT_CHARS - JSON.stringify({ ...meeting, transcript: page }).length - 32;
    let i = offset;
    for (; i < total && i < offset + transcript.limit; i++) {
      const t = note.transcript[i];
      if (!t) break;
      const segment = {
        sequence: t.sequence,
        speaker: clip(t.speaker, BOUNDS.name, cut),
        start_time: t.startTime,
        text: clip(t.content, BOUNDS.segment, cut),
      };
      const size = JSON.stringify(segment).length + 1;
      if (size > room) break;
      room -= size;
      page.segments.push(segment);
    }
    page.next_offset = i < total ? i : null;
    meeting.transcript = page;
  }
  meeting.truncated = cut.truncated;
  return meeting;
}

/** list_action_items' cursor: the opaque note cursor of the item's meeting and its place there. */
const encodeItemCursor = (item: { meetingCreatedAt: Date; meetingId: string; position: number }) =>
  `${encodeCursor({ createdAt: item.meetingCreatedAt, id: item.meetingId })}.${item.position}`;

function decodeItemCursor(cursor: string) {
  const [note, n, ...rest] = cursor.split('.');
  const position = Number(n);
  const at = note && rest.length === 0 && /^\d{1,9}$/.test(n ?? '') ? decodeCursor(note) : null;
  if (!at) throw new AppError('invalid_request', 'cursor is malformed: pass a next_cursor unchanged');
  return { ...at, position };
}

function decodeNoteCursor(cursor: string) {
  const at = decodeCursor(cursor);
  if (!at) throw new AppError('invalid_request', 'cursor is malformed: pass a next_cursor unchanged');
  return at;
}

async function getMeeting(context: ToolContext, id: string) {
  try {
    return await getNoteOrThrow(context.db, context.accountId, id);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found')
      throw new AppError('not_found', `No meeting with id ${id} in this account`);
    throw err;
  }
}

// ---- Registration -------------------------------------------------------------------------

/** Registers the four tools and the meeting resource on a server that answers one request. */
export function registerMeetingTools(server: McpServer, context: ToolContext): void {
  const { vocabulary } = context;
  const filters = noteFilterShape(vocabulary);

  server.registerTool(
    'search_meetings',
    {
      title: 'Search meetings',
      description:
        'Finds the moments in the user\'s recorded meetings (transcripts) that best match a question or topic, by meaning rather than exact words. Use it first for questions like "what did we decide about X?" or "when did Ana mention the budget?"; then call get_meeting with a result\'s meeting_id for the whole meeting. Each result is one moment: meeting, speaker, time offset and the words around it.',
      inputSchema: {
        query: text('query', QUERY_MAX_CHARS, 'What to look for, in natural language or keywords.'),
        limit: limit(SEARCH_LIMIT_MAX, 10, 'How many moments to return'),
        ...filters,
        speaker: text(
          'speaker',
          BOUNDS.name,
          'Only moments where this person speaks: their whole name, case aside.',
        ).optional(),
      },
      outputSchema: SearchOutput.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run(context, 'search_meetings', async (args) => {
      const hits = await searchPassages(
        context.db,
        context.services,
        context.accountId,
        args.query,
        args.limit ?? 10,
        { ...filtersOf(args, vocabulary), ...(args.speaker && { speaker: args.speaker }) },
      );
      return {
        results: hits.map((h) => ({
          meeting_id: h.noteId,
          title: h.title,
          date: iso(h.startedAt),
          speaker: clip(h.speaker, BOUNDS.name),
          start_time: h.startTime,
          snippet: h.snippet,
          score: h.score,
        })),
      } satisfies z.infer<typeof SearchOutput>;
    }),
  );

  server.registerTool(
    'get_meeting',
    {
      title: 'Get a meeting',
      description:
        'Reads one meeting by id: title, date, participants, summary, decisions and action items, and optionally a page of its transcript. Long transcripts come in pages: pass include_transcript=true, then transcript_offset=next_offset to read on.',
      inputSchema: {
        id: z
          .guid({ error: 'id must be a meeting id (a UUID)' })
          .describe('The meeting id, from search_meetings or list_meetings.'),
        include_transcript: z
          .boolean()
          .describe('Also return a page of the transcript (default false).')
          .optional(),
        transcript_offset: z
          .number()
          .int()
          .min(0)
          .max(1_000_000)
          .describe('The index of the first transcript segment to return, from 0 (default 0).')
          .optional(),
        transcript_limit: limit(TRANSCRIPT_LIMIT_MAX, 50, 'How many transcript segments to return at most'),
      },
      outputSchema: MeetingOutput.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run(context, 'get_meeting', async (args) => {
      const note = await getMeeting(context, args.id.toLowerCase());
      return presentMeeting(
        note,
        vocabulary,
        args.include_transcript
          ? { offset: args.transcript_offset ?? 0, limit: args.transcript_limit ?? 50 }
          : undefined,
      );
    }),
  );

  server.registerTool(
    'list_meetings',
    {
      title: 'List meetings',
      description:
        'Lists the user\'s recorded meetings, newest first, with a short summary of each; filter by date range or platform and page with cursor. Use it for "what meetings did I have this week?"; use search_meetings to find a topic.',
      inputSchema: {
        limit: limit(LIST_LIMIT_MAX, 20, 'How many meetings to return'),
        cursor: cursorArg,
        ...filters,
      },
      outputSchema: ListOutput.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run(context, 'list_meetings', async (args) => {
      const page = await listNotes(context.db, context.accountId, {
        limit: args.limit ?? 20,
        ...(args.cursor && { after: decodeNoteCursor(args.cursor) }),
        ...filtersOf(args, vocabulary),
        withoutTranscripts: true,
      });
      const last = page.notes.at(-1);
      return {
        meetings: page.notes.map((n) => ({
          id: n.id,
          title: n.title,
          date: iso(n.startedAt),
          duration_seconds: n.durationSeconds,
          platform: vocabulary.presentPlatform(n.platform),
          summary: clipNullable(summaryText(n), BOUNDS.summaryPreview),
        })),
        next_cursor: page.hasMore && last ? encodeCursor(last) : null,
      } satisfies z.infer<typeof ListOutput>;
    }),
  );

  server.registerTool(
    'list_action_items',
    {
      title: 'List action items',
      description:
        'Lists the action items (tasks agreed in meetings) across the user\'s meetings, newest meeting first, each with its owner, deadline and meeting. Filter by date range, platform or owner. Use it for "what are my open tasks from this week?" or "what did Ben promise to do?".',
      inputSchema: {
        owner: text(
          'owner',
          BOUNDS.name,
          "Only items whose owner's name contains this, case aside.",
        ).optional(),
        limit: limit(ACTION_ITEMS_LIMIT_MAX, 25, 'How many action items to return'),
        cursor: cursorArg,
        ...filters,
      },
      outputSchema: ActionItemsOutput.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run(context, 'list_action_items', async (args) => {
      const page = await listActionItems(context.db, context.accountId, {
        limit: args.limit ?? 25,
        filters: filtersOf(args, vocabulary),
        ...(args.owner && { owner: args.owner }),
        ...(args.cursor && { after: decodeItemCursor(args.cursor) }),
      });
      const last = page.items.at(-1);
      return {
        action_items: page.items.map((a) => ({
          task: clip(a.task, BOUNDS.item),
          owner: clipNullable(a.owner, BOUNDS.name),
          deadline: clipNullable(a.deadline, BOUNDS.deadline),
          meeting_id: a.meetingId,
          meeting_title: a.meetingTitle,
          meeting_date: iso(a.meetingStartedAt),
        })),
        next_cursor: page.hasMore && last ? encodeItemCursor(last) : null,
      } satisfies z.infer<typeof ActionItemsOutput>;
    }),
  );

  // meeting://{id}: the same meeting as get_meeting, with the first page of its transcript.
  server.registerResource(
    'meeting',
    new ResourceTemplate('meeting://{id}', { list: undefined }),
    {
      title: 'Meeting',
      description: 'A recorded meeting: its summary, action items and the first page of its transcript.',
      mimeType: 'application/json',
    },
    async (uri, { id }) => {
      try {
        const wanted = String(id);
        if (!z.guid().safeParse(wanted).success)
          throw new AppError('invalid_request', 'A meeting URI is meeting://<meeting id>');
        const note = await getMeeting(context, wanted.toLowerCase());
        const meeting = presentMeeting(note, vocabulary, { offset: 0, limit: 50 });
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(meeting) }] };
      } catch (err) {
        const appError = toAppError(err, { requestId: context.requestId, method: 'MCP', path: 'meeting' });
        const code = appError.code === 'internal_error' ? ErrorCode.InternalError : ErrorCode.InvalidParams;
        throw new McpError(code, appError.message);
      }
    },
  );
}
