import { type NextRequest, NextResponse } from 'next/server';
import { isNextDev } from '@/server/env';
import { hasMalformedPathEncoding } from '@/server/http/malformed-path';
import { malformedPathResponse } from '@/server/rest/malformed-path-response';
import { cameOverHttps, contentSecurityPolicy, createNonce } from '@/server/http/security-headers';
import { REQUESTED_PATH_HEADER } from '@/components/auth/callback-path';

// Next's proxy (the successor of middleware). It does three things Next's router cannot:
// - answers a path whose percent-encoding does not decode (`/v1/notes/%FF`): Next would fail
//   to decode the route's parameters and write a bare plain-text 500; the APIs get a 400 in
//   their own shape, pages a plain 400;
// - gives every page a Content-Security-Policy with a fresh nonce, passed on in the request
//   headers, where Next's renderer finds it and puts it on its scripts;
// - passes the page's path on in a request header (set here, so a client cannot choose it), for
//   the settings layout to send a signed-out visitor to sign-in and back to this page after.
// The headers that are the same on every response are in next.config.mjs.
const MALFORMED_PATH = 'the address is not valid percent-encoded UTF-8';

export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  const api =
    pathname.startsWith('/api/') || pathname === '/v1' || pathname.startsWith('/v1/') || pathname === '/mcp';
  if (hasMalformedPathEncoding(pathname)) {
    return (
      malformedPathResponse(request) ??
      (api
        ? NextResponse.json({ error: MALFORMED_PATH }, { status: 400 })
        : new NextResponse(`Bad request: ${MALFORMED_PATH}`, {
            status: 400,
            headers: { 'Content-Type': 'text/plain; charset=utf-8' },
          }))
    );
  }
  if (api) return NextResponse.next();
  const csp = contentSecurityPolicy({
    nonce: createNonce(),
    development: isNextDev(),
    https: cameOverHttps(request),
  });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('Content-Security-Policy', csp);
  const requested = request.nextUrl.clone();
  requested.searchParams.delete('_rsc'); // Next's cache key on client navigations, not the page's
  requestHeaders.set(REQUESTED_PATH_HEADER, `${requested.pathname}${requested.search}`);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('Content-Security-Policy', csp);
  return response;
}

export const config = {
  matcher: [
    // Pages: not the JSON APIs (the MCP server's included), Next's build assets or Swagger UI's files.
    '/((?!api/|v1/|v1$|mcp$|_next/static|_next/image|docs/swagger/|favicon.ico).*)',
    // The APIs only when the path has an escape that may not decode, so an ordinary API
    // request never pays for the proxy.
    '/v1/(.*%.*)',
    '/api/(.*%.*)',
  ],
};
