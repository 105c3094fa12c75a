import { randomUUID } from 'node:crypto';
import { authenticateApiKey, bearerToken } from '../accounts/authenticate-api-key';
import { AppError } from '../errors';
import { presentErrorA } from '../rest/form-a/errors';
import { createOpenApiDispatcher } from '../rest/openapi-dispatch';
import { readJsonBody } from '../rest/read-json-body';
import { toAppError } from '../rest/to-app-error';
import type { RestContext } from '../rest/trpc';
import type { V1HandlerDeps } from '../rest/v1-handler';
import { recorderRouter } from './router';

export const RECORDER_PREFIX = '/api/recorder';
// 10,000 segments (D16) of a few hundred bytes each.
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The recorder API (D16): the account's API keys, Form A error bodies, not rate limited. */
export function createRecorderHandler(deps: Pick<V1HandlerDeps, 'getDatabase' | 'services'>) {
  const dispatch = createOpenApiDispatcher<RestContext>(recorderRouter, RECORDER_PREFIX);
  return async function handleRecorder(request: Request): Promise<Response> {
    const requestId = randomUUID();
    let response: Response;
    try {
      const { db } = await deps.getDatabase();
      const principal = await authenticateApiKey(db, bearerToken(request.headers.get('authorization')));
      if (!principal) throw new AppError('invalid_api_key', 'Missing, invalid or revoked API key');
      const body = await readJsonBody(request, MAX_BODY_BYTES);
      const result = await dispatch(request, { db, services: deps.services, accountId: principal.account.id, keyId: principal.key.id, requestId }, body);
      if ('error' in result) throw result.error;
      response = result.response;
    } catch (err) {
      const path = new URL(request.url).pathname;
      const { status, body } = presentErrorA(toAppError(err, { requestId, method: request.method, path }));
      response = Response.json(body, { status });
    }
    response.headers.set('X-Request-Id', requestId);
    return response;
  };
}
