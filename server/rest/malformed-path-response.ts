import { randomUUID } from 'node:crypto';
import type { FormName } from '../db/schema';
import { AppError } from '../errors';
import { presentErrorA } from './form-a/errors';
import { presentErrorB } from './form-b/errors';
import { formFromHeader } from './form-header';
import { API_RESPONSE_HEADERS, RECORDER_PREFIX, V1_PREFIX } from '../http/api-surfaces';

/** True when some segment of the path is not valid percent-encoded UTF-8 (e.g. `/v1/notes/%FF`). */
export function hasMalformedPathEncoding(pathname: string): boolean {
  for (const segment of pathname.split('/')) {
    if (!segment.includes('%')) continue;
    try {
      decodeURIComponent(segment);
    } catch {
      return true;
    }
  }
  return false;
}

export const malformedPathError = () =>
  new AppError('invalid_request', 'The request path is not valid percent-encoded UTF-8');

// Each form's error format, checked by the compiler: a form added to FormName must be added here.
const PRESENT_ERROR: Record<FormName, typeof presentErrorA> = { A: presentErrorA, B: presentErrorB };

/** D1 as the /v1 facade reads it, before the key: the header's form, else (or if it is invalid) A. */
function formBeforeKey(request: Request): FormName {
  try {
    return formFromHeader(request) ?? 'A';
  } catch {
    return 'A';
  }
}

const underPrefix = (pathname: string, prefix: string) =>
  pathname === prefix || pathname.startsWith(`${prefix}/`);

/**
 * D2, issue 8 (f): Next decodes a route's path parameters before our route handler runs, and a
 * path such as `/v1/notes/%FF` makes it answer a plain-text 500 with no request id. Run from
 * Next's proxy, this answers such a request in its surface's shape instead: a 400 in the
 * request's form for /v1 (D1: Form B only when X-API-Form says B), Form A for the recorder.
 * Null for a well-formed path or another surface.
 */
export function malformedPathResponse(request: Request): Response | null {
  const { pathname } = new URL(request.url);
  const v1 = underPrefix(pathname, V1_PREFIX);
  if (!v1 && !underPrefix(pathname, RECORDER_PREFIX)) return null;
  if (!hasMalformedPathEncoding(pathname)) return null;
  const { status, body } = PRESENT_ERROR[v1 ? formBeforeKey(request) : 'A'](malformedPathError());
  return Response.json(body, { status, headers: { ...API_RESPONSE_HEADERS, 'X-Request-Id': randomUUID() } });
}
