import { randomUUID } from 'node:crypto';
import { bearerToken, invalidApiKey, refusalOf } from '../accounts/authenticate-api-key';
import { API_RESPONSE_HEADERS, type ApiHandlerDeps, V1_PREFIX } from '../http/api-surfaces';
import { hasMalformedPathEncoding, malformedPathError } from '../http/malformed-path';
import { DEFAULT_FORM } from '../domain';
import { FORMS, mapForms } from './forms';
import { formFromHeader } from './form-header';
import { answerResponse, createOpenApiDispatcher } from '../http/openapi-dispatch';
import { readJsonBody } from '../http/read-json-body';
import { errorHeaders, noSuchEndpoint, toAppError } from '../http/to-app-error';
import { type RestContext, restContext } from '../http/openapi-trpc';
import { annotateSpan, nameRequestRoute } from '../telemetry/tracing';
import { V1_MAX_BODY_BYTES } from '../openapi-bounds';

// The largest /v1 body is a webhook registration (a URL of at most 2048 characters): see
// docs/rules.md#limits-on-input. The cap lives with the documents' bounds, which use it too.
export { V1_MAX_BODY_BYTES };

export type V1HandlerDeps = ApiHandlerDeps;

/**
 * The /v1 facade. It is the one place that decides a request's form, authenticates it, counts
 * it against the rate limits, hands it to that form's router, and writes every error in that
 * form's format, in the order docs/rules.md#errors gives.
 */
export function createV1Handler(deps: V1HandlerDeps) {
  const dispatchers = mapForms((form) => createOpenApiDispatcher<RestContext>(form.router, V1_PREFIX));
  const now = deps.now ?? (() => new Date());
  const rules = mapForms((form) => form.rateLimits);

  return async function handleV1(request: Request): Promise<Response> {
    const requestId = randomUUID();
    const headers: Record<string, string> = { 'X-Request-Id': requestId, ...API_RESPONSE_HEADERS };
    const url = new URL(request.url);
    const { pathname } = url;
    let form = FORMS[DEFAULT_FORM];
    let response: Response;
    try {
      const headerForm = formFromHeader(request);
      if (headerForm) form = FORMS[headerForm];
      // Before the key, as Next's proxy answers it (and in the header's form, as a 401 is).
      if (hasMalformedPathEncoding(pathname)) throw malformedPathError();
      const { db } = await deps.getDatabase();
      // The key, its form and the count: one round trip.
      const counted = await deps.services.requests.authenticateAndCount(
        db,
        bearerToken(request.headers.get('authorization')),
        {
          ...(headerForm && { form: headerForm }),
          rules,
          now: now(),
        },
      );
      if (!counted) throw invalidApiKey();
      const { principal, form: formName } = counted;
      // Refusals from here on are written in the key's (or the header's) form.
      form = FORMS[formName];
      const refused = refusalOf(counted, headers);
      if (refused) throw refused;

      const dispatch = dispatchers[formName];
      const route = dispatch.routeOf(request.method, pathname);
      if (!route) throw noSuchEndpoint(request);
      nameRequestRoute(request.method, route);
      const body = await readJsonBody(request, V1_MAX_BODY_BYTES);
      const ctx = restContext(db, deps.services, principal, requestId);
      const result = await dispatch(request, url, ctx, body);
      if ('error' in result) throw result.error;
      response = answerResponse(result.answer, headers);
    } catch (err) {
      const appError = toAppError(err, { requestId, method: request.method, path: pathname });
      const { status, body } = form.presentError(appError);
      response = Response.json(body, { status, headers: { ...errorHeaders(appError), ...headers } });
    }
    annotateSpan({ 'api.form': form.name });
    return response;
  };
}
