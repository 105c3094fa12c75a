import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../server/accounts/accounts';
import { events, transcriptSegments } from '../../server/db/schema';
import { startTestApp, type TestApp } from '../support/test-app';

// The recorder API (docs/rules.md#recorder-api): when a meeting becomes a note, how its times
// are stored and written, the event payloads it makes, and the event outbox
// (server/db/schema.ts `events`).

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Res = Awaited<ReturnType<TestApp['request']>>;

const SEGMENTS = [
  { speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0, end_time: 2.5 },
  { speaker: 'Ben', content: 'Yes, the release is on track for Friday.', start_time: 2.5 },
  { speaker: 'Ana', content: 'Then let us book the review for Monday.', start_time: 7.25, end_time: null },
  { speaker: 'Cleo', content: 'I will write the release notes.', start_time: 11, end_time: 14.75 },
];

/** The transcript as event payloads (and Form B) write it: sequence 1..n, end_time number or null. */
const SEGMENTS_OUT = [
  { sequence: 1, speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0, end_time: 2.5 },
  {
    sequence: 2,
    speaker: 'Ben',
    content: 'Yes, the release is on track for Friday.',
    start_time: 2.5,
    end_time: null,
  },
  {
    sequence: 3,
    speaker: 'Ana',
    content: 'Then let us book the review for Monday.',
    start_time: 7.25,
    end_time: null,
  },
  {
    sequence: 4,
    speaker: 'Cleo',
    content: 'I will write the release notes.',
    start_time: 11,
    end_time: 14.75,
  },
];

const SUMMARY = {
  context: 'Release planning for the Friday launch.',
  decisions: ['Ship on Friday', 'Hold the review on Monday'],
  action_items: [
    { task: 'Write the release notes', owner: 'Cleo', deadline: '2026-01-09' },
    { task: 'Book the review room', owner: null, deadline: null },
  ],
  participants: ['Ana', 'Ben', 'Cleo'],
  next_step: 'Review on Monday',
  budget_mentioned: null,
  sentiment: 'positive',
};

function post(key: string, path: string, json: unknown): Promise<Res> {
  return app.request(path, { method: 'POST', key, json });
}

function createMeeting(
  key: string,
  json: unknown = { title: 'Weekly sync', platform: 'zoom' },
): Promise<Res> {
  return post(key, '/api/recorder/meetings', json);
}

async function newMeeting(
  key: string,
  json: Record<string, unknown> = { title: 'Weekly sync', platform: 'zoom' },
): Promise<string> {
  const res = await createMeeting(key, json);
  expect(res.status).toBe(201);
  return res.json.id as string;
}

function postTranscript(key: string, id: string, json: unknown): Promise<Res> {
  return post(key, `/api/recorder/meetings/${id}/transcript`, json);
}

function postSummary(key: string, id: string, json: unknown): Promise<Res> {
  return post(key, `/api/recorder/meetings/${id}/summary`, json);
}

function expectJson(res: Res) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
}

function expectFormAError(res: Res, status: number, code: string) {
  expect({ status: res.status, body: res.json }).toEqual({
    status,
    body: { error: { code, message: expect.any(String) } },
  });
  expect(res.json.error.message.length).toBeGreaterThan(0);
  expectJson(res);
}

function expectNoRateLimitHeaders(res: Res) {
  expect({
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
    retryAfter: res.headers.get('retry-after'),
  }).toEqual({ limit: null, remaining: null, reset: null, retryAfter: null });
}

async function eventsOf(meetingId: string) {
  return app.db.select().from(events).where(eq(events.meetingId, meetingId)).orderBy(asc(events.createdAt));
}

async function segmentsOf(meetingId: string) {
  return app.db
    .select()
    .from(transcriptSegments)
    .where(eq(transcriptSegments.meetingId, meetingId))
    .orderBy(asc(transcriptSegments.sequence));
}

