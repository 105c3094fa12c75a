import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWAGGER_UI_OPTIONS } from '../../components/docs/swagger-options';
import { DEFAULT_FORM, FORM_NAMES, type FormName } from '../../server/domain';
import { ERROR_CODES, type ErrorCode } from '../../server/errors';
import { FORM_PROFILES } from '../../server/rest/form-profiles';
import { openApiDocumentFor, publicOrigin } from '../../server/rest/openapi-document';
import { createContractValidator } from '../support/openapi-contract';
import { startTestApp, type TestApp } from '../support/test-app';

// The OpenAPI documents tell the whole truth, and a generated client works on the first call:
// absolute servers, the form in the contract, precise errors, the contract validated on every
// test request, and Swagger UI's validator.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const doc = async (form: FormName) => (await app.request(`/api/openapi.json?form=${form}`)).json;
const operations = (d: any) =>
  Object.entries(d.paths).flatMap(([path, item]: [string, any]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]: [string, any]) => ({ path, method, op })),
  );
const resolve = (d: any, schema: any) =>
  schema.$ref ? d.components.schemas[schema.$ref.slice('#/components/schemas/'.length)] : schema;

describe('absolute servers from the request origin', () => {
  it.each(FORM_NAMES)('Form %s: servers is the origin the request reached, plus /v1', async (form) => {
    const res = await app.request(`/api/openapi.json?form=${form}`);
    expect(res.json.servers).toEqual([{ url: `${app.url}/v1`, 'x-internal': false }]);
    // A shared cache must not hand one Host's document to another.
    expect(res.headers.get('vary')).toContain('Host');
  });

  const request = (headers: Record<string, string> = {}) =>
    new Request('http://127.0.0.1:3000/api/openapi.json', { headers });

  it('NEXTAUTH_URL, the public URL, wins over the request', () => {
    const settings = { publicUrl: 'https://notes.example.com/some/path', trustProxyHops: 1 };
    const got = publicOrigin(request({ 'x-forwarded-host': 'evil.example' }), settings);
    expect(got).toEqual({ origin: 'https://notes.example.com', fromRequest: false });
  });

  it('X-Forwarded-Host/-Proto count only when TRUST_PROXY says a proxy of ours wrote them', () => {
    const forwarded = request({ 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'https' });
    expect(publicOrigin(forwarded, { trustProxyHops: 0 }).origin).toBe('http://127.0.0.1:3000');
    expect(publicOrigin(forwarded, { trustProxyHops: 1 }).origin).toBe('https://api.example.com');
    // The client's own entries, left of the proxy's, are ignored.
    const appended = request({
      'x-forwarded-host': 'evil.example, api.example.com',
      'x-forwarded-proto': 'http, https',
    });
    expect(publicOrigin(appended, { trustProxyHops: 1 }).origin).toBe('https://api.example.com');
    // A host that would smuggle a path or credentials into the URL is not taken.
    const hostile = request({ 'x-forwarded-host': 'evil.example/x?y', 'x-forwarded-proto': 'https' });
    expect(publicOrigin(hostile, { trustProxyHops: 1 }).origin).toBe('https://127.0.0.1:3000');
  });

  it('the Host the client used, not the URL Next rewrites to its own hostname (as under npm start)', () => {
    const viaHost = request({ host: 'notes.example:8443' });
    expect(publicOrigin(viaHost, { trustProxyHops: 0 }).origin).toBe('http://notes.example:8443');
    // A Host that would smuggle a path or credentials into the URL is not taken.
    const hostile = request({ host: 'evil.example/x?y' });
    expect(publicOrigin(hostile, { trustProxyHops: 0 }).origin).toBe('http://127.0.0.1:3000');
  });

  it('the document cache does not grow with the origins clients send', () => {
    const first = openApiDocumentFor('A', 'http://one.example');
    const second = openApiDocumentFor('A', 'http://two.example');
    expect(first.servers).toEqual([{ url: 'http://one.example/v1', 'x-internal': false }]);
    expect(second.servers).toEqual([{ url: 'http://two.example/v1', 'x-internal': false }]);
    // The paths are the one cached document's, shared by every origin.
    expect(second.paths).toBe(first.paths);
  });
});

