import { z } from 'zod';
import { PLATFORMS } from '../domain';
import { SummarySchema } from '../notes/summary';
import { MAX_DURATION_SECONDS } from '../db/storage-bounds';
import { RECORDER_TEXT_MAX_LENGTH, UUID_LENGTH } from '../openapi-bounds';
import { enumParam, isoDateTime, noCoerce, uuidPathParam } from '../http/params';
import { restProcedure, router } from '../http/openapi-trpc';
import { createMeeting } from '../meetings/create-meeting';
import { storeSummary } from '../meetings/store-summary';
import { storeTranscript } from '../meetings/store-transcript';

// How meetings enter the service (docs/rules.md#recorder-api). Form A errors, API-key auth, no rate limits.
// Text PostgreSQL would refuse (NUL, lone surrogates) is refused in every field by the
// dispatcher before these schemas run (storable-input.ts).

const Created = z
  .object({
    id: z.string().uuid().meta({
      description: 'The UUID of the meeting (the note, once transcribed).',
      minLength: UUID_LENGTH,
      maxLength: UUID_LENGTH,
    }),
  })
  .meta({ id: 'RecordedMeeting', description: 'The meeting the request was about.' });

// Text the recorder writes has no length the service checks: the body's cap is the bound.
const text = (schema: z.ZodString, description: string) =>
  schema.meta({ description, maxLength: RECORDER_TEXT_MAX_LENGTH });
const bodyDateTime = (name: string, description: string) =>
  isoDateTime(name).meta({ description, maxLength: RECORDER_TEXT_MAX_LENGTH });

// A segment lies within its meeting, and no meeting lasts longer than the longest
// duration the service stores.
const segmentTime = (name: string, error: string) =>
  z
    .number({ error })
    .min(0, { error: `${name} must not be negative` })
    .max(MAX_DURATION_SECONDS, { error: `${name} must be at most ${MAX_DURATION_SECONDS} seconds` });

const SegmentInput = z
  .object({
    speaker: text(z.string({ error: 'speaker must be a string' }), 'Who spoke.'),
    content: text(z.string({ error: 'content must be a string' }), 'What was said.'),
    start_time: noCoerce(
      segmentTime('start_time', 'start_time must be a number of seconds').meta({
        description: 'Seconds from the start of the recording.',
      }),
    ),
    end_time: noCoerce(
      segmentTime('end_time', 'end_time must be a number of seconds or null').meta({
        description: 'Seconds from the start of the recording to the end of the segment.',
      }),
    )
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
      openapi: {
        method: 'POST',
        path: '/meetings',
        summary: 'Start a meeting',
        description: 'Announces a meeting being recorded and fires meeting.started.',
        tags: ['Recorder'],
      },
      rest: { status: 201, errors: ['invalid_request', 'validation_error'] },
    })
    .input(
      z.object({
        title: z
          .string({ error: 'title must be a string or null' })
          .max(500)
          .nullable()
          .optional()
          .meta({ description: 'The meeting’s title; null or left out for none.' }),
        platform: enumParam(PLATFORMS, 'platform').meta({ description: 'Where the meeting is recorded.' }),
        started_at: bodyDateTime(
          'started_at',
          'When the meeting started; the moment of this request when left out.',
        ).optional(),
        language: z
          .string({ error: 'language must be a string' })
          .trim()
          .min(2)
          .max(35)
          .optional()
          .meta({ description: 'The language of the transcript, e.g. "en" (the default).' }),
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
        description:
          'Stores the transcript, which makes the meeting a note, and fires meeting.transcribed; unless generate_summary is false, a summary is generated in the background. A second transcript is a 409.',
        tags: ['Recorder'],
      },
      rest: { errors: ['invalid_request', 'validation_error', 'not_found', 'conflict'] },
    })
    .input(
      z.object({
        id: uuidPathParam,
        ended_at: bodyDateTime(
          'ended_at',
          'When the meeting ended; worked out from the duration or the transcript when left out.',
        ).optional(),
        duration_seconds: noCoerce(
          z
            .number({ error: 'duration_seconds must be a whole number of seconds' })
            .int({ error: 'duration_seconds must be a whole number of seconds' })
            .min(0, { error: `duration_seconds must be between 0 and ${MAX_DURATION_SECONDS}` })
            .max(MAX_DURATION_SECONDS, {
              error: `duration_seconds must be between 0 and ${MAX_DURATION_SECONDS}`,
            })
            .meta({ description: 'Length of the meeting in whole seconds.', format: 'int32' }),
        ).optional(),
        segments: z
          .array(SegmentInput, { error: 'segments must be an array' })
          .min(1, { error: 'segments must hold 1 to 10000 segments' })
          .max(10_000, { error: 'segments must hold 1 to 10000 segments' })
          .meta({ description: 'The transcript, in order: 1 to 10,000 segments.' }),
        generate_summary: noCoerce(
          z
            .boolean({ error: 'generate_summary must be true or false' })
            .meta({ description: 'false when the recorder sends its own summary; true when left out.' }),
        ).optional(),
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
        description:
          'Stores the summary, replacing one stored before, and fires summary.ready. Before the transcript it is a 409.',
        tags: ['Recorder'],
      },
      rest: { errors: ['invalid_request', 'validation_error', 'not_found', 'conflict'] },
    })
    .input(
      z.object({
        id: uuidPathParam,
        summary: SummarySchema,
        text: text(z.string(), 'Form A’s plain-text summary; built from the summary when left out.')
          .nullable()
          .optional(),
      }),
    )
    .output(Created)
    .mutation(({ ctx, input }) =>
      storeSummary(ctx.db, ctx.services, ctx.accountId, input.id, {
        summary: input.summary,
        text: input.text ?? null,
      }),
    ),
});
