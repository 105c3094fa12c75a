import {
  generateOpenApiDocument,
  type OpenAPIObject,
  type OpenApiMethod,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import { DEFAULT_FORM, FORM_NAMES, type FormName, parseFormName } from '../domain';
import { type Env, getEnv } from '../env';
import { V1_PREFIX } from '../http/api-surfaces';
import { AppError, type ErrorCode } from '../errors';
import type { RestMeta } from '../http/openapi-trpc';
import { INPUT_DEFAULT } from '../http/params';
import { FORMS } from './forms';
import { FORM_PROFILES } from './form-profiles';
import { SAMPLE_ERRORS } from './openapi-samples';
import { WEBHOOK_EVENTS_TAG, webhooksCatalog } from './webhooks-catalog';
import { INT32_MAX, MAX_RETRY_AFTER_SECONDS, MAX_UNIX_SECONDS, UUID_LENGTH } from '../openapi-bounds';

// The OpenAPI 3.1 object types trpc-to-openapi's generator writes (openapi3-ts/oas31).
type PathItemObject = NonNullable<OpenAPIObject['paths']>[string];
type OperationObject = NonNullable<PathItemObject['get']>;
type ResponseOrReference = NonNullable<NonNullable<OperationObject['responses']>['default']>;
type ResponseObject = Exclude<ResponseOrReference, { $ref: string }>;
type HeadersObject = NonNullable<ResponseObject['headers']>;
type HeaderObject = Exclude<HeadersObject[string], { $ref: string }>;
type OperationMeta = RestMeta & { openapi: { method: OpenApiMethod; path: string } };
type ParameterObject = Exclude<NonNullable<OperationObject['parameters']>[number], { $ref: string }>;

/** The tags the operations use, defined with a description. */
const TAGS = [
  { name: 'Notes', description: 'Meeting notes: list, read, search and (Form A) delete them.' },
  {
    name: 'Webhooks',
    description: 'Webhook endpoints that receive meeting events, and (Form B) their delivery log.',
  },
  {
    name: 'Recorder',
    description:
      'How the desktop recorder sends a meeting: start it, store its transcript, store its summary.',
  },
  {
    name: 'Events',
    description:
      "The account's meeting events of the last 30 days, as its webhooks carry them: catch up after an outage.",
  },
];

/** INPUT_DEFAULT (params.ts) becomes the `default` it stands for, at any depth. */
function renameInputDefaults(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) renameInputDefaults(item);
  } else if (node && typeof node === 'object') {
    const obj = node as Record<string, unknown>;
    if (INPUT_DEFAULT in obj) {
      obj.default = obj[INPUT_DEFAULT];
      delete obj[INPUT_DEFAULT];
    }
    for (const value of Object.values(obj)) renameInputDefaults(value);
  }
}

/**
 * A parameter's description at the parameter level, where generators (openapi-typescript,
 * hey-api) read it for their doc comments; the schema keeps its own copy.
 */
function describeParameter(parameter: ParameterObject): ParameterObject {
  if (parameter.description) return parameter;
  const schema = parameter.schema as { description?: string } | undefined;
  if (!schema?.description) {
    throw new Error(`OpenAPI parameter ${parameter.in} ${parameter.name} has no description`);
  }
  return { ...parameter, description: schema.description };
}

// Every /v1 operation can answer these, whatever its own errors (docs/rules.md#errors).
// not_found is not among them: only operations with an id in their path can answer it, and
// a method + path that the form does not offer is no operation of its document.
const COMMON_ERRORS: ErrorCode[] = [
  'invalid_request',
  'invalid_api_key',
  'forbidden',
  'rate_limited',
  'internal_error',
  'service_unavailable',
];

const DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_request: 'A parameter is missing or malformed.',
  invalid_api_key: 'The API key is missing, invalid, revoked or expired.',
  forbidden: 'The account has no early access to the API.',
  not_found: 'The resource does not exist or belongs to another account.',
  conflict: 'The resource already exists or is in a conflicting state.',
  validation_error: 'The request is well-formed but not acceptable.',
  payload_too_large: 'The request body is larger than the endpoint accepts.',
  rate_limited:
    "A rate limit is exceeded: the account's requests per UTC day (counted across both forms and all keys) or, in Form B, the key's requests per minute. X-RateLimit-* and Retry-After describe the window that refused the request.",
  internal_error: 'A server fault; safe to retry.',
  service_unavailable:
    'The database cannot be reached, or search cannot load its language model, for the moment; retry after the seconds in Retry-After.',
};