describe('POST /api/recorder/meetings', () => {
  it('creating a meeting answers 201 {"id"} (UUID v4) and writes a meeting.started event with exactly the payload data of that event', async () => {
    const { account, key } = await app.createAccount();
    const res = await createMeeting(key, {
      title: 'Kickoff',
      platform: 'meet',
      started_at: '2026-01-05T09:00:00Z',
      language: 'de',
    });
    expect(res.status).toBe(201);
    expectJson(res);
    expect(res.json).toEqual({ id: expect.stringMatching(UUID_V4) });
    const id = res.json.id as string;

    const rows = await eventsOf(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'meeting.started', accountId: account.id, meetingId: id });
    expect(rows[0]!.data).toEqual({
      id,
      title: 'Kickoff',
      platform: 'meet',
      duration_seconds: null,
      started_at: '2026-01-05T09:00:00.000Z',
      ended_at: null,
      transcript: [],
      summary: null,
    });
  });

  it('meeting.started keeps a missing title as null, the full platform enum (microphone) and defaults started_at to now', async () => {
    const { key } = await app.createAccount();
    const before = Date.now();
    const id = await newMeeting(key, { platform: 'microphone' });
    const after = Date.now();

    const rows = await eventsOf(id);
    expect(rows.map((r) => r.type)).toEqual(['meeting.started']);
    const data = rows[0]!.data as Record<string, unknown>;
    expect(data).toEqual({
      id,
      title: null,
      platform: 'microphone',
      duration_seconds: null,
      started_at: expect.stringMatching(ISO_MS),
      ended_at: null,
      transcript: [],
      summary: null,
    });
    const startedAt = Date.parse(data.started_at as string);
    // Server and test share one clock; allow for millisecond truncation.
    expect(startedAt).toBeGreaterThanOrEqual(before - 1);
    expect(startedAt).toBeLessThanOrEqual(after + 1);
  });

  it('before its transcript a meeting is not a note (GET /v1/notes/:id is 404 in both forms, the list is empty)', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key);

    const a = await app.request(`/v1/notes/${id}`, { key });
    expectFormAError(a, 404, 'not_found');
    const b = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
    expect({ status: b.status, body: b.json }).toEqual({ status: 404, body: { error: expect.any(String) } });
    expectJson(b);

    const listA = await app.request('/v1/notes', { key });
    expect({ status: listA.status, body: listA.json }).toEqual({
      status: 200,
      body: { data: [], next_cursor: null, has_more: false },
    });
    const listB = await app.request('/v1/notes', { key, form: 'B' });
    expect({ status: listB.status, body: listB.json }).toEqual({
      status: 200,
      body: { data: [], next_cursor: null, has_more: false },
    });
  });
});

