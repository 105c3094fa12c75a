import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAjv, rebase } from '../support/openapi-contract';
import { DEFAULT_SEGMENTS } from '../support/recorder';
import { startTestApp, type TestApp } from '../support/test-app';

// GET /api/recorder/openapi.json: the recorder API's own OpenAPI document, public, and true to
// what the recorder API accepts and answers.

let app: TestApp;
let doc: any;
beforeAll(async () => {
  app = await startTestApp();
  const res = await app.request('/api/recorder/openapi.json');
  expect(res.status).toBe(200);
  doc = res.json;
});
afterAll(async () => {
  await app?.close();
});

const ID = 'urn:openapi:recorder';
function validator() {
  const ajv = newAjv();
  ajv.addSchema({ $id: ID, $defs: rebase(doc.components.schemas, ID) as Record<string, unknown> });
  return ajv;
}
const operation = (path: string) => doc.paths[path].post;

/** Checks an answer against the document: its status documented, its body the status's schema. */
function expectDocumented(path: string, res: { status: number; json: unknown; headers: Headers }) {
  const response = operation(path).responses[String(res.status)];
  expect(response, `${path} ${res.status} is documented`).toBeDefined();
  const schema = response.content?.['application/json']?.schema;
  const validate = validator().compile(rebase(schema, ID) as object);
  expect(validate(res.json), `${path} ${res.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  for (const [name, header] of Object.entries(response.headers ?? {}) as [string, any][])
    if (header.required) expect(res.headers.get(name), `${path} ${res.status} ${name}`).not.toBeNull();
}

describe('the recorder API document', () => {
  it('is served without a key, names the recorder API as its server, and describes its three calls with Form A errors and no rate limits', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers).toEqual([{ url: `${app.url}/api/recorder`, 'x-internal': false }]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/meetings',
      '/meetings/{id}/summary',
      '/meetings/{id}/transcript',
    ]);
    for (const path of Object.keys(doc.paths)) {
      const op = operation(path);
      expect(op.parameters.map((p: any) => p.name)).toContain('Idempotency-Key');
      expect(op.parameters.map((p: any) => p.name)).not.toContain('X-API-Form');
      expect(op.responses['401'].content['application/json'].schema).toBeDefined();
      expect(op.responses['413']).toBeDefined();
      // Not rate limited: the limit headers are documented as never sent.
      const success = op.responses[path === '/meetings' ? '201' : '200'];
      expect(success.headers['X-RateLimit-Limit'].schema).toEqual({ not: {} });
      expect(success.headers['Idempotent-Replayed']).toBeDefined();
    }
  });

  it("a meeting recorded through the API: each request matches the document's body schema and each answer, errors included, its documented status and shape", async () => {
    const ajv = validator();
    const bodyOf = (path: string) =>
      ajv.compile(rebase(operation(path).requestBody.content['application/json'].schema, ID) as object);
    const { key } = await app.createAccount({ form: 'B' });
    const post = (path: string, json: unknown, apiKey: string | null = key) =>
      app.request(`/api/recorder${path}`, { method: 'POST', ...(apiKey && { key: apiKey }), json });

    const meeting = { title: 'Documented', platform: 'teams', language: 'en' };
    expect(bodyOf('/meetings')(meeting)).toBe(true);
    const created = await post('/meetings', meeting);
    expect(created.status).toBe(201);
    expectDocumented('/meetings', created);
    const id = created.json.id;

    const transcript = { segments: DEFAULT_SEGMENTS, generate_summary: false };
    expect(bodyOf('/meetings/{id}/transcript')(transcript)).toBe(true);
    const stored = await post(`/meetings/${id}/transcript`, transcript);
    expect(stored.status).toBe(200);
    expectDocumented('/meetings/{id}/transcript', stored);

    const summary = {
      summary: {
        context: 'Documented.',
        decisions: [],
        action_items: [],
        participants: [],
        next_step: null,
        budget_mentioned: null,
        sentiment: null,
      },
      text: 'Documented.',
    };
    expect(bodyOf('/meetings/{id}/summary')(summary)).toBe(true);
    expectDocumented('/meetings/{id}/summary', await post(`/meetings/${id}/summary`, summary));

    // Errors, each in Form A whatever the key's form, each documented for its call.
    const refused = [
      ['/meetings', await post('/meetings', meeting, null), 401],
      ['/meetings', await post('/meetings', { platform: 'radio' }), 422],
      ['/meetings/{id}/transcript', await post(`/meetings/${id}/transcript`, transcript), 409],
      ['/meetings/{id}/transcript', await post('/meetings/not-a-uuid/transcript', transcript), 400],
      [
        '/meetings/{id}/summary',
        await post('/meetings/00000000-0000-4000-8000-000000000000/summary', summary),
        404,
      ],
    ] as const;
    for (const [path, res, status] of refused) {
      expect(res.status, `${path} ${status}`).toBe(status);
      expect(res.json.error.code).toEqual(expect.any(String));
      expectDocumented(path, res);
    }
    // The document refuses what the API refuses.
    expect(bodyOf('/meetings')({ platform: 'radio' })).toBe(false);
    expect(bodyOf('/meetings/{id}/transcript')({ segments: [] })).toBe(false);
  });
});
