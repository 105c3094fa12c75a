import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app';

// Bad input to GET /v1/notes, GET /v1/notes/:id and DELETE /v1/notes/:id, and its status and
// error body (docs/rules.md#errors), in both forms: every case runs with a Form A key, a Form B
// key, and each key overridden to the other form by X-API-Form. The effective form decides the
// status and the error body.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

type Form = 'A' | 'B';

const VARIANTS: { name: string; keyForm: Form; header?: string; form: Form }[] = [
  { name: 'Form A key', keyForm: 'A', form: 'A' },
  { name: 'Form B key', keyForm: 'B', form: 'B' },
  { name: 'Form A key + X-API-Form: b', keyForm: 'A', header: 'b', form: 'B' },
  { name: 'Form B key + X-API-Form: A', keyForm: 'B', header: 'A', form: 'A' },
];

const FORM_A_CODE: Record<number, string> = {
  400: 'invalid_request',
  404: 'not_found',
  422: 'validation_error',
};

type Res = Awaited<ReturnType<TestApp['request']>>;

/** Every /v1 response has X-Request-Id, no 500, and (unless 204) a JSON Content-Type. */
function expectCommon(res: Res) {
  expect(res.status, res.text).not.toBe(500);
  expect(res.headers.get('x-request-id')).toMatch(/\S/);
  if (res.status !== 204) expect(res.headers.get('content-type')).toMatch(/^application\/json\b/i);
}

/** The exact error body of the form, nothing more, no stack trace. */
function expectError(res: Res, form: Form, status: number) {
  expectCommon(res);
  expect(res.status, res.text).toBe(status);
  if (form === 'A') {
    expect(res.json).toEqual({ error: { code: FORM_A_CODE[res.status], message: expect.any(String) } });
    expect(res.json.error.message).toMatch(/\S/);
    expect(res.json.error.message).not.toMatch(/\n\s+at /);
  } else {
    expect(res.json).toEqual({ error: expect.any(String) });
    expect(res.json.error).toMatch(/\S/);
    expect(res.json.error).not.toMatch(/\n\s+at /);
  }
}

interface Ctx {
  key: string;
  noteId: string;
  unknownId: string;
}

interface Case {
  /** The rule the case checks, in plain words; it starts the test's title. */
  checks: string;
  what: string;
  method?: string;
  path: (c: Ctx) => string;
  body?: { json: unknown } | { raw: string; contentType: string };
  /** Per effective form: the one error status, or 'ok' with a check of the success. */
  expect: Record<Form, number | { ok: number; check?: (res: Res, c: Ctx, form: Form) => void }>;
  /** The note is recorded with this platform (default zoom). */
  platform?: 'zoom' | 'microphone';
  /** A successful DELETE removes the note; every other case must leave it in place. */
  deletes?: Form[];
}

const listHas = (res: Res, c: Ctx) => {
  expect(res.json.data.map((n: { id: string }) => n.id)).toEqual([c.noteId]);
  expect(res.json.has_more).toBe(false);
  expect(res.json.next_cursor).toBeNull();
};
const listEmpty = (res: Res) => expect(res.json).toEqual({ data: [], next_cursor: null, has_more: false });
const isTheNote = (res: Res, c: Ctx) => expect(res.json.id).toBe(c.noteId);
const noBody = (res: Res) => expect(res.text).toBe('');

const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const BAD_UUIDS = [
  'not-a-uuid',
  '12345',
  '0f8fad5b-d9cb-469f-a165-70867728950g',
  '0f8fad5bd9cb469fa16570867728950e',
  '0f8fad5b-d9cb-469f-a165-70867728950e0',
  '{0f8fad5b-d9cb-469f-a165-70867728950e}',
];

