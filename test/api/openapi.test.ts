import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

async function fetchDoc(form: string) {
  const res = await app.request(`/api/openapi.json?form=${form}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  return res.json;
}

describe('GET /api/openapi.json: the document of each form', () => {
  it.each(['A', 'B'])('Form %s: a valid OpenAPI 3.1 document', async (form) => {
    const doc = await fetchDoc(form);
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('DELETE /notes/{id} is documented in Form A (204) and absent from Form B', async () => {
    const a = await fetchDoc('A');
    const b = await fetchDoc('B');
    expect(Object.keys(a.paths['/notes/{id}'].delete.responses)).toContain('204');
    expect(a.paths['/notes/{id}'].delete.responses['204'].content).toBeUndefined();
    expect(b.paths['/notes/{id}'].delete).toBeUndefined();
    expect(Object.keys(b.paths['/notes/{id}'])).toEqual(['get']);
  });

  it('error bodies are documented per form; Form B has no 422', async () => {
    const a = await fetchDoc('A');
    const b = await fetchDoc('B');
    expect(a.components.schemas.Error.properties.error.type).toBe('object');
    expect(a.components.schemas.Error.properties.error.required).toEqual(['code', 'message']);
    expect(b.components.schemas.Error.properties.error.type).toBe('string');
    const listA = a.paths['/notes'].get.responses;
    const listB = b.paths['/notes'].get.responses;
    expect(Object.keys(listA).sort()).toEqual(['200', '400', '401', '403', '422', '429', '500', '503']);
    expect(Object.keys(listB).sort()).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(listA['429'].headers['Retry-After']).toBeDefined();
    expect(listA['200'].headers['X-RateLimit-Remaining']).toBeDefined();
  });

  it('parameters and shapes differ per form: platforms, limits, X-API-Form and the note fields', async () => {
    const a = await fetchDoc('A');
    const b = await fetchDoc('B');
    const param = (doc: any, name: string) =>
      doc.paths['/notes'].get.parameters.find((p: any) => p.name === name);
    expect(param(a, 'platform').schema.enum).toEqual(['meet', 'zoom', 'teams', 'phone', 'microphone']);
    expect(param(b, 'platform').schema.enum).toEqual(['meet', 'zoom', 'teams', 'phone']);
    expect(param(a, 'limit').schema.maximum).toBe(100);
    expect(param(a, 'X-API-Form').in).toBe('header');
    const noteA = a.components.schemas.Note;
    const noteB = b.components.schemas.Note;
    expect(Object.keys(noteA.properties)).toEqual([
      'id',
      'title',
      'platform',
      'duration_seconds',
      'created_at',
      'ended_at',
      'language',
      'transcript',
      'summary',
      'action_items',
    ]);
    expect(Object.keys(noteB.properties)).toEqual([
      'id',
      'title',
      'platform',
      'duration_seconds',
      'started_at',
      'ended_at',
      'status',
      'transcript',
      'summary',
    ]);
    expect(Object.keys(a.components.schemas.NoteListItem.properties)).toEqual([
      'id',
      'title',
      'platform',
      'duration_seconds',
      'created_at',
      'ended_at',
      'transcript',
    ]);
    expect(a.components.schemas.TranscriptSegment.properties.end_time).toBeUndefined();
    expect(b.components.schemas.TranscriptSegment.properties.end_time).toBeDefined();
    expect(a.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(a.paths['/notes'].get.security).toEqual([{ ApiKey: [] }]);
  });

  it('an unknown form is a Form A 400', async () => {
    const res = await app.request('/api/openapi.json?form=C');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: { code: 'invalid_request', message: 'form must be A or B' } });
  });
});
