import {
  generateOpenApiDocument,
  type OpenAPIObject,
  type OpenApiMethod,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import { DEFAULT_FORM, FORM_NAMES, type FormName, parseFormName } from '../domain';
import { AppError, type ErrorCode } from '../errors';
import type { RestMeta } from '../http/openapi-trpc';
import { FORMS } from './forms';
import { FORM_PROFILES } from './form-profiles';

// The OpenAPI 3.1 object types trpc-to-openapi's generator writes (openapi3-ts/oas31).
type PathItemObject = NonNullable<OpenAPIObject['paths']>[string];
type OperationObject = NonNullable<PathItemObject['get']>;
type ResponseOrReference = NonNullable<NonNullable<OperationObject['responses']>['default']>;
type ResponseObject = Exclude<ResponseOrReference, { $ref: string }>;
type HeadersObject = NonNullable<ResponseObject['headers']>;
type HeaderObject = Exclude<HeadersObject[string], { $ref: string }>;
type OperationMeta = RestMeta & { openapi: { method: OpenApiMethod; path: string } };

// Every /v1 operation can answer these, whatever its own errors (SPEC 5, 7, 8; D1, D2, D14, D15).
const COMMON_ERRORS: ErrorCode[] = [
  'invalid_request',
  'invalid_api_key',
  'forbidden',
  'not_found',
  'rate_limited',
  'internal_error',
  'service_unavailable',
];

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
  service_unavailable:
    'The database cannot be reached for the moment; retry after the seconds in Retry-After.',
};

const intHeader = (description: string): HeaderObject => ({ description, schema: { type: 'integer' } });
const REQUEST_ID_HEADER: HeaderObject = {
  description: "Identifies the request in the service's logs.",
  schema: { type: 'string' },
};
const CACHE_CONTROL_HEADER: HeaderObject = {
  description: 'Always no-store: answers are per key and per moment.',
  schema: { type: 'string', enum: ['no-store'] },
};
const RESPONSE_HEADERS: HeadersObject = {
  'X-Request-Id': REQUEST_ID_HEADER,
  'Cache-Control': CACHE_CONTROL_HEADER,
  'X-RateLimit-Limit': intHeader(
    "Requests allowed in the window: Form A the account's UTC day, Form B the key's minute; on a 429, the window that refused the request (D22).",
  ),
  'X-RateLimit-Remaining': intHeader('Requests left in that window.'),
  'X-RateLimit-Reset': intHeader('Unix time (seconds) at which that window resets.'),
};

function procedureMetas(router: OpenApiRouter): OperationMeta[] {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: unknown } }>;
  return Object.values(procedures)
    .map((p) => p._def.meta as (RestMeta & { openapi?: OperationMeta['openapi'] }) | undefined)
    .filter((m): m is OperationMeta => !!m?.openapi);
}

