import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app';

// Field sets and values of a note in both forms, in a list and alone, and which meetings are notes
// (docs/rules.md#fields-in-each-form).

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const timestamp = () => expect.stringMatching(TS);

const SUMMARY = {
  context: 'Quarterly planning for the mobile app.',
  decisions: ['Ship version two in March', 'Hire a second designer'],
  action_items: [
    { task: 'Draft the roadmap', owner: 'Ana', deadline: '2026-02-01' },
    { task: 'Book the offsite venue', owner: null, deadline: null },
  ],
  participants: ['Ana', 'Ben'],
  next_step: 'Review the roadmap on Monday',
  budget_mentioned: '$20k',
  sentiment: 'positive',
};

function expectJson(res: { headers: Headers }) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
}

async function getA(key: string, id: string) {
  const res = await app.request(`/v1/notes/${id}`, { key, form: 'A' });
  expect(res.status, res.text).toBe(200);
  expectJson(res);
  return res.json;
}

async function getB(key: string, id: string) {
  const res = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
  expect(res.status, res.text).toBe(200);
  expectJson(res);
  return res.json;
}

async function listA(key: string, query = '') {
  const res = await app.request(`/v1/notes${query}`, { key, form: 'A' });
  expect(res.status, res.text).toBe(200);
  expectJson(res);
  return res.json;
}

async function listB(key: string, query = '') {
  const res = await app.request(`/v1/notes${query}`, { key, form: 'B' });
  expect(res.status, res.text).toBe(200);
  expectJson(res);
  return res.json;
}