/**
 * Whether an answer with this code was counted against a rate-limit window, and so carries
 * X-RateLimit-*. A 401 is decided before the key is known; a malformed path or an X-API-Form
 * naming no form is refused before the key is read (a 400 for a bad parameter comes after);
 * an unreachable database may stop a request before or after it was counted.
 */
const COUNTED: Record<ErrorCode, 'always' | 'never' | 'sometimes'> = {
  invalid_request: 'sometimes',
  invalid_api_key: 'never',
  forbidden: 'always',
  not_found: 'always',
  conflict: 'always',
  validation_error: 'always',
  payload_too_large: 'always',
  rate_limited: 'always',
  internal_error: 'sometimes',
  service_unavailable: 'sometimes',
};

const RATE_LIMIT_SOMETIMES =
  ' Absent when the request was refused before it was counted (a malformed path, an X-API-Form naming no form, a database out of reach).';

const intHeader = (
  description: string,
  required: boolean,
  bounds: { format: 'int32' | 'int64'; minimum: number; maximum: number },
): HeaderObject => ({ description, required, schema: { type: 'integer', ...bounds } });
const REQUEST_ID_HEADER: HeaderObject = {
  description: "Identifies the request in the service's logs: a UUID.",
  required: true,
  schema: { type: 'string', format: 'uuid', minLength: UUID_LENGTH, maxLength: UUID_LENGTH },
};
const CACHE_CONTROL_HEADER: HeaderObject = {
  description: 'Always no-store: answers are per key and per moment.',
  required: true,
  schema: { type: 'string', enum: ['no-store'] },
};
// A day's window is the longest, so a retry is never more than a day away; a 503 says 5.
const RETRY_AFTER_HEADER = intHeader('Seconds to wait before retrying (at least 1).', true, {
  format: 'int32',
  minimum: 1,
  maximum: MAX_RETRY_AFTER_SECONDS,
});

/**
 * A header the service never sends on an answer, named so that its absence is documented: the
 * schema admits no value, so a client (and the contract tests) can rely on it being absent.
 */
const absentHeader = (description: string): HeaderObject => ({
  description,
  required: false,
  schema: { not: {} },
});

// The API answers no CORS: it sends no Access-Control-* header and answers an OPTIONS preflight
// 404 (docs/rules.md#errors), so a browser page of another origin cannot read its answers. Each
// answer states this, as the OWASP ruleset asks every answer to define its CORS origin.
const CORS_TEXT =
  'Never sent: the API answers no cross-origin (CORS) requests from browsers; an OPTIONS preflight is a 404. Call it from a server.';

/** The headers of an answer; X-RateLimit-* on answers counted `counted` (docs/rules.md#rate-limits). */
function responseHeaders(
  counted: 'always' | 'never' | 'sometimes' | 'not-limited',
  retryAfter = false,
): HeadersObject {
  const headers: HeadersObject = {
    'X-Request-Id': REQUEST_ID_HEADER,
    'Cache-Control': CACHE_CONTROL_HEADER,
    'Access-Control-Allow-Origin': absentHeader(CORS_TEXT),
  };
  if (counted === 'never' || counted === 'not-limited') {
    // An answer given before the request was counted (a 401), or by an API without rate limits:
    // no window to describe.
    const never =
      counted === 'never'
        ? 'Never sent on this answer: the request was not counted against any rate-limit window.'
        : 'Never sent: this API is not rate limited.';
    headers['X-RateLimit-Limit'] = absentHeader(never);
    headers['X-RateLimit-Remaining'] = absentHeader(never);
    headers['X-RateLimit-Reset'] = absentHeader(never);
  } else {
    const required = counted === 'always';
    const when = required ? '' : RATE_LIMIT_SOMETIMES;
    // The daily limit is an integer column (at least 1); the key's minute allows 100.
    headers['X-RateLimit-Limit'] = intHeader(
      `Requests allowed in the window: Form A the account's UTC day, Form B the key's minute; on a 429, the window that refused the request.${when}`,
      required,
      { format: 'int32', minimum: 1, maximum: INT32_MAX },
    );
    headers['X-RateLimit-Remaining'] = intHeader(`Requests left in that window.${when}`, required, {
      format: 'int32',
      minimum: 0,
      maximum: INT32_MAX,
    });
    headers['X-RateLimit-Reset'] = intHeader(
      `Unix time (seconds) at which that window resets.${when}`,
      required,
      {
        format: 'int64',
        minimum: 0,
        maximum: MAX_UNIX_SECONDS,
      },
    );
  }
  if (retryAfter) headers['Retry-After'] = RETRY_AFTER_HEADER;
  return headers;
}

