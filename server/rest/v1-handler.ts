import { randomUUID } from 'node:crypto';
import { authenticateApiKey, bearerToken } from '../accounts/authenticate-api-key';
import type { Database } from '../db/client';
import type { FormName } from '../db/schema';
import type { Services } from '../services';
import { AppError } from '../errors';
import { consumeRateLimit, rateLimitHeaders } from '../rate-limit/consume-rate-limit';
import { formA } from './form-a';
import { formB } from './form-b';
import { createOpenApiDispatcher } from './openapi-dispatch';
import { readJsonBody } from './read-json-body';
import type { RestForm } from './rest-form';
import { toAppError } from './to-app-error';
import type { RestContext } from './trpc';

export const FORMS: Record<FormName, RestForm> = { A: formA, B: formB };
const V1_PREFIX = '/v1';
const MAX_BODY_BYTES = 64 * 1024;

/** D1: the X-API-Form header, if any; any value but A or B (any case) is a Form A 400. */
function formFromHeader(request: Request): FormName | undefined {
  const raw = request.headers.get('x-api-form');
  if (raw === null) return undefined;
  const value = raw.trim().toUpperCase();
  if (value === 'A' || value === 'B') return value;
  throw new AppError('invalid_request', 'X-API-Form must be A or B');
}

export interface V1HandlerDeps {
  getDatabase(): Promise<Database>;
  services: Services;
  now?(): Date;
}

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
    const headers = new Headers({ 'X-Request-Id': requestId });
    let form = formA;
    let response: Response;
    try {
      const headerForm = formFromHeader(request);
      if (headerForm) form = FORMS[headerForm];
      const { db } = await deps.getDatabase();
      const principal = await authenticateApiKey(db, bearerToken(request.headers.get('authorization')));
      if (!principal) throw new AppError('invalid_api_key', 'Missing, invalid or revoked API key');
      const formName = headerForm ?? principal.key.form;
      form = FORMS[formName];

      const limit = await consumeRateLimit(db, form.rateLimitWindow(principal, now()), now());
      for (const [k, v] of Object.entries(rateLimitHeaders(limit))) headers.set(k, v);
      if (!limit.allowed) throw new AppError('rate_limited', 'Rate limit exceeded; retry after the time in Retry-After');
      if (!principal.account.earlyAccess) {
        throw new AppError('forbidden', 'API access is limited to early-access accounts');
      }

      const body = await readJsonBody(request, MAX_BODY_BYTES);
      const ctx: RestContext = { db, services: deps.services, accountId: principal.account.id, keyId: principal.key.id, requestId };
      const result = await dispatchers[formName](request, ctx, body);
      if ('error' in result) throw result.error;
      response = result.response;
    } catch (err) {
      const path = new URL(request.url).pathname;
      const { status, body } = form.presentError(toAppError(err, { requestId, method: request.method, path }));
      response = Response.json(body, { status });
    }
    for (const [k, v] of headers) response.headers.set(k, v);
    return response;
  };
}
