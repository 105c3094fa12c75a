import { randomUUID } from 'node:crypto';
import NextAuthModule from 'next-auth';
import type { FetchHandler } from '../http/serve-node';
import { readLimitedBody } from '../http/read-limited-body';
import { log } from '../log';
import { authRequestContext } from './auth-logger';
import { createAuthOptions, SIGN_IN_THROTTLED, type AuthDeps } from './auth-options';
import { parseCookies } from './request-session';
import { cjsDefault } from './cjs-default';

const NextAuth = cjsDefault(NextAuthModule);

export const AUTH_PREFIX = '/api/auth';
/** Sign-in, sign-out and CSRF forms are a few hundred bytes. */
export const AUTH_MAX_BODY_BYTES = 16 * 1024;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const error = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json(status, { error: code, message }, headers);

/** Form fields, or a JSON object's string fields: next-auth reads nothing else. */
function parseBody(bytes: Uint8Array, contentType: string): Record<string, string> | undefined | 'malformed' {
  const text = new TextDecoder().decode(bytes);
  const fields: Record<string, string> = Object.create(null);
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType)) {
    for (const [key, value] of new URLSearchParams(text)) fields[key] = value;
    return fields;
  }
  if (/^application\/json\b/i.test(contentType)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return 'malformed';
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'malformed';
    for (const [key, field] of Object.entries(value)) if (typeof field === 'string') fields[key] = field;
    return fields;
  }
  return undefined;
}

/**
 * next-auth refuses a callbackUrl that is neither a path nor an http(s) URL with a "server
 * configuration" 500 (its assertConfig), in the query or in its callback-url cookie. Such a value
 * is dropped here, as if never sent; every other one still goes through the redirect callback,
 * which keeps only same-origin targets.
 */