/** How a request gets this form's answers, for the document and its header parameter. */
function formSelectionText(form: FormName): string {
  const others = FORM_NAMES.filter((n) => n !== form);
  const toOthers = others.map((n) => `X-API-Form: ${n} (see /api/openapi.json?form=${n})`).join(' or ');
  return (
    `Which form answers: this document describes Form ${form}, the answers to a request that sends X-API-Form: ${form} (any case), ` +
    `or that sends no X-API-Form header and an API key created for Form ${form}. ` +
    `A key of another form is answered in its own form unless X-API-Form: ${form} is sent; ${toOthers} gets that form's answers. ` +
    `An X-API-Form naming no form is a 400 in Form ${DEFAULT_FORM}.` +
    (form === DEFAULT_FORM
      ? ''
      : ` A request without a valid key and without X-API-Form is answered 401 in Form ${DEFAULT_FORM}, the default form; send X-API-Form: ${form} to have every answer in Form ${form}.`)
  );
}

function procedureMetas(router: OpenApiRouter): OperationMeta[] {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: unknown } }>;
  return Object.values(procedures)
    .map((p) => p._def.meta as (RestMeta & { openapi?: OperationMeta['openapi'] }) | undefined)
    .filter((m): m is OperationMeta => !!m?.openapi);
}

/**
 * What differs between the APIs documented: /v1 (rate limited, the form chosen per request) and
 * the recorder API (Form A errors, no rate limits, idempotency keys; docs/rules.md#recorder-api).
 */
export interface Surface {
  /** The errors every operation can answer, beside its own. */
  commonErrors: ErrorCode[];
  rateLimited: boolean;
  /** Whether requests choose their form with X-API-Form. */
  formHeader: boolean;
  /** Request headers every operation reads, beside its own parameters. */
  headers: ParameterObject[];
  /** A header of every success answer, beside X-Request-Id and Cache-Control. */
  successHeaders: HeadersObject;
}

const V1_SURFACE: Surface = {
  commonErrors: COMMON_ERRORS,
  rateLimited: true,
  formHeader: true,
  headers: [],
  successHeaders: {},
};

