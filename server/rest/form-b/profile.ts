import type { FormProfile } from '../form-profiles';
import { FORM_B_STATUS, presentErrorB } from './errors';
import { MAX_ANSWER_STRING_LENGTH } from '../../openapi-bounds';

const ERROR_SCHEMA_B = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  // A message may quote the request (a path, a URL, a field name): no bound of its own.
  properties: {
    error: { type: 'string', description: 'What went wrong.', maxLength: MAX_ANSWER_STRING_LENGTH },
  },
};

export const profileB: FormProfile = {
  name: 'B',
  about: {
    label: 'Form B',
    summary: '{error}, 100 requests/min',
    secretFormat: '64 lowercase hex characters (32 random bytes)',
  },
  errorStatus: FORM_B_STATUS,
  presentError: presentErrorB,
  errorSchema: ERROR_SCHEMA_B,
  // Form B's bodies name no code, so every status has the one shape.
  errorSchemaFor: () => ERROR_SCHEMA_B,
  openApiDescription:
    'Form B of the /v1 API: timestamp cursors, {"error":"message"} errors, 100 requests per minute per key.',
  // 32 random bytes as 64 lowercase hex characters, from Web Crypto so the browser and Next's
  // proxy can run it as well as Node.
  newWebhookSecret: () => {
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  },
};
