import { randomUUID } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../server/accounts/accounts';
import { events, meetings, transcriptSegments } from '../../server/db/schema';
import { startTestApp, type TestApp } from '../support/test-app';

// The six causes of a 500 that malformed input used to reach, each fixed at its root and answered
// in the surface's shape; and Cache-Control: no-store.

let app: TestApp;
let keyA: string;
let keysB: string[] = [];
let accountId: string;
let turn = 0;
/** Form B counts 100 requests per key per minute: this file spreads its requests over several keys. */
const keyB = () => keysB[turn++ % keysB.length]!;
let noteId: string;

beforeAll(async () => {
  app = await startTestApp();
  const a = await app.createAccount({ form: 'A', plan: 'enterprise' });
  keyA = a.key;
  accountId = a.account.id;
  const b = await app.createAccount({ form: 'B', plan: 'enterprise' });
  keysB = [b.key];
  for (let i = 0; i < 15; i++)
    keysB.push((await createApiKey(app.db, { accountId: b.account.id, form: 'B' })).plaintext);
  noteId = await app.recordNote(keyA, { title: 'Planning' });
  await app.recordNote(b.key, { title: 'Planning B' });
});

afterAll(async () => {
  await app?.close();
});

type Res = Awaited<ReturnType<TestApp['request']>>;
const FORM_A_ERROR = (code: string) => ({ error: { code, message: expect.any(String) } });
const FORM_B_ERROR = { error: expect.any(String) };