/** Documents a router as one form of an API: its statuses, its error bodies, its headers. */
export function buildOpenApiDocument(
  router: OpenApiRouter,
  form: FormName,
  opts: {
    title: string;
    description: string;
    baseUrl: string;
    /** Each operation's success body (`GET /notes`, ...), written by the form's presenters. */
    examples?: Record<string, unknown>;
    surface?: Surface;
  },
): OpenAPIObject {
  const surface = opts.surface ?? V1_SURFACE;
  const counted = (when: 'always' | 'never' | 'sometimes') => (surface.rateLimited ? when : 'not-limited');
  const doc = generateOpenApiDocument(router, {
    title: opts.title,
    description: opts.description,
    version: '1.0.0',
    baseUrl: opts.baseUrl,
    securitySchemes: {
      ApiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
    },
  });
  const profile = FORM_PROFILES[form];
  // trpc-to-openapi's own error shapes never reach a client: replace them with the form's.
  const components = doc.components ?? {};
  const schemas = Object.entries(components.schemas ?? {}).filter(([name]) => !name.startsWith('error.'));
  components.schemas = { ...Object.fromEntries(schemas), Error: profile.errorSchema };
  doc.components = components;

  // One error schema per status and set of codes, named Error_<status>.
  const errorSchemaRef = (status: string, codes: ErrorCode[]) => {
    const schema = profile.errorSchemaFor(codes);
    const same = (name: string) => JSON.stringify(components.schemas?.[name]) === JSON.stringify(schema);
    let name = same('Error') ? 'Error' : `Error_${status}`;
    if (components.schemas?.[name] && !same(name)) name = `Error_${status}_${codes.join('_')}`;
    components.schemas = { ...components.schemas, [name]: schema };
    return { $ref: `#/components/schemas/${name}` };
  };

  const defaultForm401Ref = () => {
    const name = `Error_401_Form${DEFAULT_FORM}`;
    components.schemas = {
      ...components.schemas,
      [name]: {
        ...FORM_PROFILES[DEFAULT_FORM].errorSchemaFor(['invalid_api_key']),
        description: `A 401 in Form ${DEFAULT_FORM}: the answer to a request with no valid key and no X-API-Form header.`,
      },
    };
    return { $ref: `#/components/schemas/${name}` };
  };

  for (const meta of procedureMetas(router)) {
    const method = meta.openapi.method.toLowerCase() as Lowercase<OpenApiMethod>;
    const operation = doc.paths?.[meta.openapi.path]?.[method];
    if (!operation) continue;
    const status = meta.rest?.status ?? 200;
    // Every body is capped (413).
    const bodyErrors: ErrorCode[] = meta.openapi.method === 'POST' ? ['payload_too_large'] : [];
    const successHeaders = { ...responseHeaders(counted('always')), ...surface.successHeaders };
    let success: ResponseObject = { description: 'Done; no content.', headers: successHeaders };
    if (status !== 204) {
      const generated: ResponseOrReference | undefined = operation.responses?.['200'];
      if (!generated || '$ref' in generated) {
        throw new Error(
          `trpc-to-openapi wrote no 200 response for ${meta.openapi.method} ${meta.openapi.path}`,
        );
      }
      const operationKey = `${meta.openapi.method} ${meta.openapi.path}`;
      const content = { ...generated.content };
      if (opts.examples) {
        const json = content['application/json'];
        if (!json || !(operationKey in opts.examples)) {
          throw new Error(`No OpenAPI example for ${operationKey} in Form ${form}`);
        }
        content['application/json'] = {
          ...json,
          examples: { sample: { summary: 'A sample answer', value: opts.examples[operationKey] } },
        };
      }
      success = {
        description: status === 201 ? 'Created.' : 'OK.',
        headers: successHeaders,
        content,
      };
    }
    const responses: Record<string, ResponseObject> = { [status]: success };
    // Several codes may share a status in Form B (409 and 422 answer 400): one entry per status.
    const byStatus = new Map<string, ErrorCode[]>();
    for (const code of [...new Set([...surface.commonErrors, ...(meta.rest?.errors ?? []), ...bodyErrors])]) {
      const errorStatus = String(profile.errorStatus[code]);
      byStatus.set(errorStatus, [...(byStatus.get(errorStatus) ?? []), code]);
    }
    for (const [errorStatus, codes] of byStatus) {
      const countedCodes = new Set(codes.map((c) => COUNTED[c]));
      const description = codes.map((c) => DESCRIPTIONS[c]).join(' ');
      const otherForm401 = surface.formHeader && codes.includes('invalid_api_key') && form !== DEFAULT_FORM;
      // One example per code, written by the form's own presentError.
      const examples: Record<string, { summary: string; value: unknown }> = {};
      for (const code of codes) {
        examples[code] = {
          summary: DESCRIPTIONS[code],
          value: profile.presentError(SAMPLE_ERRORS[code]).body,
        };
      }
      if (otherForm401) {
        examples[`invalid_api_key_form_${DEFAULT_FORM.toLowerCase()}`] = {
          summary: `Without X-API-Form: the answer in Form ${DEFAULT_FORM}.`,
          value: FORM_PROFILES[DEFAULT_FORM].presentError(SAMPLE_ERRORS.invalid_api_key).body,
        };
      }
      responses[errorStatus] = {
        description: otherForm401
          ? `${description} Without an X-API-Form header this answer is in Form ${DEFAULT_FORM} (${JSON.stringify(FORM_PROFILES[DEFAULT_FORM].presentError(new AppError('invalid_api_key', '…')).body)}): the key decides the form and there is none. Send X-API-Form: ${form} to have it in Form ${form}.`
          : description,
        headers: responseHeaders(
          counted(countedCodes.size === 1 ? ([...countedCodes][0] ?? 'sometimes') : 'sometimes'),
          codes.includes('rate_limited') || codes.includes('service_unavailable'),
        ),
        content: {
          'application/json': {
            examples,
            schema: otherForm401
              ? // Without X-API-Form a 401 is the default form's; the contract says both.
                { anyOf: [errorSchemaRef(errorStatus, codes), defaultForm401Ref()] }
              : errorSchemaRef(errorStatus, codes),
          },
        },
      };
    }
    operation.responses = responses;
    operation.parameters = [
      ...(operation.parameters ?? []).map((p) => ('$ref' in p ? p : describeParameter(p))),
      ...surface.headers,
      ...(surface.formHeader
        ? [
            {
              name: 'X-API-Form',
              in: 'header' as const,
              required: false,
              description: `Answers this request in Form ${form} (${form} or ${form.toLowerCase()}). ${formSelectionText(form)}`,
              schema: { type: 'string' as const, enum: [form, form.toLowerCase()] },
            },
          ]
        : []),
    ];
  }
  renameInputDefaults(doc.paths);
  doc.tags = TAGS.filter((tag) =>
    Object.values(doc.paths ?? {}).some((item) =>
      Object.values(item).some((op) => (op as OperationObject).tags?.includes(tag.name)),
    ),
  );
  return doc;
}

