import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM, type FormName } from '../domain';
import { hasMalformedPathEncoding, malformedPathError } from '../http/malformed-path';
import { FORM_PROFILES } from './form-profiles';
import { formFromHeader } from './form-header';
import { API_RESPONSE_HEADERS, RECORDER_FORM, RECORDER_PREFIX, V1_PREFIX } from '../http/api-surfaces';

/** The form the /v1 facade reads before the key: the header's, else (or if it is invalid) the default. */
function formBeforeKey(request: Request): FormName {
  try {
    return formFromHeader(request) ?? DEFAULT_FORM;
  } catch {
    return DEFAULT_FORM;
  }
}

const underPrefix = (pathname: string, prefix: string) =>
  pathname === prefix || pathname.startsWith(`${prefix}/`);

/**
 * Next decodes a route's path parameters before our route handler runs, and a path such as
 * `/v1/notes/%FF` makes it answer a plain-text 500 with no request id. Run from Next's proxy, this
 * answers such a request in its surface's shape instead: a 400 in the request's form for /v1
 * (Form B only when X-API-Form says B: there is no key yet), Form A for the recorder.
 * Null for a well-formed path or another surface.
 */
export function malformedPathResponse(request: Request): Response | null {
  const { pathname } = new URL(request.url);
  const v1 = underPrefix(pathname, V1_PREFIX);
  if (!v1 && !underPrefix(pathname, RECORDER_PREFIX)) return null;
  if (!hasMalformedPathEncoding(pathname)) return null;
  const form = FORM_PROFILES[v1 ? formBeforeKey(request) : RECORDER_FORM];
  const { status, body } = form.presentError(malformedPathError());
  return Response.json(body, { status, headers: { ...API_RESPONSE_HEADERS, 'X-Request-Id': randomUUID() } });
}
