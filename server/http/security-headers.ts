import { randomBytes } from 'node:crypto';

// The settings app's browser protections. Pages get a Content-Security-Policy with a
// fresh nonce per request: Next reads the nonce from the request's CSP header and puts it on
// its own inline and chunk scripts, and 'strict-dynamic' lets those scripts load others (the
// API reference loads Swagger UI's bundle that way). Styles keep 'unsafe-inline': Swagger UI and
// React set inline styles, and a style cannot run code. Limits: a CSP only helps in browsers
// that enforce it; it does not replace escaping, which React does.

export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

export function contentSecurityPolicy(opts: { nonce: string; development: boolean; https: boolean }): string {
  const directives = [
    "default-src 'self'",
    // next dev's React needs eval for its debugging aids; never in a production build.
    `script-src 'self' 'nonce-${opts.nonce}' 'strict-dynamic'${opts.development ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(opts.https ? ['upgrade-insecure-requests'] : []),
  ];
  return directives.join('; ');
}

/** Whether the browser reached us over https: directly, or through a proxy that says so. */
export function cameOverHttps(request: Request): boolean {
  if (new URL(request.url).protocol === 'https:') return true;
  return request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}