const CASES: Case[] = [
  // ---- GET /v1/notes: limit
  {
    checks: 'limit is an integer',
    what: 'limit=abc is the wrong type',
    path: () => '/v1/notes?limit=abc',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'limit is an integer',
    what: 'limit=1.5 is not an integer',
    path: () => '/v1/notes?limit=1.5',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'limit is written in decimal digits only',
    what: 'limit=1e1 (exponent notation) is malformed: only decimal digits',
    path: () => '/v1/notes?limit=1e1',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'limit is written in decimal digits only',
    what: 'limit=+5 (a sign) is malformed',
    path: () => '/v1/notes?limit=%2B5',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'limit is written in decimal digits only',
    what: 'limit=%205 (a leading space) is malformed',
    path: () => '/v1/notes?limit=%205',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'limit is written in decimal digits only',
    what: 'limit=5.0 (a decimal point) is malformed',
    path: () => '/v1/notes?limit=5.0',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'limit is written in decimal digits only',
    what: 'an empty limit is malformed',
    path: () => '/v1/notes?limit=',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'limit is 1 to 100',
    what: 'limit=500 (digits, out of range) is a range error, not malformed',
    path: () => '/v1/notes?limit=500',
    expect: { A: 422, B: 400 },
  },
  {
    checks: 'limit is written in decimal digits only',
    what: 'limit=05 (decimal digits) is accepted',
    path: () => '/v1/notes?limit=05',
    expect: { A: { ok: 200, check: listHas }, B: { ok: 200, check: listHas } },
  },
  {
    checks: 'limit is 1 to 100',
    what: 'limit=0 is below 1',
    path: () => '/v1/notes?limit=0',
    expect: { A: 422, B: 400 },
  },
  {
    checks: 'limit is 1 to 100',
    what: 'limit=101 is above the max 100',
    path: () => '/v1/notes?limit=101',
    expect: { A: 422, B: 400 },
  },
  {
    checks: 'limit is 1 to 100',
    what: 'limit=-1 is below 1',
    path: () => '/v1/notes?limit=-1',
    expect: { A: 422, B: 400 },
  },
  {
    checks: 'a query parameter is given at most once',
    what: 'a repeated limit (limit=1&limit=2) is malformed',
    path: () => '/v1/notes?limit=1&limit=2',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'a query parameter is given at most once',
    what: 'a repeated platform (platform=zoom&platform=meet) is malformed',
    path: () => '/v1/notes?platform=zoom&platform=meet',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'limit is 1 to 100',
    what: 'limit=100 (the max) is accepted',
    path: () => '/v1/notes?limit=100',
    expect: { A: { ok: 200, check: listHas }, B: { ok: 200, check: listHas } },
  },
  // ---- platform
  {
    checks: "platform is one of the form's platforms",
    what: "platform=microphone is in Form A's enum and outside Form B's",
    platform: 'microphone',
    path: () => '/v1/notes?platform=microphone',
    expect: { A: { ok: 200, check: listHas }, B: 400 },
  },
  {
    checks: "platform is one of the form's platforms",
    what: 'platform=skype is outside the enum',
    path: () => '/v1/notes?platform=skype',
    expect: { A: 422, B: 400 },
  },
  // ---- cursor
  {
    checks: 'a cursor is one the form hands out',
    what: 'cursor=abc is malformed',
    path: () => '/v1/notes?cursor=abc',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'a cursor is one the form hands out',
    what: 'cursor=!!! is malformed',
    path: () => '/v1/notes?cursor=!!!',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'a cursor is one the form hands out',
    what: 'a base64url cursor that holds no sort key is malformed',
    path: () => `/v1/notes?cursor=${b64url('123:not-a-uuid')}`,
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'a cursor is one the form hands out',
    what: "a timestamp cursor is Form B's format and malformed in Form A",
    path: () => `/v1/notes?cursor=${encodeURIComponent('2000-01-01T00:00:00.000Z')}`,
    expect: { A: 400, B: { ok: 200, check: listEmpty } },
  },
  {
    checks: 'a cursor is one the form hands out',
    what: 'an impossible timestamp cursor (month 13) is malformed',
    path: () => `/v1/notes?cursor=${encodeURIComponent('2026-13-01T00:00:00.000Z')}`,
    expect: { A: 400, B: 400 },
  },
  // ---- created_after / created_before
  {
    checks: 'created_after and created_before are ISO 8601 with Z or an offset',
    what: 'created_after=yesterday does not parse',
    path: () => '/v1/notes?created_after=yesterday',
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'created_after and created_before are ISO 8601 with Z or an offset',
    what: 'created_before with month 13 does not parse',
    path: () => `/v1/notes?created_before=${encodeURIComponent('2026-13-01T00:00:00Z')}`,
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'created_after and created_before are ISO 8601 with Z or an offset',
    what: 'created_before=2026-02-30T00:00:00Z is not a date',
    path: () => `/v1/notes?created_before=${encodeURIComponent('2026-02-30T00:00:00Z')}`,
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'created_after and created_before are ISO 8601 with Z or an offset',
    what: 'created_after without Z or an offset does not parse',
    path: () => `/v1/notes?created_after=${encodeURIComponent('2026-01-01T09:00:00')}`,
    expect: { A: 400, B: 400 },
  },
  {
    checks: 'created_after is not later than created_before',
    what: 'created_after later than created_before',
    path: () =>
      `/v1/notes?created_after=${encodeURIComponent('2026-02-01T00:00:00Z')}&created_before=${encodeURIComponent('2026-01-01T00:00:00Z')}`,
    expect: { A: 422, B: 400 },
  },
  {
    checks: 'created_after is not later than created_before',
    what: 'created_after later than created_before once offsets are applied',
    path: () =>
      `/v1/notes?created_after=${encodeURIComponent('2026-01-01T09:30:00Z')}&created_before=${encodeURIComponent('2026-01-01T10:00:00+01:00')}`,
    expect: { A: 422, B: 400 },
  },
  {
    checks: 'created_after is not later than created_before',
    what: 'created_after before created_before once offsets are applied is accepted',
    path: () =>
      `/v1/notes?created_after=${encodeURIComponent('2000-01-01T10:00:00+02:00')}&created_before=${encodeURIComponent('2000-01-01T09:00:00Z')}`,
    expect: { A: { ok: 200, check: listEmpty }, B: { ok: 200, check: listEmpty } },
  },
  {
    checks: 'created_after is not later than created_before',
    what: 'created_after equal to created_before is not "later" and is accepted',
    path: () =>
      `/v1/notes?created_after=${encodeURIComponent('2000-01-01T00:00:00Z')}&created_before=${encodeURIComponent('2000-01-01T00:00:00Z')}`,
    expect: { A: { ok: 200, check: listEmpty }, B: { ok: 200, check: listEmpty } },
  },
  // ---- unknown query parameters
  {
    checks: 'unknown query parameters are ignored',
    what: 'on GET /v1/notes',
    path: () => '/v1/notes?foo=bar&include=everything&q=zzz',
    expect: { A: { ok: 200, check: listHas }, B: { ok: 200, check: listHas } },
  },
  {
    checks: 'unknown query parameters are ignored',
    what: 'on GET /v1/notes/:id',
    path: (c) => `/v1/notes/${c.noteId}?foo=bar&limit=abc`,
    expect: { A: { ok: 200, check: isTheNote }, B: { ok: 200, check: isTheNote } },
  },
  // ---- GET /v1/notes/:id
  ...BAD_UUIDS.map(
    (bad): Case => ({
      checks: 'a note id is a UUID',
      what: `GET a malformed UUID ${JSON.stringify(bad)}`,
      path: () => `/v1/notes/${encodeURIComponent(bad)}`,
      expect: { A: 400, B: 400 },
    }),
  ),
  {
    checks: 'an unknown note is 404',
    what: 'GET an unknown well-formed UUID',
    path: (c) => `/v1/notes/${c.unknownId}`,
    expect: { A: 404, B: 404 },
  },
  // ---- DELETE /v1/notes/:id
  ...BAD_UUIDS.slice(0, 3).map(
    (bad): Case => ({
      checks: 'a note id is a UUID',
      what: `DELETE a malformed UUID ${JSON.stringify(bad)} (Form B: no such route)`,
      method: 'DELETE',
      path: () => `/v1/notes/${encodeURIComponent(bad)}`,
      expect: { A: 400, B: 404 },
    }),
  ),
  {
    checks: 'an unknown note is 404',
    what: 'DELETE an unknown well-formed UUID',
    method: 'DELETE',
    path: (c) => `/v1/notes/${c.unknownId}`,
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'only Form A deletes notes',
    what: "DELETE the account's own note: 204 in Form A, 404 in Form B (no such operation)",
    method: 'DELETE',
    path: (c) => `/v1/notes/${c.noteId}`,
    expect: { A: { ok: 204, check: noBody }, B: 404 },
    deletes: ['A'],
  },
  {
    checks: 'unknown query parameters are ignored',
    what: 'on DELETE /v1/notes/:id (Form B: no such route)',
    method: 'DELETE',
    path: (c) => `/v1/notes/${c.noteId}?foo=bar&force=true`,
    expect: { A: { ok: 204, check: noBody }, B: 404 },
    deletes: ['A'],
  },
  // ---- unknown paths and methods under /v1
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'GET /v1',
    path: () => '/v1',
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'GET /v1/',
    path: () => '/v1/',
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'GET /v1/nope',
    path: () => '/v1/nope',
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'GET /v1/v1/notes',
    path: () => '/v1/v1/notes',
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'GET /v1/notes/:id/transcript',
    path: (c) => `/v1/notes/${c.noteId}/transcript`,
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'GET /v1/notes/:id/a/b',
    path: (c) => `/v1/notes/${c.noteId}/a/b`,
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'GET /v1/webhooks/:id/deliveries for an unknown endpoint (Form A does not offer it)',
    path: (c) => `/v1/webhooks/${c.unknownId}/deliveries`,
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'POST /v1/notes with a JSON object (no such method)',
    method: 'POST',
    path: () => '/v1/notes',
    body: { json: { title: 'x' } },
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'PUT /v1/notes with a JSON object',
    method: 'PUT',
    path: () => '/v1/notes',
    body: { json: {} },
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'POST /v1/notes/:id with a JSON object',
    method: 'POST',
    path: (c) => `/v1/notes/${c.noteId}`,
    body: { json: {} },
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'PATCH /v1/notes/:id with a JSON object changes nothing',
    method: 'PATCH',
    path: (c) => `/v1/notes/${c.noteId}`,
    body: { json: { title: 'Renamed' } },
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'POST /v1/notes with a body that is not JSON (no such method: 404, whatever the body)',
    method: 'POST',
    path: () => '/v1/notes',
    body: { raw: '{not json', contentType: 'application/json' },
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'POST /v1/notes with a JSON array body (no such method: 404, whatever the body)',
    method: 'POST',
    path: () => '/v1/notes',
    body: { raw: '[{"title":"x"}]', contentType: 'application/json' },
    expect: { A: 404, B: 404 },
  },
  {
    checks: 'a path or method the form does not offer is 404',
    what: 'POST /v1/notes with a text/plain body (no such method: 404, whatever the body)',
    method: 'POST',
    path: () => '/v1/notes',
    body: { raw: 'hello', contentType: 'text/plain' },
    expect: { A: 404, B: 404 },
  },
];