// The rate limits and caps of docs/rules.md#rate-limits, shown in both forms' documents.
const RATE_LIMITS_TEXT =
  'Rate limits: every account has a daily limit by plan (free 100, pro 10,000, enterprise its own figure) per UTC day, ' +
  'counted across both forms and all of its keys; Form B requests are also limited to 100 per minute per key. ' +
  'A request refused by either limit is a 429 whose X-RateLimit-* and Retry-After headers describe the limit that refused it. ' +
  'An account has at most 20 active API keys. Request bodies are limited to 64 KiB (413). ' +
  'The API answers no cross-origin (CORS) requests from browsers: it sends no Access-Control-* header, and an OPTIONS preflight is a 404.';

/** Who answers for the API; each served document adds the URL of its API reference. */
export const CONTACT = { name: 'Meeting Notes API' };

// One document per form, without its server: the origin is the request's (patched in per answer),
// so no Host header a client sends can grow this cache.
const cache = new Map<FormName, OpenAPIObject>();

/** The document of one form; `origin` (e.g. http://127.0.0.1:3000) makes its server absolute. */
export function openApiDocumentFor(form: FormName, origin?: string): OpenAPIObject {
  let doc = cache.get(form);
  if (!doc) {
    doc = buildOpenApiDocument(FORMS[form].router, form, {
      title: `Meeting Notes API (Form ${form})`,
      description: `${FORM_PROFILES[form].openApiDescription} ${formSelectionText(form)} ${RATE_LIMITS_TEXT}`,
      baseUrl: V1_PREFIX,
      examples: FORMS[form].openApiExamples(),
    });
    doc.info = { ...doc.info, contact: CONTACT };
    // The event catalog: what endpoints receive, described with the Events API's EventData.
    (doc as { webhooks?: unknown }).webhooks = webhooksCatalog();
    doc.tags = [...(doc.tags ?? []), WEBHOOK_EVENTS_TAG];
    cache.set(form, doc);
  }
  return origin ? servedAt(doc, origin, V1_PREFIX) : doc;
}

/**
 * A document as served at `origin`: its server absolute (origin + `prefix`), and the API reference
 * at that origin as where a caller finds who answers for the API.
 */
export function servedAt(doc: OpenAPIObject, origin: string, prefix: string): OpenAPIObject {
  return {
    ...doc,
    info: { ...doc.info, contact: { ...CONTACT, url: `${origin}/docs` } },
    // x-internal: false says the server is meant for the account's own clients, outside the service.
    servers: [{ url: `${origin}${prefix}`, 'x-internal': false }],
  };
}

/** Where the OpenAPI documents find the public origin of the service. */
export interface OpenApiDocumentSettings {
  /** NEXTAUTH_URL: the app's public URL; when set, every document names its origin. */
  publicUrl?: string;
  /** TRUST_PROXY: proxies in front of the server; X-Forwarded-Host/-Proto are read only behind one. */
  trustProxyHops: number;
}

