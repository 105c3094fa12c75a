import type { AppError, ErrorCode } from '../../errors';

// Form B: {"error":"<message>"}, no code; 422 and 409 answer 400 here (docs/rules.md#errors).
export const FORM_B_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_api_key: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 400,
  validation_error: 400,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

export function presentErrorB(err: AppError): { status: number; body: unknown } {
  return { status: FORM_B_STATUS[err.code], body: { error: err.message } };
}