const TABLE = CASES.flatMap((c) => VARIANTS.map((v) => ({ ...c, variant: v })));

async function setup(keyForm: Form, platform: 'zoom' | 'microphone' = 'zoom'): Promise<Ctx> {
  const { key } = await app.createAccount({ form: keyForm });
  const noteId = await app.recordNote(key, { platform });
  return { key, noteId, unknownId: randomUUID() };
}

/** The note is still there, unchanged (looked at through Form A). */
async function expectNoteIntact(c: Ctx) {
  const res = await app.request(`/v1/notes/${c.noteId}`, { key: c.key, form: 'A' });
  expect(res.status).toBe(200);
  expect(res.json.id).toBe(c.noteId);
  expect(res.json.title).toBe('Weekly sync');
  const list = await app.request('/v1/notes', { key: c.key, form: 'A' });
  expect(list.json.data.map((n: { id: string }) => n.id)).toEqual([c.noteId]);
}

describe('bad input on the notes endpoints, per form', () => {
  for (const tc of TABLE) {
    it(`${tc.checks}: ${tc.what} [${tc.variant.name}] -> Form ${tc.variant.form}`, async () => {
      const { variant } = tc;
      const c = await setup(variant.keyForm, tc.platform);
      const init: Parameters<TestApp['request']>[1] = {
        method: tc.method ?? 'GET',
        key: c.key,
        form: variant.header,
      };
      if (tc.body && 'json' in tc.body) init.json = tc.body.json;
      if (tc.body && 'raw' in tc.body) {
        init.body = tc.body.raw;
        init.headers = { 'content-type': tc.body.contentType };
      }
      const res = await app.request(tc.path(c), init);

      const expected = tc.expect[variant.form];
      if (typeof expected === 'object') {
        expectCommon(res);
        expect(res.status, res.text).toBe(expected.ok);
        expected.check?.(res, c, variant.form);
      } else {
        expectError(res, variant.form, expected);
      }

      if (tc.deletes?.includes(variant.form)) {
        const gone = await app.request(`/v1/notes/${c.noteId}`, { key: c.key, form: 'A' });
        expect(gone.status).toBe(404);
      } else {
        await expectNoteIntact(c);
      }
    });
  }
});

