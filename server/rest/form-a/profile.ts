import { ERROR_CODES, type ErrorCode } from '../../errors';
import type { FormProfile, JsonSchema } from '../form-profiles';
import { FORM_A_STATUS, presentErrorA } from './errors';
import { MAX_ANSWER_STRING_LENGTH } from '../../openapi-bounds';

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
        // A message may quote the request (a path, a URL, a field name): no bound of its own.
        message: {
          type: 'string',
          description: 'Human-readable: what went wrong and how to fix it.',
          maxLength: MAX_ANSWER_STRING_LENGTH,
        },
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
  // `whsec_` + 32 random bytes in standard base64 (the Standard Webhooks libraries refuse base64url),
  // from Web Crypto so the browser and Next's proxy can run it as well as Node.
  newWebhookSecret: () => {
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
    return `whsec_${btoa(String.fromCharCode(...bytes))}`;
  },
};
