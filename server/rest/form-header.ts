import { FORM_NAMES, type FormName, parseFormName } from '../domain';
import { AppError } from '../errors';

/** The X-API-Form header, if any; any value that names no form (any case) is a Form A 400. */
export function formFromHeader(request: Request): FormName | undefined {
  const raw = request.headers.get('x-api-form');
  if (raw === null) return undefined;
  const form = parseFormName(raw);
  if (!form) throw new AppError('invalid_request', `X-API-Form must be ${FORM_NAMES.join(' or ')}`);
  return form;
}
