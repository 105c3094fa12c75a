import { describe, expect, it } from 'vitest';
import { hasMalformedPathEncoding } from '../http/malformed-path';
import { malformedPathResponse } from './malformed-path-response';

// What Next's proxy answers for an API path whose percent-encoding does not decode
// (Next itself would fail decoding the route's parameters with a bare plain-text 500).

const request = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://localhost${path}`, { headers });

describe('hasMalformedPathEncoding: whether the percent-encoding of a path decodes', () => {
  it.each([
    '/v1/notes/%FF',
    '/v1/%',
    '/v1/notes/%zz',
    '/v1/notes/%E0%A4%A',
    '/v1/notes/%C0%80',
    '/v1/notes/%ED%A0%80',
    '/x/%F4%90%80%80',
  ])('%s does not decode', (path) => expect(hasMalformedPathEncoding(path)).toBe(true));

  it.each([
    '/v1/notes',
    '/v1/notes/%41bc',
    '/v1/notes/caf%C3%A9',
    '/v1/notes/%25FF',
    '/',
    '/v1/notes/%F0%9F%98%80',
  ])('%s decodes', (path) => expect(hasMalformedPathEncoding(path)).toBe(false));
});

describe('malformedPathResponse: a 400 in the form the request asks for', () => {
  it('null for a well-formed API path and for any path outside /v1 and /api/recorder', () => {
    expect(malformedPathResponse(request('/v1/notes/3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b'))).toBeNull();
    expect(malformedPathResponse(request('/notes/%FF'))).toBeNull();
    expect(malformedPathResponse(request('/api/trpc/%FF'))).toBeNull();
    expect(malformedPathResponse(request('/v1x/%FF'))).toBeNull();
  });

  it.each([
    [
      '/v1/notes/%FF',
      {},
      { error: { code: 'invalid_request', message: 'The request path is not valid percent-encoded UTF-8' } },
    ],
    [
      '/v1/%',
      { 'x-api-form': 'A' },
      { error: { code: 'invalid_request', message: 'The request path is not valid percent-encoded UTF-8' } },
    ],
    [
      '/v1/notes/%FF',
      { 'x-api-form': ' b ' },
      { error: 'The request path is not valid percent-encoded UTF-8' },
    ],
    [
      '/v1/notes/%FF',
      { 'x-api-form': 'C' },
      { error: { code: 'invalid_request', message: 'The request path is not valid percent-encoded UTF-8' } },
    ],
    [
      '/api/recorder/meetings/%FF/transcript',
      { 'x-api-form': 'B' },
      { error: { code: 'invalid_request', message: 'The request path is not valid percent-encoded UTF-8' } },
    ],
  ])("%s with %j → 400 in the surface's shape, X-Request-Id, no-store", async (path, headers, body) => {
    const res = malformedPathResponse(request(path, headers))!;
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(body);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('every answer has its own request id', () => {
    const ids = new Set(
      Array.from({ length: 5 }, () => malformedPathResponse(request('/v1/%FF'))!.headers.get('x-request-id')),
    );
    expect(ids.size).toBe(5);
  });
});
