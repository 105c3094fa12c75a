// One error type for the whole service. Each API form writes it in its own wire format
// (server/rest/form-a/errors.ts, server/rest/form-b/errors.ts); nothing else does.

export const ERROR_CODES = [
  'invalid_request',
  'invalid_api_key',
  'forbidden',
  'not_found',
  'conflict',
  'validation_error',
  'payload_too_large',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const validationError = (message: string) => new AppError('validation_error', message);
export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found`);
export const conflict = (message: string) => new AppError('conflict', message);

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
