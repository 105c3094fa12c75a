import { generateOpenApiDocument, type OpenApiRouter } from 'trpc-to-openapi';
import type { FormName } from '../db/schema';
import { ERROR_CODES, type ErrorCode } from '../errors';
import { FORM_A_STATUS } from './form-a/errors';
import { FORM_B_STATUS } from './form-b/errors';
import type { RestMeta } from './trpc';
import { FORMS } from './v1-handler';

type Json = Record<string, any>;

// Every /v1 operation can answer these, whatever its own errors (SPEC 5, 7, 8; D1, D2, D14, D15).
const COMMON_ERRORS: ErrorCode[] = ['invalid_request', 'invalid_api_key', 'forbidden', 'not_found', 'rate_limited', 'internal_error'];

const ERROR_SCHEMAS: Record<FormName, Json> = {
  A: {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: { code: { type: 'string', enum: [...ERROR_CODES] }, message: { type: 'string' } },
      },
    },
  },
  B: {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: { error: { type: 'string', description: 'What went wrong.' } },
  },
};

const STATUS: Record<FormName, Record<ErrorCode, number>> = { A: FORM_A_STATUS, B: FORM_B_STATUS };

const DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_request: 'A parameter is missing or malformed.',
  invalid_api_key: 'The API key is missing, invalid or revoked.',
  forbidden: 'The account has no early access to the API.',
  not_found: 'The resource does not exist or belongs to another account.',
  conflict: 'The resource already exists or is in a conflicting state.',
  validation_error: 'The request is well-formed but not acceptable.',
  rate_limited: 'The rate limit is exceeded; retry after Retry-After seconds.',
  internal_error: 'A server fault; safe to retry.',
  service_unavailable: 'Temporarily unavailable; retry with backoff.',
};

const intHeader = (description: string) => ({ description, schema: { type: 'integer' } });
const RESPONSE_HEADERS: Json = {
  'X-Request-Id': { description: 'Identifies the request in the service\'s logs.', schema: { type: 'string' } },
  'X-RateLimit-Limit': intHeader('Requests allowed in the current window.'),
  'X-RateLimit-Remaining': intHeader('Requests left in the current window.'),
  'X-RateLimit-Reset': intHeader('Unix time (seconds) at which the window resets.'),
};

function procedureMetas(router: OpenApiRouter) {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: Json } }>;
  return Object.values(procedures)
    .map((p) => p._def.meta as (RestMeta & { openapi?: { method: string; path: string } }) | undefined)
    .filter((m): m is RestMeta & { openapi: { method: string; path: string } } => !!m?.openapi);
}

/** Documents a router as one form of the API: its statuses, its error bodies, its headers. */
export function buildOpenApiDocument(
  router: OpenApiRouter,
  form: FormName,
  opts: { title: string; description: string; baseUrl: string; commonErrors?: ErrorCode[] },
): Json {
  const doc = generateOpenApiDocument(router, {
    title: opts.title,
    description: opts.description,
    version: '1.0.0',
    baseUrl: opts.baseUrl,
    securitySchemes: { ApiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } },
  }) as Json;
  // trpc-to-openapi's own error shapes never reach a client: replace them with the form's.
  const schemas = Object.entries(doc.components.schemas ?? {}).filter(([name]) => !name.startsWith('error.'));
  doc.components.schemas = { ...Object.fromEntries(schemas), Error: ERROR_SCHEMAS[form] };
  const errorResponse = (code: ErrorCode, headers: Json) => ({
    description: DESCRIPTIONS[code],
    headers,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });

  for (const meta of procedureMetas(router)) {
    const operation = doc.paths[meta.openapi.path]?.[meta.openapi.method.toLowerCase()];
    if (!operation) continue;
    const status = meta.rest?.status ?? 200;
    const success = operation.responses['200'];
    const headers = opts.commonErrors ? { 'X-Request-Id': RESPONSE_HEADERS['X-Request-Id'] } : RESPONSE_HEADERS;
    const responses: Json = {
      [status]:
        status === 204
          ? { description: 'Done; no content.', headers }
          : { description: status === 201 ? 'Created.' : 'OK.', headers, content: success.content },
    };
    // Several codes may share a status in Form B (409 and 422 answer 400): one entry per status.
    for (const code of [...new Set([...(opts.commonErrors ?? COMMON_ERRORS), ...(meta.rest?.errors ?? [])])]) {
      const errorStatus = String(STATUS[form][code]);
      const errorHeaders =
        code === 'rate_limited'
          ? { ...headers, 'Retry-After': intHeader('Seconds to wait before retrying (at least 1).') }
          : headers;
      if (responses[errorStatus]) responses[errorStatus].description += ` ${DESCRIPTIONS[code]}`;
      else responses[errorStatus] = errorResponse(code, errorHeaders);
    }
    operation.responses = responses;
    if (!opts.commonErrors) {
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          name: 'X-API-Form',
          in: 'header',
          required: false,
          description: 'Overrides the form of the API key for this request (A or B).',
          schema: { type: 'string', enum: ['A', 'B', 'a', 'b'] },
        },
      ];
    }
  }
  return doc;
}

const cache = new Map<FormName, Json>();

export function openApiDocumentFor(form: FormName): Json {
  let doc = cache.get(form);
  if (!doc) {
    doc = buildOpenApiDocument(FORMS[form].router, form, {
      title: `Meeting Notes API (Form ${form})`,
      description:
        form === 'A'
          ? 'Form A of the /v1 API: opaque cursors, {"error":{"code","message"}} errors, daily limits per plan.'
          : 'Form B of the /v1 API: timestamp cursors, {"error":"message"} errors, 100 requests per minute per key.',
      baseUrl: '/v1',
    });
    cache.set(form, doc);
  }
  return doc;
}

// GET /api/openapi.json?form=A|B – the OpenAPI 3.1 document of one form (default A)
export function createOpenApiDocumentHandler() {
  return async function handleOpenApiDocument(request: Request): Promise<Response> {
    const raw = new URL(request.url).searchParams.get('form') ?? 'A';
    const form = raw.trim().toUpperCase();
    if (form !== 'A' && form !== 'B') {
      return Response.json({ error: { code: 'invalid_request', message: 'form must be A or B' } }, { status: 400 });
    }
    return Response.json(openApiDocumentFor(form), { headers: { 'Cache-Control': 'public, max-age=300' } });
  };
}
