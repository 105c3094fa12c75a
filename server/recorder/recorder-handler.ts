import { randomUUID } from 'node:crypto';
import { bearerToken, invalidApiKey } from '../accounts/authenticate-api-key';
import {
  API_RESPONSE_HEADERS,
  type ApiHandlerDeps,
  RECORDER_FORM,
  RECORDER_PREFIX,
} from '../http/api-surfaces';
import { hasMalformedPathEncoding, malformedPathError } from '../http/malformed-path';
import { FORM_PROFILES } from '../rest/form-profiles';
import { answerResponse, createOpenApiDispatcher } from '../http/openapi-dispatch';
import { readJsonBody } from '../http/read-json-body';
import { errorHeaders, noSuchEndpoint, toAppError } from '../http/to-app-error';
import { type RestContext, restContext } from '../http/openapi-trpc';
import { recorderRouter } from './router';
import { parseIdempotencyKey, runIdempotently, type StoredAnswer } from './run-idempotently';
import { nameRequestRoute } from '../telemetry/tracing';

export { RECORDER_PREFIX };
// 10,000 segments of a few hundred bytes each fit several times over. Kept below
// the 10 MB of a body that Next buffers when its proxy runs for a path (proxyClientMaxBodySize,
// cut short silently beyond that), so that a body too large is refused, never truncated.
export const RECORDER_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A stored answer ('' for none) as a Response, with `headers`. */
const storedResponse = (answer: StoredAnswer, headers: Record<string, string>) =>
  answerResponse({ status: answer.status, body: answer.body || null }, headers);

/** The recorder API (docs/rules.md#recorder-api): API-key auth, Form A error bodies, not rate limited. */
export function createRecorderHandler(deps: Pick<ApiHandlerDeps, 'getDatabase' | 'services' | 'now'>) {
  const dispatch = createOpenApiDispatcher<RestContext>(recorderRouter, RECORDER_PREFIX);
  return async function handleRecorder(request: Request): Promise<Response> {
    const requestId = randomUUID();
    const headers: Record<string, string> = { 'X-Request-Id': requestId, ...API_RESPONSE_HEADERS };
    const url = new URL(request.url);
    const { pathname } = url;
    let response: Response;
    try {
      if (hasMalformedPathEncoding(pathname)) throw malformedPathError();
      const { db } = await deps.getDatabase();
      const principal = await deps.services.requests.authenticate(
        db,
        bearerToken(request.headers.get('authorization')),
        deps.now?.() ?? new Date(),
      );
      if (!principal) throw invalidApiKey();
      const idempotencyKey =
        request.method === 'POST' ? parseIdempotencyKey(request.headers.get('idempotency-key')) : null;
      const route = dispatch.routeOf(request.method, pathname);
      if (!route) throw noSuchEndpoint(request);
      nameRequestRoute(request.method, route);
      const body = await readJsonBody(request, RECORDER_MAX_BODY_BYTES);
      const ctx = restContext(db, deps.services, principal, requestId);
      const run = async () => {
        const result = await dispatch(request, url, ctx, body);
        if ('error' in result) throw result.error;
        return { status: result.answer.status, body: result.answer.body ?? '' };
      };
      if (idempotencyKey === null) {
        response = storedResponse(await run(), headers);
      } else {
        const { answer, replayed } = await runIdempotently(
          db,
          {
            accountId: principal.account.id,
            key: idempotencyKey,
            method: request.method,
            path: pathname,
            body,
          },
          run,
        );
        if (replayed) headers['Idempotent-Replayed'] = 'true';
        response = storedResponse(answer, headers);
      }
    } catch (err) {
      const appError = toAppError(err, { requestId, method: request.method, path: pathname });
      const { status, body } = FORM_PROFILES[RECORDER_FORM].presentError(appError);
      response = Response.json(body, { status, headers: { ...errorHeaders(appError), ...headers } });
    }
    return response;
  };
}
