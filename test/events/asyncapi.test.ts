import { Parser } from '@asyncapi/parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_NAMES, WEBHOOK_EVENTS } from '../../server/domain';
import { startTestApp, type TestApp } from '../support/test-app';

// GET /api/asyncapi.json?form=A|B: the event catalog as AsyncAPI 3.0, valid by the AsyncAPI
// parser's own rules, and saying what the OpenAPI document's webhooks section says.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('the AsyncAPI documents', () => {
  for (const form of FORM_NAMES) {
    it(`Form ${form}: valid AsyncAPI 3.0 with no error or warning, one message per event, the same bodies as the OpenAPI catalog`, async () => {
      const res = await app.request(`/api/asyncapi.json?form=${form}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const { document, diagnostics } = await new Parser().parse(res.text);
      const problems = diagnostics
        .filter((d) => d.severity <= 1)
        .map((d) => `${d.code} at ${d.path.join('.')}: ${d.message}`);
      expect(problems).toEqual([]);
      expect(document?.version()).toBe('3.0.0');
      const names = document!
        .allMessages()
        .all()
        .map((m) => m.name());
      expect(names.sort()).toEqual([...WEBHOOK_EVENTS].sort());
      for (const operation of document!.operations().all()) {
        expect(operation.action()).toBe('send');
        expect(operation.bindings().get('http')?.value()).toMatchObject({ method: 'POST' });
      }

      const openapi = (await app.request(`/api/openapi.json?form=${form}`)).json;
      for (const message of Object.values(res.json.components.messages) as any[]) {
        const post = openapi.webhooks[message.name].post;
        const body = post.requestBody.content['application/json'];
        expect(message.payload).toEqual(body.schema);
        expect(message.examples[0].payload).toEqual(body.example);
        expect(Object.keys(message.headers.properties)).toEqual(post.parameters.map((p: any) => p.name));
      }
      for (const [name, schema] of Object.entries(res.json.components.schemas))
        expect(schema, name).toEqual(openapi.components.schemas[name]);
      expect(Object.keys(res.json.components.schemas)).toContain('EventData');
    });
  }

  it('an unknown form is a 400 in the default form, as for the OpenAPI documents', async () => {
    const res = await app.request('/api/asyncapi.json?form=C');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: { code: 'invalid_request', message: 'form must be A or B' } });
  });
});