describe('Form A note fields', () => {
  it('a Form A list entry has exactly id, title, platform, duration_seconds, created_at, ended_at, transcript', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, {
      title: 'Planning',
      platform: 'meet',
      language: 'de',
      started_at: '2026-01-05T10:00:00.000Z',
      ended_at: '2026-01-05T10:45:30.000Z',
      summary: SUMMARY,
      summaryText: 'Recorder text',
    });
    const list = await listA(key);
    expect(list).toEqual({
      data: [
        {
          id,
          title: 'Planning',
          platform: 'meet',
          duration_seconds: 2730,
          created_at: timestamp(),
          ended_at: '2026-01-05T10:45:30.000Z',
          transcript: [
            { sequence: 1, speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0 },
            {
              sequence: 2,
              speaker: 'Ben',
              content: 'Yes, the release is on track for Friday.',
              start_time: 2.5,
            },
          ],
        },
      ],
      next_cursor: null,
      has_more: false,
    });
    expect(Object.keys(list.data[0]).sort()).toEqual(
      ['created_at', 'duration_seconds', 'ended_at', 'id', 'platform', 'title', 'transcript'].sort(),
    );
    expect(list.data[0].id).toMatch(UUID_V4);
  });

  it('a Form A single note before any summary has language "en" by default, summary null and action_items []', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, {
      title: 'Standup',
      platform: 'zoom',
      started_at: '2026-01-06T09:00:00.000Z',
      ended_at: '2026-01-06T09:15:00.000Z',
    });
    expect(await getA(key, id)).toEqual({
      id,
      title: 'Standup',
      platform: 'zoom',
      duration_seconds: 900,
      created_at: timestamp(),
      ended_at: '2026-01-06T09:15:00.000Z',
      language: 'en',
      transcript: [
        { sequence: 1, speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0 },
        { sequence: 2, speaker: 'Ben', content: 'Yes, the release is on track for Friday.', start_time: 2.5 },
      ],
      summary: null,
      action_items: [],
    });
  });

  it('a Form A single note carries the recorder summary text, the language given and {text, assignee} action items', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, {
      title: 'Planung',
      platform: 'teams',
      language: 'de',
      started_at: '2026-01-07T14:00:00.000Z',
      ended_at: '2026-01-07T14:30:00.000Z',
      summary: SUMMARY,
      summaryText: 'We agreed to ship in March.\nAna drafts the roadmap.',
    });
    expect(await getA(key, id)).toEqual({
      id,
      title: 'Planung',
      platform: 'teams',
      duration_seconds: 1800,
      created_at: timestamp(),
      ended_at: '2026-01-07T14:30:00.000Z',
      language: 'de',
      transcript: [
        { sequence: 1, speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0 },
        { sequence: 2, speaker: 'Ben', content: 'Yes, the release is on track for Friday.', start_time: 2.5 },
      ],
      summary: 'We agreed to ship in March.\nAna drafts the roadmap.',
      action_items: [
        { text: 'Draft the roadmap', assignee: 'Ana' },
        { text: 'Book the offsite venue', assignee: null },
      ],
    });
  });

  it('without recorder text the Form A summary is a plain-text rendering of context, decisions and next step', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, { summary: SUMMARY });
    const note = await getA(key, id);
    expect(note).toEqual({
      id,
      title: 'Weekly sync',
      platform: 'zoom',
      duration_seconds: expect.any(Number),
      created_at: timestamp(),
      ended_at: timestamp(),
      language: 'en',
      transcript: [
        { sequence: 1, speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0 },
        { sequence: 2, speaker: 'Ben', content: 'Yes, the release is on track for Friday.', start_time: 2.5 },
      ],
      summary: expect.any(String),
      action_items: [
        { text: 'Draft the roadmap', assignee: 'Ana' },
        { text: 'Book the offsite venue', assignee: null },
      ],
    });
    for (const part of [SUMMARY.context, ...SUMMARY.decisions, SUMMARY.next_step]) {
      expect(note.summary).toContain(part);
    }
    // Plain text, not the JSON of the Summary object.
    expect(note.summary).not.toContain('{');
    expect(note.summary).not.toContain('"context"');
  });

  it('a note without a title has title "" in Form A, list and single', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, { title: null });
    const list = await listA(key);
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id, title: '' });
    expect(await getA(key, id)).toMatchObject({ id, title: '' });
  });

  it('Form A shows platform microphone as microphone', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, { platform: 'microphone' });
    expect((await listA(key)).data[0]).toMatchObject({ id, platform: 'microphone' });
    expect(await getA(key, id)).toMatchObject({ id, platform: 'microphone' });
  });

  it('Form A segments have exactly sequence, speaker, content, start_time, with or without an end_time recorded', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, {
      segments: [
        { speaker: 'Ana', content: 'With an end.', start_time: 1.25, end_time: 3.75 },
        { speaker: 'Ben', content: 'Without an end.', start_time: 4 },
        { speaker: 'Cem', content: 'Explicit null end.', start_time: 5.5, end_time: null },
      ],
    });
    const expected = [
      { sequence: 1, speaker: 'Ana', content: 'With an end.', start_time: 1.25 },
      { sequence: 2, speaker: 'Ben', content: 'Without an end.', start_time: 4 },
      { sequence: 3, speaker: 'Cem', content: 'Explicit null end.', start_time: 5.5 },
    ];
    const single = await getA(key, id);
    const list = await listA(key);
    expect(single.transcript).toEqual(expected);
    expect(list.data[0].transcript).toEqual(expected);
    for (const segment of [...single.transcript, ...list.data[0].transcript]) {
      expect(Object.keys(segment).sort()).toEqual(['content', 'sequence', 'speaker', 'start_time']);
    }
  });

  it('a Form A list entry equals the single note without language, summary and action_items', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, { language: 'fr', summary: SUMMARY });
    const single = await getA(key, id);
    const [entry] = (await listA(key)).data;
    const { language, summary, action_items, ...rest } = single;
    expect(language).toBe('fr');
    expect(summary).toEqual(expect.any(String));
    expect(action_items).toHaveLength(2);
    expect(entry).toEqual(rest);
  });
});

