import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app';

// What the OpenAPI documents of both forms say about the hardening: the rate limits across forms
// and keys, the cap on keys, the body limit and Cache-Control.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const doc = async (form: 'A' | 'B') => (await app.request(`/api/openapi.json?form=${form}`)).json;

describe('the OpenAPI documents describe the limits on keys and requests', () => {
  it.each(['A', 'B'] as const)(
    'the Form %s document says the daily limit binds the account across forms and keys, and caps keys at 20',
    async (form) => {
      const d = await doc(form);
      expect(d.info.description).toContain('counted across both forms and all of its keys');
      expect(d.info.description).toContain('100 per minute per key');
      expect(d.info.description).toContain('at most 20 active API keys');
      expect(d.paths['/notes'].get.responses['429'].description).toContain(
        'the window that refused the request',
      );
    },
  );

  it.each(['A', 'B'] as const)(
    'Form %s documents 413 on POST /webhooks and Cache-Control: no-store on answers',
    async (form) => {
      const d = await doc(form);
      const create = d.paths['/webhooks'].post.responses;
      expect(create['413'].description).toContain('larger than');
      expect(create['201'].headers['Cache-Control'].schema.enum).toEqual(['no-store']);
      expect(d.paths['/notes'].get.responses['413']).toBeUndefined();
    },
  );
});