function expectApiHeaders(res: Res) {
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

function expectFormA(res: Res, status: number, code: string, mentions?: string) {
  expect({ status: res.status, body: res.json }).toEqual({ status, body: FORM_A_ERROR(code) });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expectApiHeaders(res);
  if (mentions) expect(res.json.error.message).toContain(mentions);
}

function expectFormB(res: Res, status: number, mentions?: string) {
  expect({ status: res.status, body: res.json }).toEqual({ status, body: FORM_B_ERROR });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expectApiHeaders(res);
  if (mentions) expect(res.json.error).toContain(mentions);
}

/** What the account has stored: a refused request must change none of it. */
async function stored() {
  const [m] = await app.db.select({ n: count() }).from(meetings).where(eq(meetings.accountId, accountId));
  const [e] = await app.db
    .select({ n: count() })
    .from(events)
    .innerJoin(meetings, eq(meetings.id, events.meetingId))
    .where(eq(meetings.accountId, accountId));
  const [s] = await app.db
    .select({ n: count() })
    .from(transcriptSegments)
    .innerJoin(meetings, eq(meetings.id, transcriptSegments.meetingId))
    .where(eq(meetings.accountId, accountId));
  return { meetings: m!.n, events: e!.n, segments: s!.n };
}

const post = (path: string, json: unknown, key = keyA) => app.request(path, { method: 'POST', key, json });
const newMeeting = async (json: unknown = { title: 'Sync', platform: 'zoom' }) => {
  const res = await post('/api/recorder/meetings', json);
  expect(res.status).toBe(201);
  return res.json.id as string;
};
const SEGMENT = { speaker: 'Ana', content: 'Hello there.', start_time: 0, end_time: 1 };

describe('query parameters named after Object.prototype members are ignored', () => {
  const NAMES = [
    'constructor',
    'toString',
    'valueOf',
    'hasOwnProperty',
    '__proto__',
    'isPrototypeOf',
    'toLocaleString',
    '__defineGetter__',
  ];
  const ROUTES: { form: 'A' | 'B'; method: string; path: () => string; status: number }[] = [
    { form: 'A', method: 'GET', path: () => '/v1/notes', status: 200 },
    { form: 'B', method: 'GET', path: () => '/v1/notes', status: 200 },
    { form: 'A', method: 'GET', path: () => `/v1/notes/${noteId}`, status: 200 },
    { form: 'B', method: 'GET', path: () => `/v1/notes/${randomUUID()}`, status: 404 },
    { form: 'A', method: 'GET', path: () => '/v1/notes/search?q=planning', status: 200 },
    { form: 'B', method: 'GET', path: () => '/v1/notes/search?q=planning', status: 200 },
    { form: 'A', method: 'DELETE', path: () => `/v1/notes/${randomUUID()}`, status: 404 },
    { form: 'A', method: 'GET', path: () => '/v1/webhooks', status: 200 },
    { form: 'B', method: 'GET', path: () => '/v1/webhooks', status: 200 },
    { form: 'A', method: 'DELETE', path: () => `/v1/webhooks/${randomUUID()}`, status: 404 },
    { form: 'B', method: 'DELETE', path: () => `/v1/webhooks/${randomUUID()}`, status: 404 },
    { form: 'B', method: 'GET', path: () => `/v1/webhooks/${randomUUID()}/deliveries`, status: 404 },
  ];

  for (const route of ROUTES) {
    it(`${route.method} ${route.path().replace(/[0-9a-f-]{36}|undefined/, ':id')} [Form ${route.form}] ignores every prototype-named parameter, once or twice`, async () => {
      const key = () => (route.form === 'A' ? keyA : keyB());
      for (const name of NAMES) {
        for (const query of [`${name}=1`, `${name}=1&${name}=2`, `${name}`, `${name}[]=x`]) {
          const path = route.path();
          const res = await app.request(`${path}${path.includes('?') ? '&' : '?'}${query}`, {
            method: route.method,
            key: key(),
          });
          expect({ name, query, status: res.status }).toEqual({ name, query, status: route.status });
          expectApiHeaders(res);
          if (route.status >= 400) {
            expect(res.json).toEqual(route.form === 'A' ? FORM_A_ERROR('not_found') : FORM_B_ERROR);
          }
        }
      }
    });
  }

  it('the list with a prototype-named parameter answers exactly what it answers without one', async () => {
    const plain = await app.request('/v1/notes', { key: keyA });
    for (const name of NAMES) {
      const res = await app.request(`/v1/notes?${name}=5&limit=1&${name}=6`, { key: keyA });
      const limited = await app.request('/v1/notes?limit=1', { key: keyA });
      expect(res.json).toEqual(limited.json);
    }
    expect(plain.status).toBe(200);
  });

  it('the recorder ignores prototype-named query parameters too', async () => {
    for (const name of NAMES) {
      const res = await post(`/api/recorder/meetings?${name}=1&${name}=2`, {
        title: 'Proto',
        platform: 'meet',
      });
      expect({ name, status: res.status }).toEqual({ name, status: 201 });
      expectApiHeaders(res);
    }
  });

  it('a body key named __proto__ or constructor is an unknown field, ignored', async () => {
    const res = await post(
      '/api/recorder/meetings',
      JSON.parse('{"__proto__":{"platform":"zoom"},"constructor":{"x":1},"platform":"teams","title":"P"}'),
    );
    expect(res.status).toBe(201);
    const onlyProto = await post('/api/recorder/meetings', JSON.parse('{"__proto__":{"platform":"zoom"}}'));
    expectFormA(onlyProto, 400, 'invalid_request', 'platform');
  });
});

describe('instants outside years 0100-9999 are refused as validation errors', () => {
  const OUT_OF_RANGE = [
    ['year 0000', '0000-01-01T00:00:00Z'],
    ['year 0001 (read back as 2001 by the driver)', '0001-01-01T00:00:00Z'],
    ['year 0099 (read back as 1999 by the driver)', '0099-12-31T23:59:59.999Z'],
    ['year 0100 with an offset that lands in year 0099', '0100-01-01T00:30:00+01:00'],
    ['year 9999 with an offset that lands in year 10000', '9999-12-31T23:30:00-01:00'],
  ] as const;

  for (const [label, value] of OUT_OF_RANGE) {
    it(`created_after / created_before of ${label} → Form A 422 validation_error, Form B 400, naming the parameter`, async () => {
      for (const name of ['created_after', 'created_before']) {
        const q = `/v1/notes?${name}=${encodeURIComponent(value)}`;
        expectFormA(await app.request(q, { key: keyA }), 422, 'validation_error', name);
        expectFormB(await app.request(q, { key: keyB() }), 400, name);
      }
    });

    it(`a Form B cursor of ${label} is a malformed cursor (400)`, async () => {
      expectFormB(
        await app.request(`/v1/notes?cursor=${encodeURIComponent(value)}`, { key: keyB() }),
        400,
        'cursor',
      );
    });

    it(`recorder started_at / ended_at of ${label} → 422 validation_error, nothing stored`, async () => {
      const before = await stored();
      expectFormA(
        await post('/api/recorder/meetings', { platform: 'zoom', started_at: value }),
        422,
        'validation_error',
        'started_at',
      );
      expect(await stored()).toEqual(before);
      const id = await newMeeting();
      const after = await stored();
      expectFormA(
        await post(`/api/recorder/meetings/${id}/transcript`, { ended_at: value, segments: [SEGMENT] }),
        422,
        'validation_error',
        'ended_at',
      );
      expect(await stored()).toEqual(after);
    });
  }

  it('the first and last instants of the range are accepted, and read back as given', async () => {
    for (const value of ['0100-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '0100-01-01T01:00:00+01:00']) {
      for (const key of [keyA, keyB()]) {
        const res = await app.request(`/v1/notes?created_after=${encodeURIComponent(value)}`, { key });
        expect({ value, status: res.status }).toEqual({ value, status: 200 });
      }
      expect(
        (await app.request(`/v1/notes?cursor=${encodeURIComponent(value)}`, { key: keyB() })).status,
      ).toBe(200);
    }
    const first = await newMeeting({ platform: 'zoom', started_at: '0100-01-01T00:00:00Z' });
    const res = await post(`/api/recorder/meetings/${first}/transcript`, {
      ended_at: '0100-01-01T01:00:00Z',
      segments: [SEGMENT],
      generate_summary: false,
    });
    expect(res.status).toBe(200);
    const note = await app.request(`/v1/notes/${first}`, { key: keyA, form: 'B' });
    expect({
      started_at: note.json.started_at,
      ended_at: note.json.ended_at,
      duration: note.json.duration_seconds,
    }).toEqual({
      started_at: '0100-01-01T00:00:00.000Z',
      ended_at: '0100-01-01T01:00:00.000Z',
      duration: 3600,
    });
    const last = await newMeeting({ platform: 'zoom', started_at: '9999-12-31T23:00:00Z' });
    expect(
      (
        await post(`/api/recorder/meetings/${last}/transcript`, {
          ended_at: '9999-12-31T23:59:59.999Z',
          segments: [SEGMENT],
          generate_summary: false,
        })
      ).status,
    ).toBe(200);
    expect((await app.request(`/v1/notes/${last}`, { key: keyA })).json.ended_at).toBe(
      '9999-12-31T23:59:59.999Z',
    );
  });

  it('a forged Form A cursor past year 9999 (15-digit milliseconds) is a malformed cursor (400)', async () => {
    const forged = Buffer.from(`999999999999999:${randomUUID()}`).toString('base64url');
    expectFormA(
      await app.request(`/v1/notes?cursor=${forged}`, { key: keyA }),
      400,
      'invalid_request',
      'cursor',
    );
    const forgedDeliveries = `/v1/webhooks/${randomUUID()}/deliveries?cursor=${forged}`;
    expectFormB(await app.request(forgedDeliveries, { key: keyB() }), 400, 'cursor');
  });
});

describe('NUL characters (and unpaired surrogates) are refused as 400 naming the field', () => {
  const NUL = 'a\u0000b';
  const SURROGATE = 'a\ud800b';

  for (const [label, bad] of [
    ['NUL', NUL],
    ['an unpaired surrogate', SURROGATE],
  ] as const) {
    it(`${label} in title or language → 400 invalid_request naming it, no meeting, no event`, async () => {
      const before = await stored();
      expectFormA(
        await post('/api/recorder/meetings', { title: bad, platform: 'zoom' }),
        400,
        'invalid_request',
        'title',
      );
      expectFormA(
        await post('/api/recorder/meetings', { language: `en${bad}`, platform: 'zoom' }),
        400,
        'invalid_request',
        'language',
      );
      expect(await stored()).toEqual(before);
    });

    it(`${label} in a segment's speaker or content → 400 naming segments.N.field, nothing stored`, async () => {
      const id = await newMeeting();
      const before = await stored();
      const segments = [SEGMENT, { ...SEGMENT, speaker: bad }];
      expectFormA(
        await post(`/api/recorder/meetings/${id}/transcript`, { segments }),
        400,
        'invalid_request',
        'segments.1.speaker',
      );
      const content = [SEGMENT, SEGMENT, { ...SEGMENT, content: bad }];
      expectFormA(
        await post(`/api/recorder/meetings/${id}/transcript`, { segments: content }),
        400,
        'invalid_request',
        'segments.2.content',
      );
      expect(await stored()).toEqual(before);
      expect(
        (
          await post(`/api/recorder/meetings/${id}/transcript`, {
            segments: [SEGMENT],
            generate_summary: false,
          })
        ).status,
      ).toBe(200);
    });

    it(`${label} anywhere in a summary or its text → 400 naming the field, no summary.ready`, async () => {
      const id = await newMeeting();
      expect(
        (
          await post(`/api/recorder/meetings/${id}/transcript`, {
            segments: [SEGMENT],
            generate_summary: false,
          })
        ).status,
      ).toBe(200);
      const summary = {
        context: 'c',
        decisions: ['d'],
        action_items: [{ task: 't', owner: null, deadline: null }],
        participants: ['Ana'],
        next_step: null,
        budget_mentioned: null,
        sentiment: null,
      };
      const before = await stored();
      const cases: [unknown, string][] = [
        [{ summary: { ...summary, context: bad } }, 'summary.context'],
        [{ summary: { ...summary, decisions: ['ok', bad] } }, 'summary.decisions.1'],
        [
          { summary: { ...summary, action_items: [{ task: bad, owner: null, deadline: null }] } },
          'summary.action_items.0.task',
        ],
        [{ summary, text: bad }, 'text'],
      ];
      for (const [json, field] of cases)
        expectFormA(await post(`/api/recorder/meetings/${id}/summary`, json), 400, 'invalid_request', field);
      expect(await stored()).toEqual(before);
    });
  }

  it('NUL in /v1 query values and in a webhook URL is answered in shape, never 500', async () => {
    for (const [path, key, form] of [
      [`/v1/notes/search?q=${encodeURIComponent(NUL)}`, keyA, 'A'],
      [`/v1/notes/search?q=${encodeURIComponent(NUL)}`, keyB(), 'B'],
      [`/v1/notes?cursor=${encodeURIComponent(NUL)}`, keyA, 'A'],
      [`/v1/notes?platform=${encodeURIComponent(NUL)}`, keyB(), 'B'],
      [`/v1/notes?created_after=${encodeURIComponent(NUL)}`, keyA, 'A'],
    ] as const) {
      const res = await app.request(path, { key });
      expect({ path, status: res.status < 500 }).toEqual({ path, status: true });
      expectApiHeaders(res);
      if (res.status >= 400)
        expect(res.json).toEqual(form === 'A' ? FORM_A_ERROR(res.json.error.code) : FORM_B_ERROR);
    }
    for (const url of [`https://exa${NUL}mple.com/hook`, `https://example.com/ho${NUL}ok`]) {
      const res = await app.request('/v1/webhooks', { method: 'POST', key: keyA, json: { url } });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.json).toEqual(FORM_A_ERROR(res.json.error.code));
    }
  });
});

describe('durations beyond 2^31 − 1 seconds are validation errors', () => {
  it('started_at in 1900 and no ended_at (duration computed to now) → 422 naming the duration, nothing stored', async () => {
    const id = await newMeeting({ platform: 'zoom', started_at: '1900-01-01T00:00:00Z' });
    const before = await stored();
    expectFormA(
      await post(`/api/recorder/meetings/${id}/transcript`, { segments: [SEGMENT] }),
      422,
      'validation_error',
      'seconds',
    );
    expect(await stored()).toEqual(before);
    // The recorder can still store it by saying when it ended.
    const ok = await post(`/api/recorder/meetings/${id}/transcript`, {
      ended_at: '1900-01-01T01:00:00Z',
      segments: [SEGMENT],
      generate_summary: false,
    });
    expect(ok.status).toBe(200);
  });

  it('started_at in 1900 and ended_at now → 422; duration_seconds 3000000000 → 422; 2^31 − 1 is accepted', async () => {
    const old = await newMeeting({ platform: 'zoom', started_at: '1900-01-01T00:00:00Z' });
    expectFormA(
      await post(`/api/recorder/meetings/${old}/transcript`, {
        ended_at: new Date().toISOString(),
        segments: [SEGMENT],
      }),
      422,
      'validation_error',
    );
    const id = await newMeeting();
    for (const duration of [3_000_000_000, 2 ** 31, Number.MAX_SAFE_INTEGER, 1e300]) {
      expectFormA(
        await post(`/api/recorder/meetings/${id}/transcript`, {
          duration_seconds: duration,
          segments: [SEGMENT],
        }),
        422,
        'validation_error',
        'duration_seconds',
      );
    }
    const ok = await post(`/api/recorder/meetings/${id}/transcript`, {
      duration_seconds: 2 ** 31 - 1,
      segments: [SEGMENT],
      generate_summary: false,
    });
    expect(ok.status).toBe(200);
    expect((await app.request(`/v1/notes/${id}`, { key: keyA })).json.duration_seconds).toBe(2 ** 31 - 1);
  });

  it('a duration that would end the meeting after year 9999 → 422, nothing stored', async () => {
    const id = await newMeeting({ platform: 'zoom', started_at: '9999-12-01T00:00:00Z' });
    const before = await stored();
    expectFormA(
      await post(`/api/recorder/meetings/${id}/transcript`, {
        duration_seconds: 60 * 86_400,
        segments: [SEGMENT],
      }),
      422,
      'validation_error',
      '9999',
    );
    expectFormA(
      await post(`/api/recorder/meetings/${id}/transcript`, {
        segments: [{ ...SEGMENT, start_time: 0, end_time: 90 * 86_400 }],
      }),
      422,
      'validation_error',
      '9999',
    );
    expect(await stored()).toEqual(before);
  });
});

describe('absurd segment times are validation errors', () => {
  for (const [field, value] of [
    ['start_time', 1e15],
    ['start_time', 2 ** 31],
    ['end_time', 1e15],
    ['end_time', Number.MAX_VALUE],
  ] as const) {
    it(`${field} ${value} → 422 validation_error naming it, nothing stored`, async () => {
      const id = await newMeeting();
      const before = await stored();
      const segment =
        field === 'start_time'
          ? { ...SEGMENT, start_time: value, end_time: null }
          : { ...SEGMENT, [field]: value };
      expectFormA(
        await post(`/api/recorder/meetings/${id}/transcript`, { segments: [SEGMENT, segment] }),
        422,
        'validation_error',
        `segments.1.${field}`,
      );
      expect(await stored()).toEqual(before);
    });
  }

  it('a segment at 2^31 − 1 seconds (the longest meeting) is accepted', async () => {
    const id = await newMeeting();
    const segments = [SEGMENT, { ...SEGMENT, start_time: 2 ** 31 - 2, end_time: 2 ** 31 - 1 }];
    expect(
      (await post(`/api/recorder/meetings/${id}/transcript`, { segments, generate_summary: false })).status,
    ).toBe(200);
  });
});

describe("a path that is not valid percent-encoding is a 400 in the form's shape", () => {
  const BAD = [
    '/v1/notes/%FF',
    '/v1/notes/%E0%A4%A',
    '/v1/%',
    '/v1/notes/%zz',
    '/v1/webhooks/%C0%80/deliveries',
  ];

  it.each(BAD)(
    '%s → Form A 400 invalid_request (no key needed), Form B 400 with X-API-Form: B',
    async (path) => {
      expectFormA(await app.request(path), 400, 'invalid_request', 'path');
      expectFormA(await app.request(path, { key: keyB() }), 400, 'invalid_request', 'path');
      expectFormB(await app.request(path, { form: 'B' }), 400, 'path');
    },
  );

  it.each(['/api/recorder/meetings/%FF/transcript', '/api/recorder/%', '/api/recorder/meetings/%E2%82'])(
    '%s → Form A 400 invalid_request with X-Request-Id',
    async (path) => {
      expectFormA(
        await app.request(path, { method: 'POST', key: keyA, json: { segments: [SEGMENT] } }),
        400,
        'invalid_request',
        'path',
      );
    },
  );

  it('a well-formed escape in a path is decoded as usual (an escaped UUID is not found, not malformed)', async () => {
    expectFormA(
      await app.request(`/v1/notes/%41${randomUUID().slice(1)}`, { key: keyA }),
      400,
      'invalid_request',
      'UUID',
    );
  });
});

describe('the roots of both surfaces are answered in shape', () => {
  it("/v1 and /api/recorder themselves (no trailing path) are a 404 in the surface's shape", async () => {
    expectFormA(await app.request('/v1', { key: keyA }), 404, 'not_found');
    expectFormB(await app.request('/v1', { key: keyB() }), 404);
    expectFormA(await post('/api/recorder', { platform: 'zoom' }), 404, 'not_found');
  });
});

describe('HEAD and OPTIONS go through the API too', () => {
  it('HEAD is GET without a body (same status and headers); OPTIONS is an endpoint no form offers (404 in shape)', async () => {
    const head = await app.request('/v1/notes', { method: 'HEAD', key: keyA });
    expect({ status: head.status, body: head.text, limit: head.headers.get('x-ratelimit-limit') }).toEqual({
      status: 200,
      body: '',
      limit: '100000',
    });
    expectApiHeaders(head);
    const missing = await app.request('/v1/nowhere', { method: 'HEAD', key: keyB() });
    expect(missing.status).toBe(404);
    expectApiHeaders(missing);
    expectFormA(
      await app.request('/v1/notes', { method: 'OPTIONS', key: keyA }),
      404,
      'not_found',
      'OPTIONS',
    );
    expectFormB(await app.request('/v1/notes', { method: 'OPTIONS', key: keyB() }), 404);
    expectFormA(
      await app.request('/api/recorder/meetings', { method: 'OPTIONS', key: keyA }),
      404,
      'not_found',
    );
    const recorderHead = await app.request('/api/recorder/meetings', { method: 'HEAD', key: keyA });
    expect(recorderHead.status).toBe(404);
    expectApiHeaders(recorderHead);
  });
});

describe('every /v1 and recorder response answers Cache-Control: no-store', () => {
  it('200, 201, 204, 400, 401, 403, 404, 409, 413, 422 and 429 responses of both surfaces', async () => {
    const limited = await app.createAccount({ plan: 'enterprise', dailyLimit: 1 });
    await app.request('/v1/notes', { key: limited.key });
    const noAccess = await app.createAccount({ earlyAccess: false });
    const deletable = await app.recordNote(keyA);
    const transcribed = await app.recordNote(keyA);
    const responses: [string, Res, number][] = [
      ['200 list A', await app.request('/v1/notes', { key: keyA }), 200],
      ['200 list B', await app.request('/v1/notes', { key: keyB() }), 200],
      ['204 delete', await app.request(`/v1/notes/${deletable}`, { method: 'DELETE', key: keyA }), 204],
      ['201 recorder', await post('/api/recorder/meetings', { platform: 'zoom' }), 201],
      [
        '200 recorder',
        await post(`/api/recorder/meetings/${transcribed}/summary`, {
          summary: {
            context: null,
            decisions: [],
            action_items: [],
            participants: [],
            next_step: null,
            budget_mentioned: null,
            sentiment: null,
          },
        }),
        200,
      ],
      ['400', await app.request('/v1/notes?limit=abc', { key: keyA }), 400],
      ['401', await app.request('/v1/notes'), 401],
      ['401 recorder', await post('/api/recorder/meetings', {}, ''), 401],
      ['403', await app.request('/v1/notes', { key: noAccess.key }), 403],
      ['404', await app.request('/v1/nowhere', { key: keyB() }), 404],
      [
        '409 recorder',
        await post(`/api/recorder/meetings/${transcribed}/transcript`, { segments: [SEGMENT] }),
        409,
      ],
      [
        '413',
        await app.request('/v1/webhooks', { method: 'POST', key: keyA, json: { url: 'x'.repeat(70_000) } }),
        413,
      ],
      ['422', await app.request('/v1/notes?limit=0', { key: keyA }), 422],
      ['429', await app.request('/v1/notes', { key: limited.key }), 429],
    ];
    for (const [label, res, status] of responses) {
      expect({ label, status: res.status, cacheControl: res.headers.get('cache-control') }).toEqual({
        label,
        status,
        cacheControl: 'no-store',
      });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });
});
