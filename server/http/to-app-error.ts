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

function unwrap(err: unknown): unknown {
  return err instanceof TRPCError && err.cause ? err.cause : err;
}
