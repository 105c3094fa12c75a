import { z } from 'zod';
import { INT32_MAX, MAX_TRANSCRIPT_SEGMENTS, RECORDER_TEXT_MAX_LENGTH } from '../openapi-bounds';

// The fields of a transcript segment on the wire, shared by the forms' notes and the event
// payloads. Form A's notes leave out end_time (docs/rules.md#fields-in-each-form).

export const segmentFields = {
  sequence: z.number().int().meta({
    description: 'Position in the transcript, from 1.',
    format: 'int32',
    minimum: 1,
    maximum: MAX_TRANSCRIPT_SEGMENTS,
  }),
  // Written only by the recorder, whose checks set no length: its body cap is the bound.
  speaker: z.string().meta({
    description: 'Who spoke, as the recorder named them.',
    maxLength: RECORDER_TEXT_MAX_LENGTH,
  }),
  content: z.string().meta({ description: 'What was said.', maxLength: RECORDER_TEXT_MAX_LENGTH }),
  start_time: z.number().meta({
    description: 'Seconds from the start of the recording.',
    minimum: 0,
    maximum: INT32_MAX,
  }),
};

export const endTimeField = {
  end_time: z.number().nullable().meta({
    description: 'Seconds from the start of the recording to the end; null when unknown.',
    minimum: 0,
    maximum: INT32_MAX,
  }),
};