describe('POST /api/recorder/meetings/:id/transcript', () => {
  it('a transcript answers 200 {"id"} and its segments are stored in recorder order with sequence 1..n', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key);
    const res = await postTranscript(key, id, { segments: SEGMENTS, generate_summary: false });
    expect(res.status).toBe(200);
    expectJson(res);
    expect(res.json).toEqual({ id });

    const rows = await segmentsOf(id);
    expect(rows).toEqual(
      SEGMENTS_OUT.map((s) => ({
        meetingId: id,
        sequence: s.sequence,
        speaker: s.speaker,
        content: s.content,
        startTime: s.start_time,
        endTime: s.end_time,
      })),
    );
  });

  it('once transcribed the meeting is a note: listed, and GET /v1/notes/:id shows it in both forms with summary null', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key, {
      title: 'Release sync',
      platform: 'teams',
      started_at: '2026-01-05T09:00:00Z',
    });
    const t = await postTranscript(key, id, {
      segments: SEGMENTS,
      ended_at: '2026-01-05T09:30:00Z',
      generate_summary: false,
    });
    expect(t.status).toBe(200);

    const a = await app.request(`/v1/notes/${id}`, { key });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({
      id,
      title: 'Release sync',
      platform: 'teams',
      duration_seconds: 1800,
      created_at: expect.stringMatching(ISO_MS),
      ended_at: '2026-01-05T09:30:00.000Z',
      language: 'en',
      transcript: SEGMENTS_OUT.map(({ end_time: _omitted, ...s }) => s),
      summary: null,
      action_items: [],
    });

    const b = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
    expect(b.status).toBe(200);
    const noteB = {
      id,
      title: 'Release sync',
      platform: 'teams',
      duration_seconds: 1800,
      started_at: '2026-01-05T09:00:00.000Z',
      ended_at: '2026-01-05T09:30:00.000Z',
      status: 'ready',
      transcript: SEGMENTS_OUT,
      summary: null,
    };
    expect(b.json).toEqual(noteB);

    const listB = await app.request('/v1/notes', { key, form: 'B' });
    expect(listB.json).toEqual({ data: [noteB], next_cursor: null, has_more: false });
    const listA = await app.request('/v1/notes', { key });
    expect(listA.json.data.map((n: { id: string }) => n.id)).toEqual([id]);
  });

  it('the transcript fires meeting.transcribed with the transcript inline (end_time number or null) and summary null', async () => {
    const { account, key } = await app.createAccount();
    const id = await newMeeting(key, {
      title: 'Release sync',
      platform: 'zoom',
      started_at: '2026-01-05T09:00:00Z',
    });
    const t = await postTranscript(key, id, {
      segments: SEGMENTS,
      ended_at: '2026-01-05T09:30:00Z',
      generate_summary: false,
    });
    expect(t.status).toBe(200);

    const rows = await eventsOf(id);
    expect(rows.map((r) => r.type)).toEqual(['meeting.started', 'meeting.transcribed']);
    expect(rows[1]).toMatchObject({ accountId: account.id, meetingId: id });
    expect(rows[1]!.data).toEqual({
      id,
      title: 'Release sync',
      platform: 'zoom',
      duration_seconds: 1800,
      started_at: '2026-01-05T09:00:00.000Z',
      ended_at: '2026-01-05T09:30:00.000Z',
      transcript: SEGMENTS_OUT,
      summary: null,
    });
  });

  it('a second transcript for the same meeting is a 409 conflict (Form A) and changes nothing', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key);
    expect((await postTranscript(key, id, { segments: SEGMENTS, generate_summary: false })).status).toBe(200);

    const again = await postTranscript(key, id, {
      segments: [{ speaker: 'Zed', content: 'A different transcript.', start_time: 0 }],
      generate_summary: false,
    });
    expectFormAError(again, 409, 'conflict');

    expect((await segmentsOf(id)).map((s) => s.content)).toEqual(SEGMENTS.map((s) => s.content));
    expect((await eventsOf(id)).map((r) => r.type)).toEqual(['meeting.started', 'meeting.transcribed']);
  });

  it('a transcript of 10000 segments is accepted and stored as sequence 1..10000', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key);
    const segments = Array.from({ length: 10_000 }, (_, i) => ({
      speaker: `S${i % 3}`,
      content: `line ${i + 1}`,
      start_time: i,
    }));
    const res = await postTranscript(key, id, { segments, generate_summary: false });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id });

    const rows = await segmentsOf(id);
    expect(rows).toHaveLength(10_000);
    expect(
      rows.every((r, i) => r.sequence === i + 1 && r.content === `line ${i + 1}` && r.startTime === i),
    ).toBe(true);
  });

  it('started_at given is echoed (normalised to UTC, millisecond precision) in Form B started_at', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key, {
      title: 'Offset',
      platform: 'zoom',
      started_at: '2026-01-05T10:00:00.123456+02:00',
    });
    expect(
      (await postTranscript(key, id, { segments: SEGMENTS, duration_seconds: 600, generate_summary: false }))
        .status,
    ).toBe(200);
    const b = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
    expect(b.status).toBe(200);
    expect(b.json.started_at).toBe('2026-01-05T08:00:00.123Z');
    expect(b.json.duration_seconds).toBe(600);
  });

  it('ended_at and duration_seconds given are used as given', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key, { platform: 'meet', started_at: '2026-01-05T09:00:00Z' });
    const t = await postTranscript(key, id, {
      segments: SEGMENTS,
      ended_at: '2026-01-05T10:00:00Z',
      duration_seconds: 3000,
      generate_summary: false,
    });
    expect(t.status).toBe(200);
    const b = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
    expect({
      started_at: b.json.started_at,
      ended_at: b.json.ended_at,
      duration_seconds: b.json.duration_seconds,
    }).toEqual({
      started_at: '2026-01-05T09:00:00.000Z',
      ended_at: '2026-01-05T10:00:00.000Z',
      duration_seconds: 3000,
    });
    const a = await app.request(`/v1/notes/${id}`, { key });
    expect({ ended_at: a.json.ended_at, duration_seconds: a.json.duration_seconds }).toEqual({
      ended_at: '2026-01-05T10:00:00.000Z',
      duration_seconds: 3000,
    });
  });

  it('with only ended_at given, duration_seconds is ended_at - started_at', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key, { platform: 'meet', started_at: '2026-01-05T09:00:00Z' });
    const t = await postTranscript(key, id, {
      segments: SEGMENTS,
      ended_at: '2026-01-05T10:15:30+01:00',
      generate_summary: false,
    });
    expect(t.status).toBe(200);
    const b = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
    expect({ ended_at: b.json.ended_at, duration_seconds: b.json.duration_seconds }).toEqual({
      ended_at: '2026-01-05T09:15:30.000Z',
      duration_seconds: 930,
    });
    const [, transcribed] = await eventsOf(id);
    expect(transcribed!.data).toMatchObject({ ended_at: '2026-01-05T09:15:30.000Z', duration_seconds: 930 });
  });

  it('a transcript refused inside its transaction (ended_at before started_at, 422) leaves no segments and no meeting.transcribed event', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key, { platform: 'zoom', started_at: '2026-01-05T09:00:00Z' });
    const bad = await postTranscript(key, id, {
      segments: SEGMENTS,
      ended_at: '2026-01-05T08:00:00Z',
      generate_summary: false,
    });
    expectFormAError(bad, 422, 'validation_error');

    expect(await segmentsOf(id)).toEqual([]);
    expect((await eventsOf(id)).map((r) => r.type)).toEqual(['meeting.started']);
    expect((await app.request(`/v1/notes/${id}`, { key })).status).toBe(404);

    // Nothing half-done is left behind: the meeting still takes its transcript.
    const ok = await postTranscript(key, id, {
      segments: SEGMENTS,
      ended_at: '2026-01-05T09:10:00Z',
      generate_summary: false,
    });
    expect(ok.status).toBe(200);
    expect((await segmentsOf(id)).map((s) => s.sequence)).toEqual([1, 2, 3, 4]);
    expect((await eventsOf(id)).map((r) => r.type)).toEqual(['meeting.started', 'meeting.transcribed']);
  });
});

