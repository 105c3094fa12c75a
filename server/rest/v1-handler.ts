import { randomUUID } from 'node:crypto';
import { authenticateApiKey, bearerToken } from '../accounts/authenticate-api-key';
import type { FormName } from '../db/schema';
import { AppError } from '../errors';
import { API_RESPONSE_HEADERS, type ApiHandlerDeps, V1_PREFIX } from '../http/api-surfaces';
import { hasMalformedPathEncoding, malformedPathError } from './malformed-path-response';
import { consumeRateLimits, rateLimitHeaders } from '../rate-limit/consume-rate-limit';
import { formA } from './form-a';
import { formB } from './form-b';
import { formFromHeader } from './form-header';
import { createOpenApiDispatcher } from '../http/openapi-dispatch';
import { readJsonBody } from '../http/read-json-body';
import type { RestForm } from './rest-form';
import { toAppError } from '../http/to-app-error';
import type { RestContext } from '../http/openapi-trpc';

export const FORMS: Record<FormName, RestForm> = { A: formA, B: formB };
// Issue 8: the largest /v1 body is a webhook registration (a URL of at most 2048 characters).
export const V1_MAX_BODY_BYTES = 64 * 1024;

export type V1HandlerDeps = ApiHandlerDeps;

/**
 * The /v1 facade. It is the one place that decides a request's form (D1), authenticates it
 * (SPEC 5, D15), counts it (D14), hands it to that form's router, and writes every error in
 * that form's format (SPEC 7, D2).
 */
export function createV1Handler(deps: V1HandlerDeps) {
  const dispatchers = {
    A: createOpenApiDispatcher<RestContext>(formA.router, V1_PREFIX),
    B: createOpenApiDispatcher<RestContext>(formB.router, V1_PREFIX),
  };
  const now = deps.now ?? (() => new Date());

  return async function handleV1(request: Request): Promise<Response> {
    const requestId = randomUUID();
    const headers = new Headers({ 'X-Request-Id': requestId, ...API_RESPONSE_HEADERS });
    let form = formA;
    let response: Response;
    try {
      const headerForm = formFromHeader(request);
      if (headerForm) form = FORMS[headerForm];
      // Issue 8 (f): before the key, as Next's proxy answers it (and as a 401 is answered, D1).
      if (hasMalformedPathEncoding(new URL(request.url).pathname)) throw malformedPathError();
      const { db } = await deps.getDatabase();
      const principal = await authenticateApiKey(db, bearerToken(request.headers.get('authorization')));
      if (!principal) throw new AppError('invalid_api_key', 'Missing, invalid or revoked API key');
      const formName = headerForm ?? principal.key.form;
      form = FORMS[formName];

      const at = now();
      const limit = await consumeRateLimits(db, form.rateLimitWindows(principal, at), at);
      for (const [k, v] of Object.entries(rateLimitHeaders(limit))) headers.set(k, v);
      if (!limit.allowed) {
        const which = limit.window.description ? ` (${limit.window.description})` : '';
        throw new AppError(
          'rate_limited',
          `Rate limit exceeded${which}; retry after the time in Retry-After`,
        );
      }
      if (!principal.account.earlyAccess) {
        throw new AppError('forbidden', 'API access is limited to early-access accounts');
      }

      const body = await readJsonBody(request, V1_MAX_BODY_BYTES);
      const ctx: RestContext = {
        db,
        services: deps.services,
        accountId: principal.account.id,
        keyId: principal.key.id,
        requestId,
      };
      const result = await dispatchers[formName](request, ctx, body);
      if ('error' in result) throw result.error;
      response = result.response;
    } catch (err) {
      const { status, body } = form.presentError(
        toAppError(err, { requestId, method: request.method, path: new URL(request.url).pathname }),
      );
      response = Response.json(body, { status });
    }
    for (const [k, v] of headers) response.headers.set(k, v);
    return response;
  };
}