describe('each document says how a request gets its form', () => {
  it.each(FORM_NAMES)('Form %s: info.description and X-API-Form name this form only', async (form) => {
    const d = await doc(form);
    expect(d.info.description).toContain(`X-API-Form: ${form} (any case)`);
    expect(d.info.description).toContain(`an API key created for Form ${form}`);
    for (const { op } of operations(d)) {
      const header = op.parameters.find((p: any) => p.name === 'X-API-Form');
      expect(header.schema.enum).toEqual([form, form.toLowerCase()]);
      expect(header.description).toContain(`Answers this request in Form ${form}`);
    }
  });

  it('the Form B document says a 401 without X-API-Form is answered in Form A', async () => {
    const b = await doc('B');
    expect(b.info.description).toContain('without X-API-Form is answered 401 in Form A');
    for (const { op } of operations(b)) {
      expect(op.responses['401'].description).toContain(
        'Without an X-API-Form header this answer is in Form A',
      );
    }
    // ...and it is: a Form B client with no key and no header gets Form A's body.
    const res = await app.request('/v1/notes');
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_api_key');
  });
});

describe('precise error documentation', () => {
  it.each(FORM_NAMES)('Form %s: each status lists only the codes it can carry', async (form) => {
    const d = await doc(form);
    for (const { path, method, op } of operations(d)) {
      for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
        if (Number(status) < 400) continue;
        const documented = response.content['application/json'].schema;
        // In a form other than the default, a 401 may also be the default form's (anyOf).
        if (documented.anyOf) {
          expect(form).not.toBe(DEFAULT_FORM);
          expect(status).toBe('401');
          expect(resolve(d, documented.anyOf[1])).toEqual({
            ...FORM_PROFILES[DEFAULT_FORM].errorSchemaFor(['invalid_api_key']),
            description: expect.any(String),
          });
        }
        const schema = resolve(d, documented.anyOf ? documented.anyOf[0] : documented);
        if (form === 'B') {
          expect(schema).toEqual(FORM_PROFILES.B.errorSchema);
          continue;
        }
        const codes: ErrorCode[] = schema.properties.error.properties.code.enum;
        expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        for (const code of codes)
          expect(FORM_PROFILES.A.errorStatus[code], `${method} ${path} ${code}`).toBe(Number(status));
      }
    }
    const a = await doc('A');
    expect(
      resolve(a, a.paths['/notes'].get.responses['400'].content['application/json'].schema),
    ).toMatchObject({
      properties: { error: { properties: { code: { enum: ['invalid_request'] } } } },
    });
    expect(a.components.schemas.Error.properties.error.properties.code.enum).toEqual([...ERROR_CODES]);
  });

  it.each(FORM_NAMES)('Form %s documents 404 only where an id can be unknown', async (form) => {
    const d = await doc(form);
    for (const { path, method, op } of operations(d)) {
      expect(Boolean(op.responses['404']), `${method} ${path}`).toBe(path.includes('{'));
    }
  });

  it.each(FORM_NAMES)('Form %s documents X-RateLimit-* where answers carry them', async (form) => {
    const d = await doc(form);
    for (const { op } of operations(d)) {
      // Named on a 401 only to say it is never sent there: a schema no value matches.
      expect(op.responses['401'].headers['X-RateLimit-Limit']).toMatchObject({
        required: false,
        schema: { not: {} },
      });
      expect(op.responses['403'].headers['X-RateLimit-Limit'].required).toBe(true);
      expect(op.responses['429'].headers['Retry-After'].required).toBe(true);
      expect(op.responses['400'].headers['X-RateLimit-Limit'].required).toBe(false);
    }
  });

  it.each(FORM_NAMES)('over HTTP in Form %s, a 401 has no X-RateLimit-*, a 403 has them', async (form) => {
    const noKey = await app.request('/v1/notes', { form });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('x-ratelimit-limit')).toBeNull();
    const { key } = await app.createAccount({ form, earlyAccess: false });
    const forbidden = await app.request('/v1/webhooks', { key });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    const badHeader = await app.request('/v1/notes', { key, form: 'Z' });
    expect(badHeader.status).toBe(400);
    expect(badHeader.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('the contract validator of test-app catches drift', () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  const ok = {
    'x-request-id': randomUUID(),
    'cache-control': 'no-store',
    'content-type': 'application/json',
  };
  const counted = {
    ...ok,
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '99',
    'x-ratelimit-reset': '1',
  };
  let validate: ReturnType<typeof createContractValidator>;
  beforeAll(() => {
    validate = createContractValidator({ baseUrl: app.url, keyForm: async () => 'A' });
  });
  const auth = { authorization: 'Bearer mnk_anything' };

  it('accepts a documented answer and ignores routes outside the contract', async () => {
    const body = JSON.stringify({ error: { code: 'invalid_request', message: 'x' } });
    await validate(
      { method: 'GET', path: '/v1/notes?limit=abc', headers: headers(auth) },
      { status: 400, headers: headers(counted), text: body },
    );
    await validate(
      { method: 'GET', path: '/v1/nothing-here', headers: headers(auth) },
      { status: 404, headers: headers(ok), text: body },
    );
  });

  it.each([
    [
      'an undocumented status',
      404,
      counted,
      { error: { code: 'not_found', message: 'x' } },
      'not documented',
    ],
    [
      'a code its status cannot carry',
      400,
      counted,
      { error: { code: 'not_found', message: 'x' } },
      'allowed values',
    ],
    [
      'a missing X-RateLimit-* header',
      422,
      ok,
      { error: { code: 'validation_error', message: 'x' } },
      'X-RateLimit',
    ],
    ['the other form’s body', 400, counted, { error: 'x' }, 'must be object'],
    [
      'an undocumented X-RateLimit-* header',
      401,
      counted,
      { error: { code: 'invalid_api_key', message: 'x' } },
      'not documented here',
    ],
    [
      'an unknown field',
      200,
      counted,
      { data: [], next_cursor: null, has_more: false, extra: 1 },
      'additional',
    ],
  ])('refuses %s, naming method, path, form and status', async (_what, status, h, body, message) => {
    const failure = validate(
      { method: 'GET', path: '/v1/notes', headers: headers(auth) },
      { status, headers: headers(h), text: JSON.stringify(body) },
    );
    await expect(failure).rejects.toThrow(message);
    await expect(failure).rejects.toThrow(`GET /v1/notes (GET /notes), Form A, status ${status}`);
  });

  it('judges a 401 without X-API-Form against Form A even for a Form B key', async () => {
    const b = createContractValidator({ baseUrl: app.url, keyForm: async () => 'B' });
    await b(
      { method: 'GET', path: '/v1/notes', headers: headers(auth) },
      {
        status: 401,
        headers: headers(ok),
        text: JSON.stringify({ error: { code: 'invalid_api_key', message: 'x' } }),
      },
    );
    const withHeader = b(
      { method: 'GET', path: '/v1/notes', headers: headers({ ...auth, 'x-api-form': 'b' }) },
      {
        status: 401,
        headers: headers(ok),
        text: JSON.stringify({ error: { code: 'invalid_api_key', message: 'x' } }),
      },
    );
    await expect(withHeader).rejects.toThrow('Form B, status 401');
  });
});

describe('Swagger UI', () => {
  it('sends the document to no third party: validatorUrl is null', () => {
    expect(SWAGGER_UI_OPTIONS.validatorUrl).toBeNull();
  });
});
