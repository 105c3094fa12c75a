import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDER_MAX_BODY_BYTES } from '../../server/recorder/recorder-handler';
import { RECORDER_TEXT_MAX_LENGTH } from '../../server/openapi-bounds';
import { startTestApp, type TestApp } from '../support/test-app';

// The bounds the published documents state are the ones the service keeps. A sample of them is
// read from the served documents (not from the code) and tried through HTTP on both sides: the
// bound itself is accepted, one past it refused, so a bound changed on one side only fails here.
// Every answer below is also checked against its document by test-app (the contract).

type Json = Record<string, any>;

let app: TestApp;
const docs: Record<'A' | 'B', Json> = { A: {}, B: {} };
const keys: Record<'A' | 'B', string> = { A: '', B: '' };

beforeAll(async () => {
  app = await startTestApp();
  for (const form of ['A', 'B'] as const) {
    docs[form] = (await app.request(`/api/openapi.json?form=${form}`)).json;
    keys[form] = (await app.createAccount({ form, plan: 'enterprise' })).key;
  }
});
afterAll(() => app?.close());

const param = (form: 'A' | 'B', path: string, name: string): Json => {
  const found = docs[form].paths[path].get.parameters.find((p: Json) => p.name === name);
  if (!found) throw new Error(`Form ${form} documents no ${name} on GET ${path}`);
  return found.schema;
};
const get = (form: 'A' | 'B', path: string) => app.request(path, { key: keys[form] });
// Form B answers 400 where Form A answers 422 (docs/rules.md#errors).
const refused = (form: 'A' | 'B') => (form === 'A' ? 422 : 400);

describe('documented integer bounds are the ones the service keeps', () => {
  it.each([
    ['A', '/notes'],
    ['B', '/notes'],
    ['A', '/notes/search'],
    ['B', '/notes/search'],
  ] as const)(
    'Form %s GET %s: limit from minimum to maximum is accepted, one beyond is refused',
    async (form, path) => {
      const limit = param(form, path, 'limit');
      expect(limit.type).toBe('integer');
      expect(limit.format).toBe('int32');
      const query = path.endsWith('search') ? 'q=release&' : '';
      for (const ok of [limit.minimum, limit.maximum]) {
        expect((await get(form, `/v1${path}?${query}limit=${ok}`)).status).toBe(200);
      }
      for (const over of [limit.minimum - 1, limit.maximum + 1]) {
        expect((await get(form, `/v1${path}?${query}limit=${over}`)).status).toBe(refused(form));
      }
    },
  );

  it.each(['A', 'B'] as const)(
    'Form %s: limit=100.0 is refused as the pattern says, and 100 accepted as it says',
    async (form) => {
      const pattern = new RegExp(param(form, '/notes', 'limit').pattern);
      expect(pattern.test('100')).toBe(true);
      expect((await get(form, '/v1/notes?limit=100')).status).toBe(200);
      for (const text of ['100.0', '1e2', '+100', '0x10']) {
        expect(pattern.test(text)).toBe(false);
        const res = await get(form, `/v1/notes?limit=${encodeURIComponent(text)}`);
        expect(res.status).toBe(400);
      }
    },
  );
});

