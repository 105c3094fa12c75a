import { generateOpenApiDocument, type OpenApiRouter } from 'trpc-to-openapi';
import type { FormName } from '../db/schema';
import { ERROR_CODES, type ErrorCode } from '../errors';
import { FORM_A_STATUS } from './form-a/errors';
import { FORM_B_STATUS } from './form-b/errors';
import type { RestMeta } from '../http/openapi-trpc';
import { FORMS } from './v1-handler';

type Json = Record<string, any>;

// Every /v1 operation can answer these, whatever its own errors (SPEC 5, 7, 8; D1, D2, D14, D15).
const COMMON_ERRORS: ErrorCode[] = [
  'invalid_request',
  'invalid_api_key',
  'forbidden',
  'not_found',
  'rate_limited',
  'internal_error',
];

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
  payload_too_large: 'The request body is larger than the endpoint accepts.',
  rate_limited:
    "A rate limit is exceeded: the account's requests per UTC day (D22: counted across both forms and all keys) or, in Form B, the key's requests per minute. X-RateLimit-* and Retry-After describe the window that refused the request.",
  internal_error: 'A server fault; safe to retry.',
  service_unavailable: 'Temporarily unavailable; retry with backoff.',
};

const intHeader = (description: string) => ({ description, schema: { type: 'integer' } });
const REQUEST_ID_HEADER: Json = {
  description: "Identifies the request in the service's logs.",
  schema: { type: 'string' },
};
const CACHE_CONTROL_HEADER: Json = {
  description: 'Always no-store: answers are per key and per moment.',
  schema: { type: 'string', enum: ['no-store'] },
};
const RESPONSE_HEADERS: Json = {
  'X-Request-Id': REQUEST_ID_HEADER,
  'Cache-Control': CACHE_CONTROL_HEADER,
  'X-RateLimit-Limit': intHeader(
    "Requests allowed in the window: Form A the account's UTC day, Form B the key's minute; on a 429, the window that refused the request (D22).",
  ),
  'X-RateLimit-Remaining': intHeader('Requests left in that window.'),
  'X-RateLimit-Reset': intHeader('Unix time (seconds) at which that window resets.'),
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
    securitySchemes: {
      ApiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
    },
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
    const headers = opts.commonErrors
      ? { 'X-Request-Id': REQUEST_ID_HEADER, 'Cache-Control': CACHE_CONTROL_HEADER }
      : RESPONSE_HEADERS;
    // Issue 8: every body is capped (413).
    const bodyErrors: ErrorCode[] = meta.openapi.method === 'POST' ? ['payload_too_large'] : [];
    const responses: Json = {
      [status]:
        status === 204
          ? { description: 'Done; no content.', headers }
          : { description: status === 201 ? 'Created.' : 'OK.', headers, content: success.content },
    };
    // Several codes may share a status in Form B (409 and 422 answer 400): one entry per status.
    for (const code of [
      ...new Set([...(opts.commonErrors ?? COMMON_ERRORS), ...(meta.rest?.errors ?? []), ...bodyErrors]),
    ]) {
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

// D22, shown in both forms' documents.
const RATE_LIMITS_TEXT =
  'Rate limits (D14, D22): every account has a daily limit by plan (free 100, pro 10,000, enterprise its own figure) per UTC day, ' +
  'counted across both forms and all of its keys; Form B requests are also limited to 100 per minute per key. ' +
  'A request refused by either limit is a 429 whose X-RateLimit-* and Retry-After headers describe the limit that refused it. ' +
  'An account has at most 20 active API keys. Request bodies are limited to 64 KiB (413).';

const cache = new Map<FormName, Json>();

export function openApiDocumentFor(form: FormName): Json {
  let doc = cache.get(form);
  if (!doc) {
    doc = buildOpenApiDocument(FORMS[form].router, form, {
      title: `Meeting Notes API (Form ${form})`,
      description: `${
        form === 'A'
          ? 'Form A of the /v1 API: opaque cursors, {"error":{"code","message"}} errors.'
          : 'Form B of the /v1 API: timestamp cursors, {"error":"message"} errors, 100 requests per minute per key.'
      } ${RATE_LIMITS_TEXT}`,
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
      return Response.json(
        { error: { code: 'invalid_request', message: 'form must be A or B' } },
        { status: 400 },
      );
    }
    return Response.json(openApiDocumentFor(form), { headers: { 'Cache-Control': 'public, max-age=300' } });
  };
}