describe('Form B note fields', () => {
  it('a Form B note has exactly id, title, platform, duration_seconds, started_at, ended_at, status "ready", transcript, summary null before a summary', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const id = await app.recordNote(key, {
      title: 'Sales call',
      platform: 'meet',
      started_at: '2026-01-08T08:00:00.000Z',
      ended_at: '2026-01-08T08:20:00.000Z',
    });
    const expected = {
      id,
      title: 'Sales call',
      platform: 'meet',
      duration_seconds: 1200,
      started_at: '2026-01-08T08:00:00.000Z',
      ended_at: '2026-01-08T08:20:00.000Z',
      status: 'ready',
      transcript: [
        {
          sequence: 1,
          speaker: 'Ana',
          content: 'Good morning, shall we start?',
          start_time: 0,
          end_time: 2.5,
        },
        {
          sequence: 2,
          speaker: 'Ben',
          content: 'Yes, the release is on track for Friday.',
          start_time: 2.5,
          end_time: 6,
        },
      ],
      summary: null,
    };
    const single = await getB(key, id);
    expect(single).toEqual(expected);
    expect(Object.keys(single).sort()).toEqual(
      [
        'duration_seconds',
        'ended_at',
        'id',
        'platform',
        'started_at',
        'status',
        'summary',
        'title',
        'transcript',
      ].sort(),
    );
    expect(await listB(key)).toEqual({ data: [expected], next_cursor: null, has_more: false });
  });

  it('once a summary exists, Form B summary is the full Summary object, in list and single', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const id = await app.recordNote(key, {
      title: 'Budget review',
      platform: 'teams',
      language: 'de',
      started_at: '2026-01-09T16:00:00.000Z',
      ended_at: '2026-01-09T17:00:00.000Z',
      summary: SUMMARY,
      summaryText: 'Recorder text that Form B does not show',
    });
    const expected = {
      id,
      title: 'Budget review',
      platform: 'teams',
      duration_seconds: 3600,
      started_at: '2026-01-09T16:00:00.000Z',
      ended_at: '2026-01-09T17:00:00.000Z',
      status: 'ready',
      transcript: [
        {
          sequence: 1,
          speaker: 'Ana',
          content: 'Good morning, shall we start?',
          start_time: 0,
          end_time: 2.5,
        },
        {
          sequence: 2,
          speaker: 'Ben',
          content: 'Yes, the release is on track for Friday.',
          start_time: 2.5,
          end_time: 6,
        },
      ],
      summary: SUMMARY,
    };
    expect(await getB(key, id)).toEqual(expected);
    expect(await listB(key)).toEqual({ data: [expected], next_cursor: null, has_more: false });
  });

  it('a note without a title has title null in Form B (and "" in Form A)', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const id = await app.recordNote(key, { title: null });
    expect(await getB(key, id)).toMatchObject({ id, title: null });
    expect((await listB(key)).data[0]).toMatchObject({ id, title: null });
    expect(await getA(key, id)).toMatchObject({ id, title: '' });
  });

  it('Form B shows a microphone note as phone, in list and single', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const id = await app.recordNote(key, { platform: 'microphone' });
    expect(await getB(key, id)).toMatchObject({ id, platform: 'phone' });
    expect((await listB(key)).data[0]).toMatchObject({ id, platform: 'phone' });
  });

  it('Form B segments carry end_time as a number, or null when the recorder gave none', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const id = await app.recordNote(key, {
      segments: [
        { speaker: 'Ana', content: 'With an end.', start_time: 1.25, end_time: 3.75 },
        { speaker: 'Ben', content: 'Without an end.', start_time: 4 },
        { speaker: 'Cem', content: 'Explicit null end.', start_time: 5.5, end_time: null },
      ],
    });
    const expected = [
      { sequence: 1, speaker: 'Ana', content: 'With an end.', start_time: 1.25, end_time: 3.75 },
      { sequence: 2, speaker: 'Ben', content: 'Without an end.', start_time: 4, end_time: null },
      { sequence: 3, speaker: 'Cem', content: 'Explicit null end.', start_time: 5.5, end_time: null },
    ];
    expect((await getB(key, id)).transcript).toEqual(expected);
    expect((await listB(key)).data[0].transcript).toEqual(expected);
  });

  it('Form B list and single-note responses use the same Note shape', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const withSummary = await app.recordNote(key, { title: null, platform: 'microphone', summary: SUMMARY });
    const without = await app.recordNote(key, { title: 'Plain', platform: 'zoom' });
    const list = await listB(key);
    expect(list.data.map((n: { id: string }) => n.id)).toEqual([without, withSummary]);
    expect(list.data[0]).toEqual(await getB(key, without));
    expect(list.data[1]).toEqual(await getB(key, withSummary));
  });

  it('a Form A key with X-API-Form: B gets the Form B shape of the same note', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, {
      title: null,
      platform: 'microphone',
      started_at: '2026-01-10T07:00:00.000Z',
      ended_at: '2026-01-10T07:01:00.000Z',
      segments: [{ speaker: 'Ana', content: 'Voice memo.', start_time: 0 }],
    });
    expect(await getB(key, id)).toEqual({
      id,
      title: null,
      platform: 'phone',
      duration_seconds: 60,
      started_at: '2026-01-10T07:00:00.000Z',
      ended_at: '2026-01-10T07:01:00.000Z',
      status: 'ready',
      transcript: [{ sequence: 1, speaker: 'Ana', content: 'Voice memo.', start_time: 0, end_time: null }],
      summary: null,
    });
    expect(await getA(key, id)).toEqual({
      id,
      title: '',
      platform: 'microphone',
      duration_seconds: 60,
      created_at: timestamp(),
      ended_at: '2026-01-10T07:01:00.000Z',
      language: 'en',
      transcript: [{ sequence: 1, speaker: 'Ana', content: 'Voice memo.', start_time: 0 }],
      summary: null,
      action_items: [],
    });
  });
});

