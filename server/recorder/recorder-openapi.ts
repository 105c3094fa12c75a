import type { OpenAPIObject } from 'trpc-to-openapi';
import { RECORDER_FORM, RECORDER_PREFIX } from '../http/api-surfaces';
import { SAMPLE_NOTE } from '../rest/openapi-samples';
import {
  buildOpenApiDocument,
  CONTACT,
  type OpenApiDocumentSettings,
  openApiDocumentSettings,
  servedAt,
  documentResponse,
  type Surface,
} from '../rest/openapi-document';
import { MAX_KEY_LENGTH } from './run-idempotently';
import { recorderRouter } from './router';

// GET /api/recorder/openapi.json – the OpenAPI 3.1 document of the recorder API, the interface
// through which meetings enter the service (docs/rules.md#recorder-api): Form A errors whatever
// the key's form, no rate limits, and an Idempotency-Key on every POST.

const RECORDER_SURFACE: Surface = {
  commonErrors: ['invalid_request', 'invalid_api_key', 'conflict', 'internal_error', 'service_unavailable'],
  rateLimited: false,
  formHeader: false,
  headers: [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: `1 to ${MAX_KEY_LENGTH} printable ASCII characters. The same key with the same method, path and JSON body within 24 hours gets the first answer again (with Idempotent-Replayed: true) and changes nothing; the same key with another request, or while its first request still runs, is a 409. Only successes are remembered.`,
      schema: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_KEY_LENGTH,
        pattern: `^[\\x20-\\x7e]{1,${MAX_KEY_LENGTH}}$`,
      },
    },
  ],
  successHeaders: {
    'Idempotent-Replayed': {
      description:
        'true when this is the first answer to an earlier request with the same Idempotency-Key, given again.',
      required: false,
      schema: { type: 'string', enum: ['true'] },
    },
  },
};

const DESCRIPTION =
  'The recorder API: how the desktop recorder sends meetings to the service. Start a meeting, store its transcript, store or replace its summary; each change fires its webhook event. ' +
  'Authenticated with the account’s API keys (Authorization: Bearer <API key>) like /v1, without the need for early access. ' +
  `Errors are written in Form ${RECORDER_FORM} ({"error":{"code","message"}}) whatever the key's form; X-API-Form is not read. ` +
  'Not rate limited. Request bodies are limited to 8 MiB (413).';

/** Where the document is served: beside the recorder's routes, and public. */
export const RECORDER_OPENAPI_PATH = `${RECORDER_PREFIX}/openapi.json`;

let cached: OpenAPIObject | null = null;

export function recorderOpenApiDocument(origin?: string): OpenAPIObject {
  cached ??= (() => {
    const doc = buildOpenApiDocument(recorderRouter, RECORDER_FORM, {
      title: 'Meeting Notes recorder API',
      description: DESCRIPTION,
      baseUrl: RECORDER_PREFIX,
      examples: {
        'POST /meetings': { id: SAMPLE_NOTE.id },
        'POST /meetings/{id}/transcript': { id: SAMPLE_NOTE.id },
        'POST /meetings/{id}/summary': { id: SAMPLE_NOTE.id },
      },
      surface: RECORDER_SURFACE,
    });
    doc.info = { ...doc.info, contact: CONTACT };
    return doc;
  })();
  return origin ? servedAt(cached, origin, RECORDER_PREFIX) : cached;
}

export function createRecorderOpenApiHandler(settings: OpenApiDocumentSettings = openApiDocumentSettings()) {
  return async function handleRecorderOpenApiDocument(request: Request): Promise<Response> {
    return documentResponse(request, settings, recorderOpenApiDocument);
  };
}
