import { AppError } from '../errors';
import { readLimitedBody } from './read-limited-body';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

// `__proto__` as a JSON key would become the prototype of the input object once trpc-to-openapi
// copies the body with Object.assign; no field of ours has that name (unknown keys are ignored).
const dropProtoKeys = (key: string, value: unknown) => (key === '__proto__' ? undefined : value);

/**
 * Reads a JSON object body (anything else is a 400). At most maxBytes of it are read, counted
 * while it streams in, so a chunked body is refused (413) as soon as it passes the cap; the rest
 * is left unread (see readLimitedBody for why the connection stays open).
 * Returns undefined for methods without a body.
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number,
): Promise<Record<string, unknown> | undefined> {
  if (!METHODS_WITH_BODY.has(request.method)) return undefined;
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type.trim())) {
    throw new AppError(
      'invalid_request',
      'The request body must be JSON, sent with Content-Type: application/json',
    );
  }
  const body = await readLimitedBody(request, maxBytes);
  if (!body.ok) {
    throw body.reason === 'too-large'
      ? new AppError('payload_too_large', `The request body is larger than ${maxBytes} bytes`)
      : new AppError('invalid_request', 'The request body could not be read to its end');
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body.bytes), dropProtoKeys);
  } catch {
    throw new AppError('invalid_request', 'The request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('invalid_request', 'The request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
