import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer as Res,
  expectApiHeaders,
  expectError,
  type Form,
  FORM_A_CODE,
} from '../support/hostile-input';
import { startTestApp, type TestApp } from '../support/test-app';

// Hostile requests that concern no resource in particular, for both surfaces (/v1 and the
// recorder), as tables: paths that are not valid percent-encoding, the roots of the surfaces, HEAD
// and OPTIONS, and Cache-Control: no-store on every status. Hostile input to one resource is in
// that resource's folder: notes-hostile-input, recorder-hostile-input, webhooks-hostile-input.

let app: TestApp;
let keyA: string;
let keyB: string;
beforeAll(async () => {
  app = await startTestApp();
  keyA = (await app.createAccount({ form: 'A', plan: 'enterprise' })).key;
  keyB = (await app.createAccount({ form: 'B', plan: 'enterprise' })).key;
});
afterAll(async () => {
  await app?.close();
});

type Init = Parameters<TestApp['request']>[1];

/** A request and the error it must get. */
interface ErrorRow {
  request: string;
  path: string;
  init: () => Init;
  form: Form;
  status: 400 | 404;
  mentions?: string;
}

const titleOf = (row: ErrorRow) =>
  `${row.request}: refused with ${row.status}${row.form === 'A' ? ` ${FORM_A_CODE[row.status]}` : ''} in Form ${row.form}'s shape${
    row.mentions ? ` naming ${row.mentions}` : ''
  }`;

const runErrorRows = (rows: ErrorRow[]) =>
  it.each(rows.map((row) => [titleOf(row), row] as const))('%s', async (_title, row) => {
    expectError(await app.request(row.path, row.init()), row.form, row.status, row.mentions);
  });

const SEGMENT = { speaker: 'Ana', content: 'Hello there.', start_time: 0, end_time: 1 };

describe("a path that is not valid percent-encoding is a 400 in the form's shape", () => {
  // Answered before the key is read: without a key, and in Form A even for a Form B key, unless
  // X-API-Form asks for Form B.
  const V1 = [
    '/v1/notes/%FF',
    '/v1/notes/%E0%A4%A',
    '/v1/%',
    '/v1/notes/%zz',
    '/v1/webhooks/%C0%80/deliveries',
  ];
  const RECORDER = [
    '/api/recorder/meetings/%FF/transcript',
    '/api/recorder/%',
    '/api/recorder/meetings/%E2%82',
  ];
  runErrorRows([
    ...V1.flatMap((path): ErrorRow[] => [
      {
        request: `GET ${path} without a key`,
        path,
        init: () => ({}),
        form: 'A',
        status: 400,
        mentions: 'path',
      },
      {
        request: `GET ${path} with a Form B key`,
        path,
        init: () => ({ key: keyB }),
        form: 'A',
        status: 400,
        mentions: 'path',
      },
      {
        request: `GET ${path} with X-API-Form: B and no key`,
        path,
        init: () => ({ form: 'B' }),
        form: 'B',
        status: 400,
        mentions: 'path',
      },
    ]),
    ...RECORDER.map(
      (path): ErrorRow => ({
        request: `POST ${path} with a transcript`,
        path,
        init: () => ({ method: 'POST', key: keyA, json: { segments: [SEGMENT] } }),
        form: 'A',
        status: 400,
        mentions: 'path',
      }),
    ),
    // A well-formed escape is decoded as usual: an escaped letter in an id leaves a string that is
    // not a UUID (400 naming the UUID), not a malformed path.
    {
      request: 'GET /v1/notes/:id with its first character escaped as %41',
      path: `/v1/notes/%41${randomUUID().slice(1)}`,
      init: () => ({ key: keyA }),
      form: 'A',
      status: 400,
      mentions: 'UUID',
    },
  ]);
});

describe("the roots of both surfaces are a 404 in the surface's shape", () => {
  runErrorRows([
    {
      request: 'GET /v1 with a Form A key',
      path: '/v1',
      init: () => ({ key: keyA }),
      form: 'A',
      status: 404,
    },
    {
      request: 'GET /v1 with a Form B key',
      path: '/v1',
      init: () => ({ key: keyB }),
      form: 'B',
      status: 404,
    },
    {
      request: 'POST /api/recorder with a meeting',
      path: '/api/recorder',
      init: () => ({ method: 'POST', key: keyA, json: { platform: 'zoom' } }),
      form: 'A',
      status: 404,
    },
  ]);
});

