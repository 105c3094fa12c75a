import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, meetings, transcriptSegments } from '../../server/db/schema';
import { startTestApp, type TestApp } from '../support/test-app';

// DELETE /v1/notes/:id (Form A only): what it removes, what it answers, and what a second delete
// answers (docs/rules.md#getting-and-deleting-a-note).

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const SUMMARY = {
  context: 'Hiring plan.',
  decisions: ['Open two roles'],
  action_items: [{ task: 'Write the job ads', owner: 'Ana', deadline: null }],
  participants: ['Ana', 'Ben'],
  next_step: 'Publish the ads',
  budget_mentioned: null,
  sentiment: 'neutral',
};

const NOT_FOUND_A = { error: { code: 'not_found', message: expect.any(String) } };
const ERROR_B = { error: expect.any(String) };

function expectJson(res: { headers: Headers }) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
}

/** Rows that belong to a meeting, read straight from the database. */
async function rowsOf(meetingId: string) {
  const [meeting, segments, meetingEvents] = await Promise.all([
    app.db.select({ id: meetings.id }).from(meetings).where(eq(meetings.id, meetingId)),
    app.db.select().from(transcriptSegments).where(eq(transcriptSegments.meetingId, meetingId)),
    app.db.select().from(events).where(eq(events.meetingId, meetingId)),
  ]);
  return { meetings: meeting.length, segments: segments.length, events: meetingEvents.length };
}

describe('Form A delete', () => {
  it('DELETE answers 204 with an empty body; then GET and a second DELETE answer 404 not_found', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, { summary: SUMMARY });
    expect((await app.request(`/v1/notes/${id}`, { key })).status).toBe(200);

    const del = await app.request(`/v1/notes/${id}`, { method: 'DELETE', key });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect(del.headers.get('x-request-id')).toEqual(expect.any(String));

    const get = await app.request(`/v1/notes/${id}`, { key });
    expect(get.status).toBe(404);
    expectJson(get);
    expect(get.json).toEqual(NOT_FOUND_A);

    const again = await app.request(`/v1/notes/${id}`, { method: 'DELETE', key });
    expect(again.status).toBe(404);
    expectJson(again);
    expect(again.json).toEqual(NOT_FOUND_A);
  });

  it('a deleted note is gone from the lists of both forms', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const keep = await app.recordNote(key, { title: 'Keep' });
    const drop = await app.recordNote(key, { title: 'Drop' });
    expect((await app.request(`/v1/notes/${drop}`, { method: 'DELETE', key })).status).toBe(204);
    for (const form of ['A', 'B']) {
      const res = await app.request('/v1/notes', { key, form });
      expect(res.status).toBe(200);
      expect(res.json.data.map((n: { id: string }) => n.id)).toEqual([keep]);
      expect(res.json).toMatchObject({ next_cursor: null, has_more: false });
    }
  });

  it('the transcript segments, events and meeting row of a deleted note are gone from the database', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(key, {
      summary: SUMMARY,
      segments: [
        { speaker: 'Ana', content: 'One.', start_time: 0, end_time: 1 },
        { speaker: 'Ben', content: 'Two.', start_time: 1 },
        { speaker: 'Ana', content: 'Three.', start_time: 2, end_time: 3 },
      ],
    });
    // meeting.started, meeting.transcribed and summary.ready were recorded for it.
    expect(await rowsOf(id)).toEqual({ meetings: 1, segments: 3, events: 3 });

    const del = await app.request(`/v1/notes/${id}`, { method: 'DELETE', key });
    expect(del.status).toBe(204);
    expect(await rowsOf(id)).toEqual({ meetings: 0, segments: 0, events: 0 });
  });

  it("deleting one note leaves the account's other notes and other accounts' notes untouched", async () => {
    const owner = await app.createAccount({ form: 'A' });
    const other = await app.createAccount({ form: 'A' });
    const before = await app.recordNote(owner.key, { title: 'Before', summary: SUMMARY });
    const target = await app.recordNote(owner.key, { title: 'Target' });
    const after = await app.recordNote(owner.key, { title: 'After', platform: 'microphone' });
    const foreign = await app.recordNote(other.key, { title: 'Foreign' });

    const snapshot = async () => ({
      before: (await app.request(`/v1/notes/${before}`, { key: owner.key })).json,
      after: (await app.request(`/v1/notes/${after}`, { key: owner.key })).json,
      foreign: (await app.request(`/v1/notes/${foreign}`, { key: other.key })).json,
      rows: [await rowsOf(before), await rowsOf(after), await rowsOf(foreign)],
    });
    const was = await snapshot();
    expect(was.rows.every((r) => r.meetings === 1 && r.segments === 2 && r.events >= 2)).toBe(true);

    expect((await app.request(`/v1/notes/${target}`, { method: 'DELETE', key: owner.key })).status).toBe(204);
    expect(await snapshot()).toEqual(was);
    const list = await app.request('/v1/notes', { key: owner.key });
    expect(list.json.data.map((n: { id: string }) => n.id)).toEqual([after, before]);
  });

  it.each([
    { name: 'an unknown id', setup: 'unknown' },
    { name: "another account's note", setup: 'foreign' },
    { name: 'a meeting whose transcript is not stored yet', setup: 'pending' },
  ] as const)('deleting $name answers 404 not_found and removes nothing', async ({ setup }) => {
    const caller = await app.createAccount({ form: 'A' });
    const other = await app.createAccount({ form: 'A' });
    let id = '0b6a3f7e-2c1d-4e5f-8a9b-7c6d5e4f3a2b';
    if (setup === 'foreign') id = await app.recordNote(other.key, {});
    if (setup === 'pending') id = await app.recordNote(caller.key, { transcribe: false });
    const was = await rowsOf(id);

    const res = await app.request(`/v1/notes/${id}`, { method: 'DELETE', key: caller.key });
    expect(res.status).toBe(404);
    expectJson(res);
    expect(res.json).toEqual(NOT_FOUND_A);
    expect(await rowsOf(id)).toEqual(was);
    if (setup === 'foreign')
      expect((await app.request(`/v1/notes/${id}`, { key: other.key })).status).toBe(200);
    if (setup === 'pending') {
      expect(was).toEqual({ meetings: 1, segments: 0, events: 1 });
      // It can still become a note afterwards.
      const stored = await app.request(`/api/recorder/meetings/${id}/transcript`, {
        method: 'POST',
        key: caller.key,
        json: { segments: [{ speaker: 'Ana', content: 'Later.', start_time: 0 }], generate_summary: false },
      });
      expect(stored.status, stored.text).toBe(200);
      expect((await app.request(`/v1/notes/${id}`, { key: caller.key })).status).toBe(200);
    }
  });

  it('DELETE with a malformed id answers 400 invalid_request in Form A', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const res = await app.request('/v1/notes/not-a-uuid', { method: 'DELETE', key });
    expect(res.status).toBe(400);
    expectJson(res);
    expect(res.json).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
  });
});

