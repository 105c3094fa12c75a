import { and, count, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, meetings, transcriptSegments } from '../../server/db/schema';
import {
  expectApiHeaders,
  expectError,
  type Form,
  FORM_A_CODE,
  OUT_OF_RANGE_INSTANTS,
  PROTOTYPE_NAMES,
} from '../support/hostile-input';
import { startTestApp, type TestApp } from '../support/test-app';

// Hostile input to the recorder API, one table: each row is a request (creating a meeting, storing
// its transcript or its summary) and what it must get. The recorder answers Form A errors whatever
// the key's form, so every row runs twice: with a Form A key, and with a Form B key that asks for
// Form B. A refused request must store nothing (no meeting, event, segment or summary), and the
// meeting it was about must still take a valid transcript or summary afterwards. The recorder's
// ordinary bad input (missing fields, wrong types, bodies that are not JSON) is in recorder.test.ts.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

interface Caller {
  key: string;
  accountId: string;
  /** The X-API-Form header sent, which the recorder does not read. */
  header?: Form;
}

const SEGMENT = { speaker: 'Ana', content: 'Hello there.', start_time: 0, end_time: 1 };
const SUMMARY = {
  context: 'c',
  decisions: ['d'],
  action_items: [{ task: 't', owner: null, deadline: null }],
  participants: ['Ana'],
  next_step: null,
  budget_mentioned: null,
  sentiment: null,
};
const TRANSCRIPT = { segments: [SEGMENT], generate_summary: false };

const PATHS = {
  meetings: 'POST /api/recorder/meetings',
  transcript: 'POST /api/recorder/meetings/:id/transcript',
  summary: 'POST /api/recorder/meetings/:id/summary',
} as const;
type Endpoint = keyof typeof PATHS;

/** A refusal in Form A's shape (the code follows from the status), naming the input. */
interface Refused {
  error: 400 | 422;
  mentions?: string;
  /** What the meeting still takes afterwards (default: a plain transcript, or the valid summary). */
  afterwards?: unknown;
}
interface Accepted {
  ok: 200 | 201;
  /** Checks what was stored (read back through /v1, or straight from the database). */
  check?: (caller: Caller, meetingId: string) => Promise<void>;
}

interface Row {
  endpoint: Endpoint;
  /** What the recorder sends, in plain words. */
  input: string;
  /** For a transcript or a summary: the meeting's own started_at (default: now). */
  startedAt?: string;
  /** Query string sent with the request. */
  query?: string;
  body: unknown;
  expect: Refused | Accepted;
}

/** What the account has stored: a refused request must change none of it. */
async function stored(accountId: string) {
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
  const [summaries] = await app.db
    .select({ n: count() })
    .from(meetings)
    .where(and(eq(meetings.accountId, accountId), isNotNull(meetings.summary)));
  return { meetings: m!.n, events: e!.n, segments: s!.n, summaries: summaries!.n };
}

const post = (caller: Caller, path: string, json: unknown) =>
  app.request(path, { method: 'POST', key: caller.key, form: caller.header, json });