describe('POST /api/recorder/meetings/:id/summary', () => {
  it('a summary before the transcript is a 409 conflict (Form A) and fires nothing', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key);
    const res = await postSummary(key, id, { summary: SUMMARY });
    expectFormAError(res, 409, 'conflict');
    expect((await eventsOf(id)).map((r) => r.type)).toEqual(['meeting.started']);
  });

  it('a summary after the transcript answers 200 {"id"} and fires summary.ready with the transcript and the Summary object', async () => {
    const { account, key } = await app.createAccount();
    const id = await newMeeting(key, {
      title: 'Release sync',
      platform: 'phone',
      started_at: '2026-01-05T09:00:00Z',
    });
    expect(
      (await postTranscript(key, id, { segments: SEGMENTS, duration_seconds: 900, generate_summary: false }))
        .status,
    ).toBe(200);

    const res = await postSummary(key, id, { summary: SUMMARY });
    expect(res.status).toBe(200);
    expectJson(res);
    expect(res.json).toEqual({ id });

    const rows = await eventsOf(id);
    expect(rows.map((r) => r.type)).toEqual(['meeting.started', 'meeting.transcribed', 'summary.ready']);
    expect(rows[2]).toMatchObject({ accountId: account.id, meetingId: id });
    expect(rows[2]!.data).toEqual({
      id,
      title: 'Release sync',
      platform: 'phone',
      duration_seconds: 900,
      started_at: '2026-01-05T09:00:00.000Z',
      ended_at: '2026-01-05T09:15:00.000Z',
      transcript: SEGMENTS_OUT,
      summary: SUMMARY,
    });
  });

  it('the stored summary shows in GET /v1/notes/:id: Form B summary object, Form A summary text and action_items', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key, { title: 'Release sync', platform: 'zoom' });
    expect((await postTranscript(key, id, { segments: SEGMENTS, generate_summary: false })).status).toBe(200);
    expect((await postSummary(key, id, { summary: SUMMARY })).status).toBe(200);

    const b = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
    expect(b.status).toBe(200);
    expect(b.json.summary).toEqual(SUMMARY);

    const a = await app.request(`/v1/notes/${id}`, { key });
    expect(a.status).toBe(200);
    expect(a.json.action_items).toEqual([
      { text: 'Write the release notes', assignee: 'Cleo' },
      { text: 'Book the review room', assignee: null },
    ]);
    // Without recorder text, Form A's summary is built from context, decisions and next step.
    expect(typeof a.json.summary).toBe('string');
    for (const part of [SUMMARY.context, ...SUMMARY.decisions, SUMMARY.next_step])
      expect(a.json.summary).toContain(part);
  });

  it('recorder-supplied summary text is Form A summary as given', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key);
    expect((await postTranscript(key, id, { segments: SEGMENTS, generate_summary: false })).status).toBe(200);
    const text = 'We agreed to ship on Friday. Cleo writes the release notes.';
    expect((await postSummary(key, id, { summary: SUMMARY, text })).status).toBe(200);

    const a = await app.request(`/v1/notes/${id}`, { key });
    expect({ summary: a.json.summary, action_items: a.json.action_items }).toEqual({
      summary: text,
      action_items: [
        { text: 'Write the release notes', assignee: 'Cleo' },
        { text: 'Book the review room', assignee: null },
      ],
    });
  });

  it('posting a summary again replaces it and fires another summary.ready; events run started → transcribed → summary.ready → summary.ready', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key, { title: 'Release sync', platform: 'zoom' });
    expect((await postTranscript(key, id, { segments: SEGMENTS, generate_summary: false })).status).toBe(200);
    expect((await postSummary(key, id, { summary: SUMMARY })).status).toBe(200);

    const second = {
      ...SUMMARY,
      context: 'Launch moved to next week.',
      decisions: ['Delay the launch'],
      action_items: [{ task: 'Tell the customers', owner: 'Ben', deadline: null }],
      sentiment: null,
    };
    const res = await postSummary(key, id, { summary: second });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id });

    const rows = await eventsOf(id);
    expect(rows.map((r) => r.type)).toEqual([
      'meeting.started',
      'meeting.transcribed',
      'summary.ready',
      'summary.ready',
    ]);
    expect((rows[2]!.data as { summary: unknown }).summary).toEqual(SUMMARY);
    expect((rows[3]!.data as { summary: unknown; transcript: unknown }).summary).toEqual(second);
    expect((rows[3]!.data as { transcript: unknown }).transcript).toEqual(SEGMENTS_OUT);

    const b = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
    expect(b.json.summary).toEqual(second);
    const a = await app.request(`/v1/notes/${id}`, { key });
    expect(a.json.action_items).toEqual([{ text: 'Tell the customers', assignee: 'Ben' }]);
    expect(a.json.summary).toContain('Launch moved to next week.');
    expect(a.json.summary).not.toContain(SUMMARY.context);
  });
});

