import type { AppError, ErrorCode } from '../../errors';

// Form A: {"error":{"code","message"}} with these statuses (docs/rules.md#errors).
export const FORM_A_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_api_key: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  validation_error: 422,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

export function presentErrorA(err: AppError): { status: number; body: unknown } {
  return { status: FORM_A_STATUS[err.code], body: { error: { code: err.code, message: err.message } } };
}