function isHttpTarget(value: string): boolean {
  if (value.startsWith('/')) return true;
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** The shape of a Next API response that next-auth's handler writes to, collected for a fetch Response. */
class CollectedResponse {
  status = 200;
  private headers = new Map<string, string | string[]>();
  private body: string | undefined;

  setStatus(code: number) {
    this.status = code;
  }
  setHeader(name: string, value: string | string[]) {
    this.headers.set(name.toLowerCase(), value);
  }
  getHeader(name: string) {
    return this.headers.get(name.toLowerCase());
  }
  text() {
    return this.body;
  }
  write(body: unknown) {
    if (body !== null && typeof body === 'object') {
      if (!this.headers.has('content-type')) this.setHeader('content-type', 'application/json');
      this.body = JSON.stringify(body);
    } else if (body !== undefined) {
      if (!this.headers.has('content-type')) this.setHeader('content-type', 'text/plain; charset=utf-8');
      this.body = String(body);
    }
  }
  /** The Next API response methods next-auth calls. */
  shim() {
    const res = {
      status: (code: number) => {
        this.setStatus(code);
        return res;
      },
      setHeader: (name: string, value: string | string[]) => {
        this.setHeader(name, value);
        return res;
      },
      getHeader: (name: string) => this.getHeader(name),
      end: (body?: unknown) => this.write(body),
      send: (body: unknown) => this.write(body),
      json: (body: unknown) => {
        this.setHeader('content-type', 'application/json');
        this.write(body ?? null);
      },
    };
    return res;
  }
  toResponse(extra: Record<string, string>): Response {
    const headers = new Headers(extra);
    for (const [name, value] of this.headers)
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    return new Response(this.body ?? null, { status: this.status, headers });
  }
}

/**
 * /api/auth/* – next-auth (sign-in, sign-out, session, CSRF) as a fetch handler that needs no
 * Next request context, so the tests serve it like any other route. next-auth's Next API entry
 * point does the work; around it: a body cap read while the body streams in (413), bodies and
 * cookies parsed here, the inputs next-auth itself would answer with a 500 refused first, a
 * throttled sign-in answered 429 with Retry-After, and browsers' log reports kept out of next-auth.
 */
export function createAuthHandler(deps: AuthDeps): FetchHandler {
  const options = createAuthOptions(deps);
  return async (request) => {
    const requestId = randomUUID();
    const idHeader = { 'X-Request-Id': requestId };
    const url = new URL(request.url);
    let segments: string[];
    try {
      segments = url.pathname.slice(AUTH_PREFIX.length).split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      return error(400, 'invalid_request', 'The path is not valid percent-encoding', idHeader);
    }
    const [action, providerId] = segments;
    if (!action) return error(404, 'not_found', 'Not found', idHeader);
    if (request.method !== 'GET' && request.method !== 'POST')
      return error(405, 'method_not_allowed', 'Use GET or POST', { ...idHeader, Allow: 'GET, POST' });

    let body: Record<string, string> | undefined;
    if (request.method === 'POST') {
      const read = await readLimitedBody(request, AUTH_MAX_BODY_BYTES);
      if (!read.ok) {
        return read.reason === 'too-large'
          ? error(
              413,
              'payload_too_large',
              `The request body is larger than ${AUTH_MAX_BODY_BYTES} bytes`,
              idHeader,
            )
          : error(400, 'invalid_request', 'The request body could not be read', idHeader);
      }
      const parsed = parseBody(read.bytes, request.headers.get('content-type') ?? '');
      if (parsed === 'malformed')
        return error(400, 'invalid_request', 'The request body is not a JSON object', idHeader);
      body = parsed;
    }
    if (action === '_log') {
      // The browser's next-auth client reports its own errors here; a code is all that is kept.
      log.info('next-auth client report', { requestId, code: String(body?.code ?? '').slice(0, 64) });
      return json(200, {}, idHeader);
    }
    // Credentials are only ever posted; next-auth answers a GET with a 500.
    if (action === 'callback' && providerId === 'credentials' && request.method !== 'POST') {
      return error(405, 'method_not_allowed', 'Credentials are posted', { ...idHeader, Allow: 'POST' });
    }
    const headers = Object.fromEntries(request.headers) as Record<string, string>;
    // As Next's server does before any route: next-auth takes the site's origin from these
    // (with AUTH_TRUST_HOST), and without a protocol it would assume https.
    headers['x-forwarded-host'] ??= headers.host ?? url.host;
    headers['x-forwarded-proto'] ??= url.protocol.replace(/:$/, '');
    // A host that is no host name would make next-auth's URL parsing throw.
    const host = headers['x-forwarded-host'];
    if (!URL.canParse(`http://${host}`))
      return error(400, 'invalid_request', 'The Host header is not a host name', idHeader);

    const query: Record<string, unknown> = Object.fromEntries(url.searchParams);
    if (typeof query.callbackUrl === 'string' && !isHttpTarget(query.callbackUrl)) delete query.callbackUrl;
    const cookies: Record<string, string> = Object.assign(
      Object.create(null),
      Object.fromEntries(parseCookies(request.headers.get('cookie'))),
    );
    for (const name of ['next-auth.callback-url', '__Secure-next-auth.callback-url']) {
      const value = cookies[name];
      if (value !== undefined && !isHttpTarget(value)) delete cookies[name];
    }
    // The error page's code (from the query, or the path after /error) goes unencoded into a
    // Location header, where a control character would make the response itself fail.
    if (action === 'error') {
      const code = typeof query.error === 'string' ? query.error : providerId;
      query.error = code && /^[\w:.-]{1,100}$/.test(code) ? code : 'Default';
    }
    query.nextauth = segments;

    const collected = new CollectedResponse();
    await authRequestContext.run({ requestId }, () =>
      NextAuth(
        { query, body, cookies, headers, method: request.method } as never,
        collected.shim() as never,
        options,
      ),
    );
    const throttled = throttledSeconds(collected);
    if (throttled !== null) {
      collected.setStatus(429);
      return collected.toResponse({ ...idHeader, 'Retry-After': String(throttled) });
    }
    return collected.toResponse(idHeader);
  };
}

/**
 * The seconds to wait when next-auth is answering a throttled sign-in (authorize's error) to the
 * browser's client, which posts with json=true and gets 401 and the URL of the error.
 */
function throttledSeconds(collected: CollectedResponse): number | null {
  if (collected.status !== 401) return null;
  let target: unknown;
  try {
    target = (JSON.parse(collected.text() ?? '') as { url?: unknown }).url;
  } catch {
    return null;
  }
  if (typeof target !== 'string' || !URL.canParse(target)) return null;
  const [code, seconds] = (new URL(target).searchParams.get('error') ?? '').split(':');
  return code === SIGN_IN_THROTTLED && /^\d+$/.test(seconds ?? '') ? Number(seconds) : null;
}
