import { ERROR_CODES, type ErrorCode } from '../../errors';
import { type FormProfile, type JsonSchema, randomBytes } from '../form-profile';
import { FORM_A_STATUS, presentErrorA } from './errors';

// Form A's errors: {"error":{"code","message"}}, the code one of these.
const errorSchemaA = (codes: readonly ErrorCode[]): JsonSchema => ({
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      description: 'What went wrong.',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: {
          type: 'string',
          enum: [...codes],
          description: 'Machine-readable; one code per kind of error.',
        },
        message: { type: 'string', description: 'Human-readable: what went wrong and how to fix it.' },
      },
    },
  },
});

export const profileA: FormProfile = {
  name: 'A',
  about: {
    label: 'Form A',
    summary: '{error:{code,message}}, daily limits',
    secretFormat: 'whsec_ followed by 32 random bytes in base64',
  },
  errorStatus: FORM_A_STATUS,
  presentError: presentErrorA,
  errorSchema: errorSchemaA(ERROR_CODES),
  errorSchemaFor: errorSchemaA,
  openApiDescription: 'Form A of the /v1 API: opaque cursors, {"error":{"code","message"}} errors.',
  // `whsec_` + 32 random bytes in standard base64 (the Standard Webhooks libraries refuse base64url).
  newWebhookSecret: () => `whsec_${btoa(String.fromCharCode(...randomBytes(32)))}`,
};