describe('recorder authentication and access', () => {
  it('a missing, unknown or revoked key gets 401 invalid_api_key with a Form A body on every recorder endpoint', async () => {
    const { account, key } = await app.createAccount();
    const id = await newMeeting(key);
    const { plaintext: revoked, key: revokedKey } = await createApiKey(app.db, { accountId: account.id });
    await revokeApiKey(app.db, revokedKey.id);

    const keys: [string, string | undefined][] = [
      ['no key', undefined],
      ['malformed key', 'not-a-key'],
      ['unknown well-formed key', `mnk_${'A'.repeat(40)}`],
      ['revoked key', revoked],
    ];
    const calls: [string, string, unknown][] = [
      ['create', '/api/recorder/meetings', { platform: 'zoom' }],
      [
        'transcript',
        `/api/recorder/meetings/${id}/transcript`,
        { segments: SEGMENTS, generate_summary: false },
      ],
      ['summary', `/api/recorder/meetings/${id}/summary`, { summary: SUMMARY }],
    ];
    for (const [keyCase, k] of keys) {
      for (const [call, path, json] of calls) {
        const res = await app.request(path, { method: 'POST', json, ...(k && { key: k }) });
        expect({ case: `${keyCase} / ${call}`, status: res.status, body: res.json }).toEqual({
          case: `${keyCase} / ${call}`,
          status: 401,
          body: { error: { code: 'invalid_api_key', message: expect.any(String) } },
        });
        expectJson(res);
        expectNoRateLimitHeaders(res);
      }
    }
    // Nothing happened to the meeting.
    expect(await segmentsOf(id)).toEqual([]);
    expect((await eventsOf(id)).map((r) => r.type)).toEqual(['meeting.started']);
  });

  it('the recorder answers Form A error bodies even when X-API-Form: B is sent', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const unauth = await app.request('/api/recorder/meetings', {
      method: 'POST',
      form: 'B',
      json: { platform: 'zoom' },
    });
    expectFormAError(unauth, 401, 'invalid_api_key');
    const invalid = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key,
      form: 'B',
      json: { platform: 'skype' },
    });
    expectFormAError(invalid, 422, 'validation_error');
  });

  it("another account's meeting (or an unknown id) is 404 not_found on transcript and summary, and stays untouched", async () => {
    const owner = await app.createAccount();
    const other = await app.createAccount();
    const id = await newMeeting(owner.key);

    expectFormAError(
      await postTranscript(other.key, id, { segments: SEGMENTS, generate_summary: false }),
      404,
      'not_found',
    );
    expect(await segmentsOf(id)).toEqual([]);

    expect(
      (await postTranscript(owner.key, id, { segments: SEGMENTS, generate_summary: false })).status,
    ).toBe(200);
    expectFormAError(await postSummary(other.key, id, { summary: SUMMARY }), 404, 'not_found');
    expect((await eventsOf(id)).map((r) => r.type)).toEqual(['meeting.started', 'meeting.transcribed']);

    const unknown = randomUUID();
    expectFormAError(await postTranscript(owner.key, unknown, { segments: SEGMENTS }), 404, 'not_found');
    expectFormAError(await postSummary(owner.key, unknown, { summary: SUMMARY }), 404, 'not_found');
  });

  it('a malformed meeting id in the path is a 400 invalid_request', async () => {
    const { key } = await app.createAccount();
    expectFormAError(await postTranscript(key, 'not-a-uuid', { segments: SEGMENTS }), 400, 'invalid_request');
    expectFormAError(await postSummary(key, 'not-a-uuid', { summary: SUMMARY }), 400, 'invalid_request');
  });

  it('the recorder works for an account without early access (only /v1 is gated)', async () => {
    const { key } = await app.createAccount({ earlyAccess: false });
    const id = await newMeeting(key, { title: 'No early access', platform: 'zoom' });
    expect((await postTranscript(key, id, { segments: SEGMENTS, generate_summary: false })).json).toEqual({
      id,
    });
    expect((await postSummary(key, id, { summary: SUMMARY })).json).toEqual({ id });
    expect((await eventsOf(id)).map((r) => r.type)).toEqual([
      'meeting.started',
      'meeting.transcribed',
      'summary.ready',
    ]);

    expectFormAError(await app.request(`/v1/notes/${id}`, { key }), 403, 'forbidden');
  });

  it('the recorder is not rate limited: a free-plan account makes 105 recorder calls, none with X-RateLimit headers, and /v1 is not charged for them', async () => {
    const { key } = await app.createAccount({ plan: 'free' });
    const responses: Res[] = [];
    for (let batch = 0; batch < 7; batch++) {
      responses.push(
        ...(await Promise.all(Array.from({ length: 15 }, () => createMeeting(key, { platform: 'zoom' })))),
      );
    }
    expect(responses).toHaveLength(105);
    expect(responses.map((r) => r.status)).toEqual(Array(105).fill(201));
    expect(new Set(responses.map((r) => r.json.id)).size).toBe(105);
    for (const r of responses) expectNoRateLimitHeaders(r);

    // The same for the other two recorder endpoints.
    const id = responses[0]!.json.id as string;
    const t = await postTranscript(key, id, { segments: SEGMENTS, generate_summary: false });
    expect(t.status).toBe(200);
    expectNoRateLimitHeaders(t);
    const s = await postSummary(key, id, { summary: SUMMARY });
    expect(s.status).toBe(200);
    expectNoRateLimitHeaders(s);

    // Only /v1 requests count toward the rate limit: the first /v1 request of the day still has
    // 99 left.
    const v1 = await app.request('/v1/notes', { key });
    expect(v1.status).toBe(200);
    expect({
      limit: v1.headers.get('x-ratelimit-limit'),
      remaining: v1.headers.get('x-ratelimit-remaining'),
    }).toEqual({
      limit: '100',
      remaining: '99',
    });
  });
});