describe('documented string bounds are the ones the service keeps', () => {
  it('Form A q: maxLength characters are searched, one more is refused (422)', async () => {
    const q = param('A', '/notes/search', 'q');
    expect(q.maxLength).toBe(256);
    expect((await get('A', `/v1/notes/search?q=${'x'.repeat(q.maxLength)}`)).status).toBe(200);
    expect((await get('A', `/v1/notes/search?q=${'x'.repeat(q.maxLength + 1)}`)).status).toBe(422);
  });

  it.each(['A', 'B'] as const)(
    'Form %s: an opaque cursor longer than its maxLength, or outside its pattern, is malformed (400)',
    async (form) => {
      // Form A's note cursor, Form B's delivery-log cursor: the same opaque format.
      const path = form === 'A' ? '/notes' : '/webhooks/{id}/deliveries';
      const cursor = param(form, path, 'cursor');
      expect(new RegExp(cursor.pattern).test('a'.repeat(cursor.maxLength + 1))).toBe(false);
      const target =
        form === 'A'
          ? '/v1/notes'
          : `/v1/webhooks/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/deliveries`;
      for (const bad of ['a'.repeat(cursor.maxLength + 1), 'not+base64url']) {
        const res = await get(form, `${target}?cursor=${encodeURIComponent(bad)}`);
        expect(res.status).toBe(400);
      }
    },
  );

  it.each(['A', 'B'] as const)(
    'Form %s webhook url: maxLength characters are registered, one more is refused',
    async (form) => {
      const body = docs[form].paths['/webhooks'].post.requestBody.content['application/json'].schema;
      const max: number = body.properties.url.maxLength;
      expect(max).toBe(2048);
      // A numeric public host: judged without DNS, and registering connects to nothing.
      const url = (length: number) => {
        const base = `https://93.184.216.34/${form}-`;
        return base + 'a'.repeat(length - base.length);
      };
      const post = (u: string) =>
        app.request('/v1/webhooks', { method: 'POST', key: keys[form], json: { url: u } });
      const created = await post(url(max));
      expect(created.status).toBe(201);
      expect(created.json.url).toHaveLength(max);
      expect((await post(url(max + 1))).status).toBe(refused(form));
    },
  );

  it.each(['A', 'B'] as const)(
    'Form %s note title: the documented maxLength is what the recorder lets in, no more',
    async (form) => {
      const max: number = docs[form].components.schemas.Note.properties.title.maxLength;
      expect(max).toBe(500);
      const title = 't'.repeat(max);
      const id = await app.recordNote(keys[form], { title });
      const note = await get(form, `/v1/notes/${id}`);
      expect(note.status).toBe(200);
      expect(note.json.title).toBe(title);
      const tooLong = await app.request('/api/recorder/meetings', {
        method: 'POST',
        key: keys[form],
        json: { title: `${title}t`, platform: 'zoom' },
      });
      expect(tooLong.status).toBe(422);
    },
  );

  it('segment text is bounded by the recorder body cap the document names', () => {
    const segment = docs.B.components.schemas.TranscriptSegment.properties;
    expect(segment.content.maxLength).toBe(RECORDER_TEXT_MAX_LENGTH);
    expect(RECORDER_TEXT_MAX_LENGTH).toBe(RECORDER_MAX_BODY_BYTES);
  });

  it('a transcript holds at most the documented maxItems segments: one more is refused', async () => {
    const max: number = docs.A.components.schemas.Note.properties.transcript.maxItems;
    expect(max).toBe(10_000);
    const created = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key: keys.A,
      json: { title: 'Long', platform: 'zoom' },
    });
    const id = created.json.id;
    const segment = { speaker: 'A', content: 'x', start_time: 0 };
    const over = await app.request(`/api/recorder/meetings/${id}/transcript`, {
      method: 'POST',
      key: keys.A,
      json: { segments: Array.from({ length: max + 1 }, () => segment), generate_summary: false },
    });
    expect(over.status).toBe(422);
  });
});

describe('documented headers are the ones the service sends', () => {
  const rateLimitHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

  it.each(['A', 'B'] as const)(
    'Form %s: a counted answer carries X-RateLimit-* within their documented bounds',
    async (form) => {
      const documented = docs[form].paths['/notes'].get.responses['200'].headers;
      const res = await get(form, '/v1/notes');
      expect(res.status).toBe(200);
      for (const name of rateLimitHeaders) {
        const { minimum, maximum } = documented[name].schema;
        const value = Number(res.headers.get(name));
        expect(Number.isInteger(value)).toBe(true);
        expect(value).toBeGreaterThanOrEqual(minimum);
        expect(value).toBeLessThanOrEqual(maximum);
      }
    },
  );

  it('a 400 decided before the key is counted carries no X-RateLimit-*, and the document makes them optional', async () => {
    const res = await app.request('/v1/notes', { key: keys.A, form: 'C' });
    expect(res.status).toBe(400);
    for (const name of rateLimitHeaders) {
      expect(res.headers.has(name)).toBe(false);
      expect(docs.A.paths['/notes'].get.responses['400'].headers[name].required).toBe(false);
    }
    // A 400 for a parameter comes after the count, and carries them.
    const counted = await get('A', '/v1/notes?limit=abc');
    expect(counted.status).toBe(400);
    for (const name of rateLimitHeaders) expect(counted.headers.has(name)).toBe(true);
  });

  it.each(['A', 'B'] as const)(
    'Form %s: a 401 carries no X-RateLimit-*, as its document says (a schema no value matches)',
    async (form) => {
      const res = await app.request('/v1/notes', { form });
      expect(res.status).toBe(401);
      const documented = docs[form].paths['/notes'].get.responses['401'].headers;
      for (const name of rateLimitHeaders) {
        expect(res.headers.has(name)).toBe(false);
        expect(documented[name]).toMatchObject({ required: false, schema: { not: {} } });
      }
    },
  );

  it.each(['A', 'B'] as const)(
    'Form %s: no answer carries Access-Control-Allow-Origin, and a preflight is a 404, as documented',
    async (form) => {
      const documented =
        docs[form].paths['/notes'].get.responses['200'].headers['Access-Control-Allow-Origin'];
      expect(documented).toMatchObject({ required: false, schema: { not: {} } });
      const res = await app.request('/v1/notes', {
        key: keys[form],
        headers: { origin: 'https://elsewhere.example' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.has('access-control-allow-origin')).toBe(false);
      const preflight = await app.request('/v1/notes', {
        method: 'OPTIONS',
        key: keys[form],
        headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
      });
      expect(preflight.status).toBe(404);
      expect(preflight.headers.has('access-control-allow-origin')).toBe(false);
    },
  );
});
