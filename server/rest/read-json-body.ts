import { AppError } from '../errors';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Reads a JSON object body (D2: anything else is a 400), at most maxBytes long.
 * Returns undefined for methods without a body.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<Record<string, unknown> | undefined> {
  if (!METHODS_WITH_BODY.has(request.method)) return undefined;
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type.trim())) {
    throw new AppError('invalid_request', 'The request body must be JSON, sent with Content-Type: application/json');
  }
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw new AppError('invalid_request', `The request body is larger than ${maxBytes} bytes`);
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > maxBytes) throw new AppError('invalid_request', `The request body is larger than ${maxBytes} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new AppError('invalid_request', 'The request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('invalid_request', 'The request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