describe('recorder validation', () => {
  const raw = (key: string, path: string, body: string, contentType: string | null) =>
    app.request(path, {
      method: 'POST',
      key,
      body,
      headers: contentType ? { 'content-type': contentType } : {},
    });

  it('invalid create-meeting requests get Form A errors (400 malformed, 422 unacceptable) and create nothing', async () => {
    const { account, key } = await app.createAccount();
    const cases: [string, () => Promise<Res>, number, string][] = [
      ['missing platform', () => createMeeting(key, { title: 'x' }), 400, 'invalid_request'],
      ['platform null', () => createMeeting(key, { platform: null }), 400, 'invalid_request'],
      ['platform of the wrong type', () => createMeeting(key, { platform: 7 }), 400, 'invalid_request'],
      ['platform outside the enum', () => createMeeting(key, { platform: 'skype' }), 422, 'validation_error'],
      [
        'started_at that does not parse',
        () => createMeeting(key, { platform: 'zoom', started_at: 'yesterday' }),
        400,
        'invalid_request',
      ],
      [
        'started_at of the wrong type',
        () => createMeeting(key, { platform: 'zoom', started_at: 1736067600 }),
        400,
        'invalid_request',
      ],
      [
        'title of the wrong type',
        () => createMeeting(key, { platform: 'zoom', title: 42 }),
        400,
        'invalid_request',
      ],
      [
        'non-JSON body',
        () => raw(key, '/api/recorder/meetings', '{"platform": "zoom"', 'application/json'),
        400,
        'invalid_request',
      ],
      [
        'JSON array body',
        () => raw(key, '/api/recorder/meetings', '[{"platform":"zoom"}]', 'application/json'),
        400,
        'invalid_request',
      ],
      [
        'JSON string body',
        () => raw(key, '/api/recorder/meetings', '"zoom"', 'application/json'),
        400,
        'invalid_request',
      ],
      [
        'JSON null body',
        () => raw(key, '/api/recorder/meetings', 'null', 'application/json'),
        400,
        'invalid_request',
      ],
      [
        'empty body',
        () => raw(key, '/api/recorder/meetings', '', 'application/json'),
        400,
        'invalid_request',
      ],
      [
        'missing Content-Type',
        () => raw(key, '/api/recorder/meetings', '{"platform":"zoom"}', null),
        400,
        'invalid_request',
      ],
      [
        'Content-Type text/plain',
        () => raw(key, '/api/recorder/meetings', '{"platform":"zoom"}', 'text/plain'),
        400,
        'invalid_request',
      ],
    ];
    const actual = [];
    for (const [name, call] of cases) {
      const res = await call();
      actual.push({
        case: name,
        status: res.status,
        body: res.json,
        contentType: res.headers.get('content-type'),
      });
    }
    expect(actual).toEqual(
      cases.map(([name, , status, code]) => ({
        case: name,
        status,
        body: { error: { code, message: expect.any(String) } },
        contentType: expect.stringMatching(/^application\/json\b/),
      })),
    );
    const started = await app.db.select().from(events).where(eq(events.accountId, account.id));
    expect(started).toEqual([]);
  });

  it('invalid transcript requests get Form A errors and leave no segments and no meeting.transcribed event', async () => {
    const { key } = await app.createAccount();
    const seg = { speaker: 'Ana', content: 'Hello', start_time: 0 };
    const tooMany = Array.from({ length: 10_001 }, (_, i) => ({
      speaker: 'Ana',
      content: `line ${i}`,
      start_time: i,
    }));
    const cases: [string, unknown, number, string][] = [
      ['segments missing', { generate_summary: false }, 400, 'invalid_request'],
      ['segments not an array', { segments: 'hello' }, 400, 'invalid_request'],
      ['segments empty', { segments: [] }, 422, 'validation_error'],
      ['10001 segments', { segments: tooMany }, 422, 'validation_error'],
      ['start_time "abc"', { segments: [seg, { ...seg, start_time: 'abc' }] }, 400, 'invalid_request'],
      ['start_time missing', { segments: [{ speaker: 'Ana', content: 'Hello' }] }, 400, 'invalid_request'],
      ['speaker of the wrong type', { segments: [{ ...seg, speaker: 3 }] }, 400, 'invalid_request'],
      ['end_time of the wrong type', { segments: [{ ...seg, end_time: 'later' }] }, 400, 'invalid_request'],
      ['ended_at that does not parse', { segments: [seg], ended_at: 'soon' }, 400, 'invalid_request'],
      [
        'duration_seconds of the wrong type',
        { segments: [seg], duration_seconds: 'long' },
        400,
        'invalid_request',
      ],
      // A value of the wrong type is a 400, not silently converted.
      [
        'generate_summary "false" (a string)',
        { segments: [seg], generate_summary: 'false' },
        400,
        'invalid_request',
      ],
      [
        'generate_summary "no" (a string)',
        { segments: [seg], generate_summary: 'no' },
        400,
        'invalid_request',
      ],
      ['start_time "5" (a string)', { segments: [{ ...seg, start_time: '5' }] }, 400, 'invalid_request'],
      [
        'duration_seconds "60" (a string)',
        { segments: [seg], duration_seconds: '60' },
        400,
        'invalid_request',
      ],
      ['duration_seconds negative', { segments: [seg], duration_seconds: -5 }, 422, 'validation_error'],
    ];
    const actual = [];
    for (const [name, body] of cases) {
      const id = await newMeeting(key);
      const res = await postTranscript(key, id, body);
      actual.push({
        case: name,
        status: res.status,
        body: res.json,
        contentType: res.headers.get('content-type'),
        segments: (await segmentsOf(id)).length,
        events: (await eventsOf(id)).map((r) => r.type),
        noteStatus: (await app.request(`/v1/notes/${id}`, { key })).status,
      });
    }
    expect(actual).toEqual(
      cases.map(([name, , status, code]) => ({
        case: name,
        status,
        body: { error: { code, message: expect.any(String) } },
        contentType: expect.stringMatching(/^application\/json\b/),
        segments: 0,
        events: ['meeting.started'],
        noteStatus: 404,
      })),
    );

    const id = await newMeeting(key);
    for (const [name, body, contentType] of [
      ['non-JSON body', '{"segments": [', 'application/json'],
      ['JSON array body', JSON.stringify([{ segments: [seg] }]), 'application/json'],
      ['missing Content-Type', JSON.stringify({ segments: [seg] }), null],
    ] as const) {
      const res = await raw(key, `/api/recorder/meetings/${id}/transcript`, body, contentType);
      expect({ case: name, status: res.status, body: res.json }).toEqual({
        case: name,
        status: 400,
        body: { error: { code: 'invalid_request', message: expect.any(String) } },
      });
    }
    expect(await segmentsOf(id)).toEqual([]);
    expect((await eventsOf(id)).map((r) => r.type)).toEqual(['meeting.started']);
  });

  it('invalid summary requests get Form A errors (wrong types are 400) and fire no summary.ready', async () => {
    const { key } = await app.createAccount();
    const id = await newMeeting(key);
    expect((await postTranscript(key, id, { segments: SEGMENTS, generate_summary: false })).status).toBe(200);
    const { decisions: _d, ...withoutDecisions } = SUMMARY;
    const cases: [string, unknown][] = [
      ['summary missing', { text: 'Only text' }],
      ['summary null', { summary: null }],
      ['summary a string', { summary: 'We shipped.' }],
      ['summary an array', { summary: [SUMMARY] }],
      ['decisions missing', { summary: withoutDecisions }],
      ['decisions a string', { summary: { ...SUMMARY, decisions: 'Ship on Friday' } }],
      ['decisions holding a number', { summary: { ...SUMMARY, decisions: [1] } }],
      [
        'action item task a number',
        { summary: { ...SUMMARY, action_items: [{ task: 5, owner: null, deadline: null }] } },
      ],
      ['participants null', { summary: { ...SUMMARY, participants: null } }],
      ['context a number', { summary: { ...SUMMARY, context: 12 } }],
      ['text a number', { summary: SUMMARY, text: 12 }],
    ];
    const actual = [];
    for (const [name, body] of cases) {
      const res = await postSummary(key, id, body);
      actual.push({
        case: name,
        status: res.status,
        body: res.json,
        contentType: res.headers.get('content-type'),
      });
    }
    expect(actual).toEqual(
      cases.map(([name]) => ({
        case: name,
        status: 400,
        body: { error: { code: 'invalid_request', message: expect.any(String) } },
        contentType: expect.stringMatching(/^application\/json\b/),
      })),
    );
    for (const [name, body, contentType] of [
      ['non-JSON body', '{"summary": {', 'application/json'],
      ['JSON array body', JSON.stringify([{ summary: SUMMARY }]), 'application/json'],
      ['missing Content-Type', JSON.stringify({ summary: SUMMARY }), null],
    ] as const) {
      const res = await raw(key, `/api/recorder/meetings/${id}/summary`, body, contentType);
      expect({ case: name, status: res.status, body: res.json }).toEqual({
        case: name,
        status: 400,
        body: { error: { code: 'invalid_request', message: expect.any(String) } },
      });
    }
    expect((await eventsOf(id)).map((r) => r.type)).toEqual(['meeting.started', 'meeting.transcribed']);
    const b = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
    expect(b.json.summary).toBeNull();
  });
});
