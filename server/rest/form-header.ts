import { AppError } from '../errors';
import type { FormName } from '../db/schema';

/** D1: the X-API-Form header, if any; any value but A or B (any case) is a Form A 400. */
export function formFromHeader(request: Request): FormName | undefined {
  const raw = request.headers.get('x-api-form');
  if (raw === null) return undefined;
  const value = raw.trim().toUpperCase();
  if (value === 'A' || value === 'B') return value;
  throw new AppError('invalid_request', 'X-API-Form must be A or B');
}