describe('Segments, time and duration', () => {
  it('sequence runs 1..n in recorder order (not sorted by start_time or speaker), in both forms', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    // 12 segments, deliberately not in start_time or speaker order; more than 9 so a text sort would show.
    const starts = [5, 0, 0, 12.5, 3, 30, 2, 2, 40, 7, 1, 60];
    const segments = starts.map((start_time, i) => ({
      speaker: `Speaker ${String.fromCharCode(90 - i)}`,
      content: `Segment number ${i + 1}`,
      start_time,
      ...(i % 2 === 0 && { end_time: start_time + 0.5 }),
    }));
    const id = await app.recordNote(key, { segments });
    const expectedA = segments.map((s, i) => ({
      sequence: i + 1,
      speaker: s.speaker,
      content: s.content,
      start_time: s.start_time,
    }));
    const expectedB = segments.map((s, i) => ({
      sequence: i + 1,
      speaker: s.speaker,
      content: s.content,
      start_time: s.start_time,
      end_time: s.end_time ?? null,
    }));
    expect((await getA(key, id)).transcript).toEqual(expectedA);
    expect((await listA(key)).data[0].transcript).toEqual(expectedA);
    expect((await getB(key, id)).transcript).toEqual(expectedB);
    expect((await listB(key)).data[0].transcript).toEqual(expectedB);
  });

  it('every timestamp is written as YYYY-MM-DDTHH:mm:ss.sssZ, also for defaults and offset inputs', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const defaulted = await app.recordNote(key, {});
    const offset = await app.recordNote(key, {
      started_at: '2026-01-05T11:00:00+01:00',
      ended_at: '2026-01-05T12:30:15.5+01:00',
    });
    for (const id of [defaulted, offset]) {
      const a = await getA(key, id);
      expect(a.created_at).toMatch(TS);
      expect(a.ended_at).toMatch(TS);
      const b = await getB(key, id);
      expect(b.started_at).toMatch(TS);
      expect(b.ended_at).toMatch(TS);
    }
    for (const entry of (await listA(key)).data) {
      expect(entry.created_at).toMatch(TS);
      expect(entry.ended_at).toMatch(TS);
    }
    for (const entry of (await listB(key)).data) {
      expect(entry.started_at).toMatch(TS);
      expect(entry.ended_at).toMatch(TS);
    }
    const b = await getB(key, offset);
    expect(b.started_at).toBe('2026-01-05T10:00:00.000Z');
    expect(b.ended_at).toBe('2026-01-05T11:30:15.500Z');
  });

  it('created_at is set by the server when the meeting is recorded, not taken from started_at', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const before = Date.now();
    const id = await app.recordNote(key, {
      started_at: '2020-03-01T10:00:00.000Z',
      ended_at: '2020-03-01T11:00:00.000Z',
    });
    const after = Date.now();
    const a = await getA(key, id);
    const created = Date.parse(a.created_at);
    // Server clock vs test clock: the same machine; allow a little slack either way.
    expect(created).toBeGreaterThanOrEqual(before - 5_000);
    expect(created).toBeLessThanOrEqual(after + 5_000);
    expect((await getB(key, id)).started_at).toBe('2020-03-01T10:00:00.000Z');
  });

  it.each([
    {
      name: 'ended_at - started_at when no duration is given',
      input: { started_at: '2026-02-01T10:00:00.000Z', ended_at: '2026-02-01T10:45:30.000Z' },
      duration: 2730,
    },
    {
      name: 'the recorder value when given',
      input: { started_at: '2026-02-01T10:00:00.000Z', duration_seconds: 1234 },
      duration: 1234,
    },
    {
      name: 'the recorder value when given, even beside an ended_at',
      input: {
        started_at: '2026-02-01T10:00:00.000Z',
        ended_at: '2026-02-01T10:30:00.000Z',
        duration_seconds: 1500,
      },
      duration: 1500,
    },
    {
      name: 'zero when given as zero',
      input: {
        started_at: '2026-02-01T10:00:00.000Z',
        ended_at: '2026-02-01T10:00:00.000Z',
        duration_seconds: 0,
      },
      duration: 0,
    },
  ])('duration_seconds is $name', async ({ input, duration }) => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, input);
    const a = await getA(key, id);
    const b = await getB(key, id);
    expect(a.duration_seconds).toBe(duration);
    expect(b.duration_seconds).toBe(duration);
    expect((await listA(key)).data[0].duration_seconds).toBe(duration);
    expect((await listB(key)).data[0].duration_seconds).toBe(duration);
    expect(b.started_at).toBe(input.started_at);
    if (input.ended_at) {
      expect(a.ended_at).toBe(input.ended_at);
      expect(b.ended_at).toBe(input.ended_at);
    }
  });

  it('a duration derived from sub-second times is still an integer close to ended_at - started_at', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const id = await app.recordNote(key, {
      started_at: '2026-02-02T10:00:00.000Z',
      ended_at: '2026-02-02T10:00:10.600Z',
    });
    const b = await getB(key, id);
    expect(Number.isInteger(b.duration_seconds)).toBe(true);
    expect(Math.abs(b.duration_seconds - 10.6)).toBeLessThan(1);
  });

  it('with neither ended_at nor duration, duration_seconds is the integer ended_at - started_at of what is shown', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const id = await app.recordNote(key, {});
    const b = await getB(key, id);
    expect(Number.isInteger(b.duration_seconds)).toBe(true);
    const span = (Date.parse(b.ended_at) - Date.parse(b.started_at)) / 1000;
    expect(span).toBeGreaterThanOrEqual(0);
    expect(Math.abs(b.duration_seconds - span)).toBeLessThan(1);
  });
});