describe('request ids and repeated deletes', () => {
  it.each(['A', 'B'] as const)('every response carries its own X-Request-Id (Form %s key)', async (form) => {
    const c = await setup(form);
    const responses = [
      await app.request('/v1/notes', { key: c.key }),
      await app.request(`/v1/notes/${c.noteId}`, { key: c.key }),
      await app.request('/v1/notes?limit=abc', { key: c.key }),
      await app.request(`/v1/notes/${c.unknownId}`, { key: c.key }),
      await app.request('/v1/nope', { key: c.key }),
      await app.request('/v1/notes'),
    ];
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/\S/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    { name: 'Form A key', keyForm: 'A' as const, header: undefined },
    { name: 'Form B key + X-API-Form: a', keyForm: 'B' as const, header: 'a' },
  ])('a second DELETE of the same note is 404 not_found [$name]', async ({ keyForm, header }) => {
    const c = await setup(keyForm);
    const first = await app.request(`/v1/notes/${c.noteId}`, {
      method: 'DELETE',
      key: c.key,
      form: header,
    });
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    expect(first.headers.get('x-request-id')).toMatch(/\S/);
    const second = await app.request(`/v1/notes/${c.noteId}`, {
      method: 'DELETE',
      key: c.key,
      form: header,
    });
    expectError(second, 'A', 404);
    const get = await app.request(`/v1/notes/${c.noteId}`, { key: c.key, form: header });
    expectError(get, 'A', 404);
  });
});
