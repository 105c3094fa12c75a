import { AppError } from '../errors';

/** True when some segment of the path is not valid percent-encoded UTF-8 (e.g. `/v1/notes/%FF`). */
export function hasMalformedPathEncoding(pathname: string): boolean {
  for (const segment of pathname.split('/')) {
    if (!segment.includes('%')) continue;
    try {
      decodeURIComponent(segment);
    } catch {
      return true;
    }
  }
  return false;
}

export const malformedPathError = () =>
  new AppError('invalid_request', 'The request path is not valid percent-encoded UTF-8');