describe('Form B has no delete', () => {
  it.each([
    { name: 'a Form B key', keyForm: 'B', header: undefined },
    { name: 'a Form A key with X-API-Form: B', keyForm: 'A', header: 'B' },
    { name: 'a Form A key with X-API-Form: b', keyForm: 'A', header: 'b' },
  ] as const)(
    'DELETE /v1/notes/:id with $name answers 404 in Form B format and keeps the note',
    async ({ keyForm, header }) => {
      const { key } = await app.createAccount({ form: keyForm });
      const id = await app.recordNote(key, { summary: SUMMARY });
      const was = await rowsOf(id);
      const noteBefore = (await app.request(`/v1/notes/${id}`, { key, form: 'B' })).json;

      const res = await app.request(`/v1/notes/${id}`, {
        method: 'DELETE',
        key,
        ...(header && { form: header }),
      });
      expect(res.status).toBe(404);
      expectJson(res);
      expect(res.json).toEqual(ERROR_B);

      expect(await rowsOf(id)).toEqual(was);
      expect(was).toEqual({ meetings: 1, segments: 2, events: 3 });
      const get = await app.request(`/v1/notes/${id}`, { key, form: 'B' });
      expect(get.status).toBe(200);
      expect(get.json).toEqual(noteBefore);
    },
  );

  it("a Form B key with X-API-Form: A can delete (the request's form decides)", async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const id = await app.recordNote(key, {});
    const res = await app.request(`/v1/notes/${id}`, { method: 'DELETE', key, form: 'A' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const get = await app.request(`/v1/notes/${id}`, { key });
    expect(get.status).toBe(404);
    expect(get.json).toEqual(ERROR_B);
  });
});
