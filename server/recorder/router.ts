import { z } from 'zod';
import { PLATFORMS } from '../domain';
import { SummarySchema } from '../notes/summary';
import { MAX_DURATION_SECONDS } from '../db/storage-bounds';
import { enumParam, isoDateTime, noCoerce, uuidPathParam } from '../http/params';
import { restProcedure, router } from '../http/openapi-trpc';
import { createMeeting } from '../meetings/create-meeting';
import { storeSummary } from '../meetings/store-summary';
import { storeTranscript } from '../meetings/store-transcript';

// How meetings enter the service (docs/rules.md#recorder-api). Form A errors, API-key auth, no rate limits.
// Text PostgreSQL would refuse (NUL, lone surrogates) is refused in every field by
// restProcedure before these schemas run (storable-input.ts).

const Created = z.object({ id: z.string().uuid() });

// A segment lies within its meeting, and no meeting lasts longer than the longest
// duration the service stores.
const segmentTime = (name: string, error: string) =>
  z
    .number({ error })
    .min(0, { error: `${name} must not be negative` })
    .max(MAX_DURATION_SECONDS, { error: `${name} must be at most ${MAX_DURATION_SECONDS} seconds` });

const SegmentInput = z
  .object({
    speaker: z.string({ error: 'speaker must be a string' }),
    content: z.string({ error: 'content must be a string' }),
    start_time: noCoerce(segmentTime('start_time', 'start_time must be a number of seconds')),
    end_time: noCoerce(segmentTime('end_time', 'end_time must be a number of seconds or null'))
      .nullable()
      .optional(),
  })
  .refine((s) => s.end_time == null || s.end_time >= s.start_time, {
    error: 'end_time must not be earlier than start_time',
    path: ['end_time'],
  });

export const recorderRouter = router({
  createMeeting: restProcedure
    .meta({
      openapi: { method: 'POST', path: '/meetings', summary: 'Start a meeting', tags: ['Recorder'] },
      rest: { status: 201, errors: ['invalid_request', 'validation_error'] },
    })
    .input(
      z.object({
        title: z.string({ error: 'title must be a string or null' }).max(500).nullable().optional(),
        platform: enumParam(PLATFORMS, 'platform'),
        started_at: isoDateTime('started_at').optional(),
        language: z.string({ error: 'language must be a string' }).trim().min(2).max(35).optional(),
      }),
    )
    .output(Created)
    .mutation(({ ctx, input }) =>
      createMeeting(ctx.db, ctx.services, ctx.accountId, {
        title: input.title,
        platform: input.platform,
        ...(input.started_at && { startedAt: new Date(input.started_at) }),
        ...(input.language && { language: input.language }),
      }),
    ),

  storeTranscript: restProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/meetings/{id}/transcript',
        summary: 'Store the transcript',
        tags: ['Recorder'],
      },
      rest: { errors: ['invalid_request', 'validation_error', 'not_found', 'conflict'] },
    })
    .input(
      z.object({
        id: uuidPathParam,
        ended_at: isoDateTime('ended_at').optional(),
        duration_seconds: noCoerce(
          z
            .number({ error: 'duration_seconds must be a whole number of seconds' })
            .int({ error: 'duration_seconds must be a whole number of seconds' })
            .min(0, { error: `duration_seconds must be between 0 and ${MAX_DURATION_SECONDS}` })
            .max(MAX_DURATION_SECONDS, {
              error: `duration_seconds must be between 0 and ${MAX_DURATION_SECONDS}`,
            }),
        ).optional(),
        segments: z
          .array(SegmentInput, { error: 'segments must be an array' })
          .min(1, { error: 'segments must hold 1 to 10000 segments' })
          .max(10_000, { error: 'segments must hold 1 to 10000 segments' }),
        generate_summary: noCoerce(z.boolean({ error: 'generate_summary must be true or false' })).optional(),
      }),
    )
    .output(Created)
    .mutation(({ ctx, input }) =>
      storeTranscript(ctx.db, ctx.services, ctx.accountId, input.id, {
        ...(input.ended_at && { endedAt: new Date(input.ended_at) }),
        ...(input.duration_seconds !== undefined && { durationSeconds: input.duration_seconds }),
        segments: input.segments.map((s) => ({
          speaker: s.speaker,
          content: s.content,
          startTime: s.start_time,
          endTime: s.end_time ?? null,
        })),
        ...(input.generate_summary !== undefined && { generateSummary: input.generate_summary }),
      }),
    ),

  storeSummary: restProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/meetings/{id}/summary',
        summary: 'Store or replace the summary',
        tags: ['Recorder'],
      },
      rest: { errors: ['invalid_request', 'validation_error', 'not_found', 'conflict'] },
    })
    .input(z.object({ id: uuidPathParam, summary: SummarySchema, text: z.string().nullable().optional() }))
    .output(Created)
    .mutation(({ ctx, input }) =>
      storeSummary(ctx.db, ctx.services, ctx.accountId, input.id, {
        summary: input.summary,
        text: input.text ?? null,
      }),
    ),
});