async function newMeeting(caller: Caller, startedAt?: string) {
  const res = await post(caller, '/api/recorder/meetings', {
    title: 'Sync',
    platform: 'zoom',
    ...(startedAt && { started_at: startedAt }),
  });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

/** The note as /v1 shows it, in the given form. */
const note = (caller: Caller, id: string, form: Form) =>
  app.request(`/v1/notes/${id}`, { key: caller.key, form });

/** Text PostgreSQL refuses: a NUL character (text), an unpaired UTF-16 surrogate (jsonb). */
const UNSTORABLE = [
  ['a NUL character', 'a\u0000b'],
  ['an unpaired surrogate', 'a\ud800b'],
] as const;

const MAX_SECONDS = 2 ** 31 - 1;
const DAY = 86_400;
const ENDED_1900 = { ended_at: '1900-01-01T01:00:00Z', segments: [SEGMENT], generate_summary: false };

const ROWS: Row[] = [
  // ---- names of Object.prototype's members are unknown parameters and fields, ignored
  ...PROTOTYPE_NAMES.map(
    (name): Row => ({
      endpoint: 'meetings',
      input: `a query parameter named ${name}, given twice (ignored)`,
      query: `${name}=1&${name}=2`,
      body: { title: 'Proto', platform: 'meet' },
      expect: {
        ok: 201,
        check: async (caller, id) => {
          const [row] = await app.db
            .select({ title: meetings.title, platform: meetings.platform, accountId: meetings.accountId })
            .from(meetings)
            .where(eq(meetings.id, id));
          expect(row).toEqual({ title: 'Proto', platform: 'meet', accountId: caller.accountId });
        },
      },
    }),
  ),
  {
    endpoint: 'meetings',
    input: 'body fields named __proto__ and constructor beside the real ones (ignored)',
    body: JSON.parse(
      '{"__proto__":{"platform":"zoom"},"constructor":{"x":1},"platform":"teams","title":"P"}',
    ),
    expect: {
      ok: 201,
      check: async (_caller, id) => {
        const [row] = await app.db
          .select({ title: meetings.title, platform: meetings.platform })
          .from(meetings)
          .where(eq(meetings.id, id));
        expect(row).toEqual({ title: 'P', platform: 'teams' });
      },
    },
  },
  {
    endpoint: 'meetings',
    input: 'the platform only inside a body field named __proto__ (so none given)',
    body: JSON.parse('{"__proto__":{"platform":"zoom"}}'),
    expect: { error: 400, mentions: 'platform' },
  },

  // ---- instants outside years 0100-9999
  ...OUT_OF_RANGE_INSTANTS.flatMap(([label, value]): Row[] => [
    {
      endpoint: 'meetings',
      input: `started_at in ${label}`,
      body: { platform: 'zoom', started_at: value },
      expect: { error: 422, mentions: 'started_at' },
    },
    {
      endpoint: 'transcript',
      input: `ended_at in ${label}`,
      body: { ended_at: value, segments: [SEGMENT] },
      expect: { error: 422, mentions: 'ended_at' },
    },
  ]),
  {
    endpoint: 'transcript',
    input: 'a meeting started at the first instant stored and ended an hour later (read back as given)',
    startedAt: '0100-01-01T00:00:00Z',
    body: { ended_at: '0100-01-01T01:00:00Z', segments: [SEGMENT], generate_summary: false },
    expect: {
      ok: 200,
      check: async (caller, id) => {
        const res = await note(caller, id, 'B');
        expect({
          started_at: res.json.started_at,
          ended_at: res.json.ended_at,
          duration: res.json.duration_seconds,
        }).toEqual({
          started_at: '0100-01-01T00:00:00.000Z',
          ended_at: '0100-01-01T01:00:00.000Z',
          duration: 3600,
        });
      },
    },
  },
  {
    endpoint: 'transcript',
    input: 'a meeting that ends at the last instant stored (read back as given)',
    startedAt: '9999-12-31T23:00:00Z',
    body: { ended_at: '9999-12-31T23:59:59.999Z', segments: [SEGMENT], generate_summary: false },
    expect: {
      ok: 200,
      check: async (caller, id) => {
        expect((await note(caller, id, 'A')).json.ended_at).toBe('9999-12-31T23:59:59.999Z');
      },
    },
  },

  // ---- NUL characters and unpaired surrogates, anywhere in a body
  ...UNSTORABLE.flatMap(([label, bad]): Row[] => [
    {
      endpoint: 'meetings',
      input: `${label} in title`,
      body: { title: bad, platform: 'zoom' },
      expect: { error: 400, mentions: 'title' },
    },
    {
      endpoint: 'meetings',
      input: `${label} in language`,
      body: { language: `en${bad}`, platform: 'zoom' },
      expect: { error: 400, mentions: 'language' },
    },
    {
      endpoint: 'meetings',
      input: `${label} in a field the recorder does not know`,
      body: { platform: 'zoom', notes: bad },
      expect: { error: 400, mentions: 'notes' },
    },
    {
      endpoint: 'meetings',
      input: `${label} in a field name`,
      body: { platform: 'zoom', [bad]: 1 },
      expect: { error: 400, mentions: 'A field name' },
    },
    {
      endpoint: 'transcript',
      input: `${label} in the second segment's speaker`,
      body: { segments: [SEGMENT, { ...SEGMENT, speaker: bad }] },
      expect: { error: 400, mentions: 'segments.1.speaker' },
    },
    {
      endpoint: 'transcript',
      input: `${label} in the third segment's content`,
      body: { segments: [SEGMENT, SEGMENT, { ...SEGMENT, content: bad }] },
      expect: { error: 400, mentions: 'segments.2.content' },
    },
    {
      endpoint: 'summary',
      input: `${label} in the summary's context`,
      body: { summary: { ...SUMMARY, context: bad } },
      expect: { error: 400, mentions: 'summary.context' },
    },
    {
      endpoint: 'summary',
      input: `${label} in the summary's second decision`,
      body: { summary: { ...SUMMARY, decisions: ['ok', bad] } },
      expect: { error: 400, mentions: 'summary.decisions.1' },
    },
    {
      endpoint: 'summary',
      input: `${label} in the summary's first action item's task`,
      body: { summary: { ...SUMMARY, action_items: [{ task: bad, owner: null, deadline: null }] } },
      expect: { error: 400, mentions: 'summary.action_items.0.task' },
    },
    {
      endpoint: 'summary',
      input: `${label} in the summary text`,
      body: { summary: SUMMARY, text: bad },
      expect: { error: 400, mentions: 'text' },
    },
  ]),

  // ---- durations beyond 2^31 - 1 seconds, and meetings that would end after year 9999
  {
    endpoint: 'transcript',
    input: 'no ended_at for a meeting started in 1900 (its duration to now is too long)',
    startedAt: '1900-01-01T00:00:00Z',
    body: { segments: [SEGMENT] },
    // The recorder can still store it by saying when it ended.
    expect: { error: 422, mentions: 'seconds', afterwards: ENDED_1900 },
  },
  {
    endpoint: 'transcript',
    input: 'ended_at now for a meeting started in 1900',
    startedAt: '1900-01-01T00:00:00Z',
    body: { ended_at: new Date().toISOString(), segments: [SEGMENT] },
    expect: { error: 422, mentions: 'seconds', afterwards: ENDED_1900 },
  },
  ...[3_000_000_000, 2 ** 31, Number.MAX_SAFE_INTEGER, 1e300].map(
    (duration): Row => ({
      endpoint: 'transcript',
      input: `duration_seconds ${duration}`,
      body: { duration_seconds: duration, segments: [SEGMENT] },
      expect: { error: 422, mentions: 'duration_seconds' },
    }),
  ),
  {
    endpoint: 'transcript',
    input: `duration_seconds ${MAX_SECONDS}, the longest meeting (read back as given)`,
    body: { duration_seconds: MAX_SECONDS, segments: [SEGMENT], generate_summary: false },
    expect: {
      ok: 200,
      check: async (caller, id) => {
        expect((await note(caller, id, 'A')).json.duration_seconds).toBe(MAX_SECONDS);
      },
    },
  },
  {
    endpoint: 'transcript',
    input: 'a duration that would end a meeting started 9999-12-01 after year 9999',
    startedAt: '9999-12-01T00:00:00Z',
    body: { duration_seconds: 60 * DAY, segments: [SEGMENT] },
    expect: { error: 422, mentions: '9999' },
  },
  {
    endpoint: 'transcript',
    input: 'a segment that would end a meeting started 9999-12-01 after year 9999',
    startedAt: '9999-12-01T00:00:00Z',
    body: { segments: [{ ...SEGMENT, start_time: 0, end_time: 90 * DAY }] },
    expect: { error: 422, mentions: '9999' },
  },

  // ---- absurd segment times
  ...(
    [
      ['start_time', 1e15],
      ['start_time', 2 ** 31],
      ['end_time', 1e15],
      ['end_time', Number.MAX_VALUE],
    ] as const
  ).map(
    ([field, value]): Row => ({
      endpoint: 'transcript',
      input: `the second segment's ${field} ${value}`,
      body: {
        segments: [
          SEGMENT,
          field === 'start_time'
            ? { ...SEGMENT, start_time: value, end_time: null }
            : { ...SEGMENT, [field]: value },
        ],
      },
      expect: { error: 422, mentions: `segments.1.${field}` },
    }),
  ),
  {
    endpoint: 'transcript',
    input: `a segment ending at ${MAX_SECONDS} seconds, the longest meeting`,
    body: {
      segments: [SEGMENT, { ...SEGMENT, start_time: MAX_SECONDS - 1, end_time: MAX_SECONDS }],
      generate_summary: false,
    },
    expect: { ok: 200 },
  },
];

function title(row: Row) {
  const outcome = row.expect;
  if ('ok' in outcome) return `${PATHS[row.endpoint]} with ${row.input}: accepted (${outcome.ok})`;
  const named = outcome.mentions ? ` naming ${outcome.mentions}` : '';
  return `${PATHS[row.endpoint]} with ${row.input}: refused with ${outcome.error} ${FORM_A_CODE[outcome.error]}${named}, nothing stored`;
}

const CALLERS: { name: string; form: Form; header?: Form }[] = [
  { name: 'a Form A key', form: 'A' },
  { name: 'a Form B key asking for Form B (still answered in Form A)', form: 'B', header: 'B' },
];

describe.each(CALLERS.map((c) => [c.name, c] as const))(
  'hostile input to the recorder, with %s',
  (_name, { form, header }) => {
    let caller: Caller;
    beforeAll(async () => {
      const { key, account } = await app.createAccount({ form });
      caller = { key, accountId: account.id, ...(header && { header }) };
    });

    for (const row of ROWS)
      it(title(row), async () => {
        // The meeting the request is about, made (and transcribed, for a summary) beforehand.
        let meetingId = '';
        if (row.endpoint !== 'meetings') meetingId = await newMeeting(caller, row.startedAt);
        if (row.endpoint === 'summary') {
          const transcribed = await post(
            caller,
            `/api/recorder/meetings/${meetingId}/transcript`,
            TRANSCRIPT,
          );
          expect(transcribed.status, transcribed.text).toBe(200);
        }
        const path =
          (row.endpoint === 'meetings'
            ? '/api/recorder/meetings'
            : `/api/recorder/meetings/${meetingId}/${row.endpoint}`) + (row.query ? `?${row.query}` : '');

        const before = await stored(caller.accountId);
        const res = await post(caller, path, row.body);

        const outcome = row.expect;
        if ('ok' in outcome) {
          expectApiHeaders(res);
          expect(res.status, res.text).toBe(outcome.ok);
          expect(res.json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
          await outcome.check?.(caller, res.json.id);
          return;
        }
        expectError(res, 'A', outcome.error, outcome.mentions);
        expect(await stored(caller.accountId)).toEqual(before);
        // The refusal left the meeting as it was: it still takes a valid transcript or summary.
        if (row.endpoint === 'meetings') return;
        const afterwards =
          outcome.afterwards ?? (row.endpoint === 'summary' ? { summary: SUMMARY } : TRANSCRIPT);
        const valid = await post(caller, path, afterwards);
        expect(valid.status, valid.text).toBe(200);
      });
  },
);
