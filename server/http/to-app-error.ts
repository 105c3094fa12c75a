import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { AppError } from '../errors';
import { log } from '../log';
import { appErrorFromZodIssues } from './zod-issues';

/**
 * Turns anything thrown while answering a request into the one AppError the forms know how to
 * write. Whatever is not understood becomes a generic internal_error, logged with the request id.
 */
export function toAppError(
  err: unknown,
  context: { requestId: string; method: string; path: string },
): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof TRPCError) {
    if (err.cause instanceof AppError) return err.cause;
    if (err.cause instanceof ZodError && err.code === 'BAD_REQUEST')
      return appErrorFromZodIssues(err.cause.issues);
    switch (err.code) {
      case 'NOT_FOUND':
      case 'METHOD_NOT_SUPPORTED':
        return new AppError('not_found', `No such endpoint: ${context.method} ${context.path}`);
      case 'PARSE_ERROR':
        return new AppError('invalid_request', 'The request body is not valid JSON');
      case 'UNSUPPORTED_MEDIA_TYPE':
        return new AppError(
          'invalid_request',
          'The request body must be JSON, sent with Content-Type: application/json',
        );
      case 'PAYLOAD_TOO_LARGE':
        return new AppError('invalid_request', 'The request body is too large');
    }
  }
  if (isDatabaseUnreachable(err)) {
    log.warn('database unreachable', { requestId: context.requestId, err: unwrap(err) });
    return new AppError(
      'service_unavailable',
      `The service cannot reach its database for the moment; retry in ${UNAVAILABLE_RETRY_AFTER_S} seconds`,
    );
  }
  log.error('request failed', {
    requestId: context.requestId,
    method: context.method,
    path: context.path,
    err: unwrap(err),
  });
  return new AppError(
    'internal_error',
    `Internal error; quote request id ${context.requestId} when reporting it`,
  );
}

/** How long a client should wait after a 503 (the Retry-After header). */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

// Node's socket errors, postgres.js's connection errors, and SQLSTATEs that say the server is not
// taking work now (class 08 connection exception; 53300 too many connections; 57P01..57P03 shutdown
// or starting up). Anything else is a fault of ours: a 500.
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '53300',
  '57P01',
  '57P02',
  '57P03',
]);

/** True when the error, or one it wraps (drizzle and tRPC wrap them), says the database is out of reach. */
export function isDatabaseUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || /^08...$/.test(code))) return true;
    if (e instanceof AggregateError && e.errors.some(isDatabaseUnreachable)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function unwrap(err: unknown): unknown {
  return err instanceof TRPCError && err.cause ? err.cause : err;
}

/** A method and path the API does not offer: a 404. */
export function noSuchEndpoint(request: Request): AppError {
  return new AppError('not_found', `No such endpoint: ${request.method} ${new URL(request.url).pathname}`);
}

/** Headers an error answer carries besides the surface's own: Retry-After on a 503. */
export function errorHeaders(err: AppError): Record<string, string> {
  return err.code === 'service_unavailable' ? { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) } : {};
}