export const openApiDocumentSettings = (env: Env = getEnv()): OpenApiDocumentSettings => ({
  publicUrl: env.NEXTAUTH_URL,
  trustProxyHops: env.TRUST_PROXY,
});

/**
 * The entry a trusted proxy wrote in a list header that each proxy may append to: with `hops`
 * proxies of ours, the one that many places from the end (the entries before it are the client's).
 */
function forwardedEntry(value: string | null, hops: number): string | undefined {
  const entries = (value ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  return entries[Math.max(0, entries.length - hops)];
}

/**
 * The origin a client reached the service at, for the documents' absolute servers:
 * the public URL when configured; else X-Forwarded-Proto and -Host when TRUST_PROXY says a proxy
 * of ours wrote them; else the request's own URL (its Host header). `fromRequest` says whether the
 * answer depends on the request's headers (so a cache must vary on them).
 */
export function publicOrigin(
  request: Request,
  settings: OpenApiDocumentSettings,
): { origin: string; fromRequest: boolean } {
  if (settings.publicUrl) {
    try {
      return { origin: new URL(settings.publicUrl).origin, fromRequest: false };
    } catch {
      /* not a URL: fall back on the request's */
    }
  }
  const own = new URL(request.url);
  if (settings.trustProxyHops > 0) {
    const host = forwardedEntry(request.headers.get('x-forwarded-host'), settings.trustProxyHops);
    const proto = forwardedEntry(request.headers.get('x-forwarded-proto'), settings.trustProxyHops);
    const scheme = proto === 'https' || proto === 'http' ? proto : own.protocol.slice(0, -1);
    // A host and port only: nothing that would put a path, credentials or a query into the URL.
    if (host && /^[a-z0-9.\-[\]:]+$/i.test(host)) {
      try {
        return { origin: new URL(`${scheme}://${host}`).origin, fromRequest: true };
      } catch {
        /* not a host: use the request's own */
      }
    }
    if (proto) return { origin: `${scheme}://${own.host}`, fromRequest: true };
  }
  // The Host the client used: Next's server rewrites request.url to its own hostname, so the
  // header, not the URL, says where the client reached us.
  const host = request.headers.get('host');
  if (host && /^[a-z0-9.\-[\]:]+$/i.test(host)) {
    try {
      return { origin: new URL(`${own.protocol}//${host}`).origin, fromRequest: true };
    } catch {
      /* not a host: use the request's own */
    }
  }
  return { origin: own.origin, fromRequest: true };
}

/**
 * The form a document request names in `?form=` (DEFAULT_FORM without one), or the 400 that
 * refuses another value, in the default form's error shape.
 */
export function documentForm(request: Request): FormName | Response {
  const raw = new URL(request.url).searchParams.get('form');
  const form = raw === null ? DEFAULT_FORM : parseFormName(raw);
  if (form) return form;
  const refusal = new AppError('invalid_request', `form must be ${FORM_NAMES.join(' or ')}`);
  const { status, body } = FORM_PROFILES[DEFAULT_FORM].presentError(refusal);
  return Response.json(body, { status });
}

// GET /api/openapi.json?form=A|B – the OpenAPI 3.1 document of one form (default: DEFAULT_FORM)
export function createOpenApiDocumentHandler(settings: OpenApiDocumentSettings = openApiDocumentSettings()) {
  return async function handleOpenApiDocument(request: Request): Promise<Response> {
    const form = documentForm(request);
    if (form instanceof Response) return form;
    return documentResponse(request, settings, (origin) => openApiDocumentFor(form, origin));
  };
}

/** A document whose servers name the origin the client reached (publicOrigin), cached 5 minutes. */
export function documentResponse(
  request: Request,
  settings: OpenApiDocumentSettings,
  documentAt: (origin: string) => unknown,
): Response {
  const { origin, fromRequest } = publicOrigin(request, settings);
  const headers = new Headers({ 'Cache-Control': 'public, max-age=300' });
  // A shared cache must not hand one client's origin to another.
  if (fromRequest) headers.set('Vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto');
  return Response.json(documentAt(origin), { headers });
}