describe('Visibility of notes', () => {
  it('a meeting without a stored transcript is not a note: 404 in both forms and absent from lists', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const pending = await app.recordNote(key, { transcribe: false });
    const visible = await app.recordNote(key, {});

    const a = await app.request(`/v1/notes/${pending}`, { key, form: 'A' });
    expect(a.status).toBe(404);
    expectJson(a);
    expect(a.json).toEqual({ error: { code: 'not_found', message: expect.any(String) } });

    const b = await app.request(`/v1/notes/${pending}`, { key, form: 'B' });
    expect(b.status).toBe(404);
    expectJson(b);
    expect(b.json).toEqual({ error: expect.any(String) });

    expect((await listA(key)).data.map((n: { id: string }) => n.id)).toEqual([visible]);
    expect((await listB(key)).data.map((n: { id: string }) => n.id)).toEqual([visible]);
  });

  it('a meeting becomes a note once its transcript is stored', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const id = await app.recordNote(key, { transcribe: false });
    expect((await app.request(`/v1/notes/${id}`, { key, form: 'B' })).status).toBe(404);
    const stored = await app.request(`/api/recorder/meetings/${id}/transcript`, {
      method: 'POST',
      key,
      json: {
        segments: [{ speaker: 'Ana', content: 'Now it exists.', start_time: 0 }],
        generate_summary: false,
      },
    });
    expect(stored.status, stored.text).toBe(200);
    expect(await getB(key, id)).toMatchObject({ id, status: 'ready', summary: null });
  });

  it.each(['A', 'B'] as const)(
    "Form %s reports another account's note and an unknown id as 404",
    async (form) => {
      const owner = await app.createAccount({ form });
      const other = await app.createAccount({ form });
      const id = await app.recordNote(owner.key, {});
      for (const path of [`/v1/notes/${id}`, '/v1/notes/6f1c1a52-3b7e-4c1d-9a0b-2f4e5d6c7b8a']) {
        const res = await app.request(path, { key: other.key });
        expect(res.status, path).toBe(404);
        expectJson(res);
        expect(res.json).toEqual(
          form === 'A'
            ? { error: { code: 'not_found', message: expect.any(String) } }
            : { error: expect.any(String) },
        );
      }
      // The owner still sees it.
      expect((await app.request(`/v1/notes/${id}`, { key: owner.key })).status).toBe(200);
    },
  );
});