describe('HEAD and OPTIONS go through the API too', () => {
  it('HEAD /v1/notes is GET without a body: 200, an empty body, and the rate-limit headers', async () => {
    const head = await app.request('/v1/notes', { method: 'HEAD', key: keyA });
    expect({ status: head.status, body: head.text, limit: head.headers.get('x-ratelimit-limit') }).toEqual({
      status: 200,
      body: '',
      limit: '100000',
    });
    expectApiHeaders(head);
  });

  it.each([
    ['HEAD /v1/nowhere with a Form B key', '/v1/nowhere', () => keyB],
    ['HEAD /api/recorder/meetings (the recorder only takes POST)', '/api/recorder/meetings', () => keyA],
  ] as const)('%s: 404 with no body, a request id and no-store', async (_title, path, key) => {
    const res = await app.request(path, { method: 'HEAD', key: key() });
    expect({ status: res.status, body: res.text }).toEqual({ status: 404, body: '' });
    expectApiHeaders(res);
  });

  // OPTIONS is an endpoint no form offers.
  runErrorRows([
    {
      request: 'OPTIONS /v1/notes with a Form A key',
      path: '/v1/notes',
      init: () => ({ method: 'OPTIONS', key: keyA }),
      form: 'A',
      status: 404,
      mentions: 'OPTIONS',
    },
    {
      request: 'OPTIONS /v1/notes with a Form B key',
      path: '/v1/notes',
      init: () => ({ method: 'OPTIONS', key: keyB }),
      form: 'B',
      status: 404,
      mentions: 'OPTIONS',
    },
    {
      request: 'OPTIONS /api/recorder/meetings',
      path: '/api/recorder/meetings',
      init: () => ({ method: 'OPTIONS', key: keyA }),
      form: 'A',
      status: 404,
      mentions: 'OPTIONS',
    },
  ]);
});

describe('every /v1 and recorder answer carries Cache-Control: no-store', () => {
  const EMPTY_SUMMARY = {
    context: null,
    decisions: [],
    action_items: [],
    participants: [],
    next_step: null,
    budget_mentioned: null,
    sentiment: null,
  };
  const post = (path: string, json: unknown, key = keyA) => app.request(path, { method: 'POST', key, json });

  const ROWS: [string, number, () => Promise<Res>][] = [
    ['a Form A list of notes', 200, () => app.request('/v1/notes', { key: keyA })],
    ['a Form B list of notes', 200, () => app.request('/v1/notes', { key: keyB })],
    [
      'a deleted note',
      204,
      async () => app.request(`/v1/notes/${await app.recordNote(keyA)}`, { method: 'DELETE', key: keyA }),
    ],
    ['a meeting created by the recorder', 201, () => post('/api/recorder/meetings', { platform: 'zoom' })],
    [
      'a summary stored by the recorder',
      200,
      async () =>
        post(`/api/recorder/meetings/${await app.recordNote(keyA)}/summary`, { summary: EMPTY_SUMMARY }),
    ],
    ['a malformed limit', 400, () => app.request('/v1/notes?limit=abc', { key: keyA })],
    ['a /v1 request without a key', 401, () => app.request('/v1/notes')],
    ['a recorder request without a key', 401, () => post('/api/recorder/meetings', {}, '')],
    [
      'an account without early access',
      403,
      async () => app.request('/v1/notes', { key: (await app.createAccount({ earlyAccess: false })).key }),
    ],
    ['an unknown /v1 path', 404, () => app.request('/v1/nowhere', { key: keyB })],
    [
      'a second transcript for a meeting',
      409,
      async () =>
        post(`/api/recorder/meetings/${await app.recordNote(keyA)}/transcript`, { segments: [SEGMENT] }),
    ],
    [
      'a /v1 body over 64 KiB',
      413,
      () => app.request('/v1/webhooks', { method: 'POST', key: keyA, json: { url: 'x'.repeat(70_000) } }),
    ],
    ['a limit out of range', 422, () => app.request('/v1/notes?limit=0', { key: keyA })],
    [
      "a request past the account's daily limit",
      429,
      async () => {
        const { key } = await app.createAccount({ plan: 'enterprise', dailyLimit: 1 });
        expect((await app.request('/v1/notes', { key })).status).toBe(200);
        return app.request('/v1/notes', { key });
      },
    ],
  ];

  it.each(ROWS)('%s: %i with no-store and a request id', async (_what, status, send) => {
    const res = await send();
    expect({ status: res.status, cacheControl: res.headers.get('cache-control') }).toEqual({
      status,
      cacheControl: 'no-store',
    });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
