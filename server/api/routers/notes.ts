import { z } from 'zod';
import { PLATFORMS } from '../../domain';
import { deleteNoteOrThrow } from '../../notes/delete-note';
import { getNoteOrThrow } from '../../notes/get-note';
import { listNotes } from '../../notes/list-notes';
import type { NoteRecord } from '../../notes/note-record';
import { renderSummaryText } from '../../notes/summary';
import { decodeCursor, encodeCursor } from '../../http/opaque-cursor';
import { meetingsAwaitingIndex } from '../../search/indexing-backlog';
import { searchPassages } from '../../search/search-passages';
import { accountProcedure, createUiRouter } from '../trpc';

const presentNote = (n: NoteRecord) => ({
  id: n.id,
  title: n.title,
  platform: n.platform,
  language: n.language,
  durationSeconds: n.durationSeconds,
  startedAt: n.startedAt.toISOString(),
  createdAt: n.createdAt.toISOString(),
  summary: n.summary,
  summaryText: n.summaryText ?? (n.summary ? renderSummaryText(n.summary) : null),
  transcript: n.transcript,
});

/** The periods the notes page narrows to, in days back from now. */
const sinceDays = z.union([z.literal(7), z.literal(30), z.literal(365)]).nullish();
const DAY_MS = 86_400_000;
/** Notes created at or after `days` days before now. */
const createdSince = (days: number | null | undefined, now: Date) =>
  days ? { createdFrom: new Date(now.getTime() - days * DAY_MS) } : {};

export const notesRouter = createUiRouter({
  list: accountProcedure
    .input(
      z.object({
        platform: z.enum(PLATFORMS).nullish(),
        sinceDays,
        cursor: z.string().nullish(),
        limit: z.number().int().min(1).max(100).default(20),
      }),
    )
    .query(async ({ ctx, input }) => {
      const after = input.cursor ? decodeCursor(input.cursor) : undefined;
      const page = await listNotes(ctx.db, ctx.accountId, {
        limit: input.limit,
        ...(after && { after }),
        ...(input.platform && { platforms: [input.platform] }),
        ...createdSince(input.sinceDays, ctx.now?.() ?? new Date()),
      });
      const last = page.notes.at(-1);
      const awaiting = await meetingsAwaitingIndex(ctx.db, ctx.accountId);
      return {
        items: page.notes.map((n) => ({
          ...presentNote(n),
          transcript: undefined,
          segments: n.transcript.length,
          /** Listed, but not found by search until its transcript is embedded. */
          indexing: awaiting.has(n.id),
        })),
        nextCursor: page.hasMore && last ? encodeCursor(last) : null,
        /** The account's meetings waiting to become searchable, on every page. */
        awaitingIndex: awaiting.size,
      };
    }),

  /** The same search as Form A of the API. */
  search: accountProcedure
    .input(
      z.object({
        q: z.string().trim().min(1, 'Type something to search for').max(256),
        limit: z.number().int().min(1).max(50).default(10),
        platform: z.enum(PLATFORMS).optional(),
        sinceDays,
        /** Only moments where this person speaks: the whole name, case aside. */
        speaker: z.string().trim().min(1).max(200).optional(),
      }),
    )
    .query(({ ctx, input }) =>
      searchPassages(ctx.db, ctx.services, ctx.accountId, input.q, input.limit, {
        ...(input.platform && { platforms: [input.platform] }),
        ...createdSince(input.sinceDays, ctx.now?.() ?? new Date()),
        ...(input.speaker && { speaker: input.speaker }),
      }),
    ),

  get: accountProcedure
    .input(z.object({ id: z.guid() }))
    .query(async ({ ctx, input }) => presentNote(await getNoteOrThrow(ctx.db, ctx.accountId, input.id))),

  /** The app offers deletion whatever the keys' form (Form B has no delete in /v1). */
  delete: accountProcedure.input(z.object({ id: z.guid() })).mutation(async ({ ctx, input }) => {
    await deleteNoteOrThrow(ctx.db, ctx.accountId, input.id);
    return { ok: true as const };
  }),
});