/** Documents a router as one form of the API: its statuses, its error bodies, its headers. */
export function buildOpenApiDocument(
  router: OpenApiRouter,
  form: FormName,
  opts: { title: string; description: string; baseUrl: string },
): OpenAPIObject {
  const doc = generateOpenApiDocument(router, {
    title: opts.title,
    description: opts.description,
    version: '1.0.0',
    baseUrl: opts.baseUrl,
    securitySchemes: {
      ApiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
    },
  });
  // trpc-to-openapi's own error shapes never reach a client: replace them with the form's.
  const components = doc.components ?? {};
  const schemas = Object.entries(components.schemas ?? {}).filter(([name]) => !name.startsWith('error.'));
  components.schemas = { ...Object.fromEntries(schemas), Error: FORM_PROFILES[form].errorSchema };
  doc.components = components;
  const errorResponse = (code: ErrorCode, headers: HeadersObject): ResponseObject => ({
    description: DESCRIPTIONS[code],
    headers,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });

  for (const meta of procedureMetas(router)) {
    const method = meta.openapi.method.toLowerCase() as Lowercase<OpenApiMethod>;
    const operation = doc.paths?.[meta.openapi.path]?.[method];
    if (!operation) continue;
    const status = meta.rest?.status ?? 200;
    const headers = RESPONSE_HEADERS;
    // Issue 8: every body is capped (413).
    const bodyErrors: ErrorCode[] = meta.openapi.method === 'POST' ? ['payload_too_large'] : [];
    let success: ResponseObject = { description: 'Done; no content.', headers };
    if (status !== 204) {
      const generated: ResponseOrReference | undefined = operation.responses?.['200'];
      if (!generated || '$ref' in generated) {
        throw new Error(
          `trpc-to-openapi wrote no 200 response for ${meta.openapi.method} ${meta.openapi.path}`,
        );
      }
      success = { description: status === 201 ? 'Created.' : 'OK.', headers, content: generated.content };
    }
    const responses: Record<string, ResponseObject> = { [status]: success };
    // Several codes may share a status in Form B (409 and 422 answer 400): one entry per status.
    for (const code of [...new Set([...COMMON_ERRORS, ...(meta.rest?.errors ?? []), ...bodyErrors])]) {
      const errorStatus = String(FORM_PROFILES[form].errorStatus[code]);
      const errorHeaders =
        code === 'rate_limited' || code === 'service_unavailable'
          ? { ...headers, 'Retry-After': intHeader('Seconds to wait before retrying (at least 1).') }
          : headers;
      const shared = responses[errorStatus];
      if (shared) shared.description += ` ${DESCRIPTIONS[code]}`;
      else responses[errorStatus] = errorResponse(code, errorHeaders);
    }
    operation.responses = responses;
    operation.parameters = [
      ...(operation.parameters ?? []),
      {
        name: 'X-API-Form',
        in: 'header',
        required: false,
        description: `Overrides the form of the API key for this request (${FORM_NAMES.join(' or ')}, any case).`,
        schema: { type: 'string', enum: [...FORM_NAMES, ...FORM_NAMES.map((n) => n.toLowerCase())] },
      },
    ];
  }
  return doc;
}

// D22, shown in both forms' documents.
const RATE_LIMITS_TEXT =
  'Rate limits (D14, D22): every account has a daily limit by plan (free 100, pro 10,000, enterprise its own figure) per UTC day, ' +
  'counted across both forms and all of its keys; Form B requests are also limited to 100 per minute per key. ' +
  'A request refused by either limit is a 429 whose X-RateLimit-* and Retry-After headers describe the limit that refused it. ' +
  'An account has at most 20 active API keys. Request bodies are limited to 64 KiB (413).';

const cache = new Map<FormName, OpenAPIObject>();

export function openApiDocumentFor(form: FormName): OpenAPIObject {
  let doc = cache.get(form);
  if (!doc) {
    doc = buildOpenApiDocument(FORMS[form].router, form, {
      title: `Meeting Notes API (Form ${form})`,
      description: `${FORM_PROFILES[form].openApiDescription} ${RATE_LIMITS_TEXT}`,
      baseUrl: '/v1',
    });
    cache.set(form, doc);
  }
  return doc;
}

// GET /api/openapi.json?form=A|B – the OpenAPI 3.1 document of one form (default: DEFAULT_FORM)
export function createOpenApiDocumentHandler() {
  return async function handleOpenApiDocument(request: Request): Promise<Response> {
    const raw = new URL(request.url).searchParams.get('form');
    const form = raw === null ? DEFAULT_FORM : parseFormName(raw);
    if (!form) {
      const refusal = new AppError('invalid_request', `form must be ${FORM_NAMES.join(' or ')}`);
      const { status, body } = FORM_PROFILES[DEFAULT_FORM].presentError(refusal);
      return Response.json(body, { status });
    }
    return Response.json(openApiDocumentFor(form), { headers: { 'Cache-Control': 'public, max-age=300' } });
  };
}
