import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptSegment } from '../support/recorder';
import { runDueWork } from '../../server/worker/run-due-work';
import { startTestApp, type TestApp } from '../support/test-app';

// Search narrowed like the note list (platform, created_after, created_before, with each form's
// rules) and by speaker, in both forms; the filters apply before the best `limit` are chosen.

let app: TestApp;
beforeAll(async () => {
  // A low exact-search threshold, so that the large account below is searched through the index.
  app = await startTestApp({ env: { SEARCH_EXACT_MAX_ROWS: '12' } });
});
afterAll(() => app?.close());

const SUMMARY = (context: string) => ({
  context,
  decisions: ['Ship the release plan'],
  action_items: [],
  participants: [],
  next_step: null,
  budget_mentioned: null,
  sentiment: null,
});

const line = (speaker: string, content: string, start: number): TranscriptSegment => ({
  speaker,
  content,
  start_time: start,
  end_time: start + 4,
});

interface Recorded {
  id: string;
  createdAt: string;
  segments: TranscriptSegment[];
}

async function record(key: string, platform: 'zoom' | 'teams' | 'microphone', segments: TranscriptSegment[]) {
  const id = await app.recordNote(key, {
    title: `${platform} release review`,
    platform,
    segments,
    summary: SUMMARY(`The ${platform} team reviewed the release plan.`),
  });
  const note = await app.request(`/v1/notes/${id}`, { key });
  return { id, createdAt: note.json.created_at as string, segments } satisfies Recorded;
}

const search = async (key: string, form: 'A' | 'B', query: string) => {
  const res = await app.request(`/v1/notes/search?q=release+plan&limit=20${query}`, { key, form });
  expect(res.status, res.text).toBe(200);
  return res.json.data as any[];
};
const noteIds = (hits: any[], form: 'A' | 'B') =>
  [...new Set(hits.map((h) => (form === 'A' ? h.note_id : h.id)))].sort();

describe('search filters', () => {
  let key: string;
  let zoom: Recorded;
  let teams: Recorded;
  let mic: Recorded;
  beforeAll(async () => {
    ({ key } = await app.createAccount({ form: 'A' }));
    zoom = await record(key, 'zoom', [
      line('Ana', 'The release plan needs a budget review before Friday.', 0),
      line('Ben', 'I will draft the release plan budget tonight.', 5),
    ]);
    teams = await record(key, 'teams', [line('Cleo', 'Our release plan moves the launch to May.', 0)]);
    mic = await record(key, 'microphone', [line('Ana', 'A note to self about the release plan.', 0)]);
    // Form B searches summaries: embedded in the background.
    await runDueWork(app.db, app.services, { budgetMs: 60_000 });
  });

  it('platform, in each form: Form B phone includes microphone notes, Form A phone does not', async () => {
    expect(noteIds(await search(key, 'A', ''), 'A')).toEqual([zoom.id, teams.id, mic.id].sort());
    expect(noteIds(await search(key, 'A', '&platform=zoom'), 'A')).toEqual([zoom.id]);
    expect(noteIds(await search(key, 'A', '&platform=microphone'), 'A')).toEqual([mic.id]);
    expect(await search(key, 'A', '&platform=phone')).toEqual([]);
    expect(noteIds(await search(key, 'B', ''), 'B')).toEqual([zoom.id, teams.id, mic.id].sort());
    expect(noteIds(await search(key, 'B', '&platform=phone'), 'B')).toEqual([mic.id]);
    expect(noteIds(await search(key, 'B', '&platform=teams'), 'B')).toEqual([teams.id]);
  });

  it('created_after is inclusive; created_before is exclusive in Form A and inclusive in Form B', async () => {
    const at = encodeURIComponent(teams.createdAt);
    for (const form of ['A', 'B'] as const) {
      expect(noteIds(await search(key, form, `&created_after=${at}`), form)).toEqual(
        [teams.id, mic.id].sort(),
      );
    }
    expect(noteIds(await search(key, 'A', `&created_before=${at}`), 'A')).toEqual([zoom.id]);
    expect(noteIds(await search(key, 'B', `&created_before=${at}`), 'B')).toEqual([zoom.id, teams.id].sort());
    expect(
      noteIds(
        await search(key, 'A', `&created_after=${at}&created_before=${encodeURIComponent(mic.createdAt)}`),
        'A',
      ),
    ).toEqual([teams.id]);
  });

  it("speaker, the whole name in any case: Form A's moments are that speaker's segments, Form B's notes are those they speak in", async () => {
    const hits = await search(key, 'A', '&speaker=ANA');
    expect(noteIds(hits, 'A')).toEqual([zoom.id, mic.id].sort());
    const speakerAt = (hit: any) =>
      [zoom, teams, mic]
        .find((n) => n.id === hit.note_id)!
        .segments.find((s) => s.start_time === hit.start_time)!.speaker;
    expect(hits.map(speakerAt)).toEqual(hits.map(() => 'Ana'));
    // Ben's line in the zoom note is its best match otherwise; with speaker=Ben it is the moment.
    const ben = await search(key, 'A', '&speaker=ben');
    expect(ben.map((h) => [h.note_id, h.start_time])).toEqual([[zoom.id, 5]]);
    expect(await search(key, 'A', '&speaker=An')).toEqual([]);
    expect(noteIds(await search(key, 'B', '&speaker=cleo'), 'B')).toEqual([teams.id]);
    expect(noteIds(await search(key, 'B', '&speaker=Ana&platform=phone'), 'B')).toEqual([mic.id]);
  });

  it('bad filters are refused in the form of the request', async () => {
    const cases: [string, number, number, RegExp][] = [
      ['&speaker=%20%20', 400, 400, /speaker must not be blank/],
      ['&platform=radio', 422, 400, /platform must be one of/],
      [
        '&created_after=2026-02-01T00:00:00Z&created_before=2026-01-01T00:00:00Z',
        422,
        400,
        /created_after must not be later/,
      ],
      ['&created_after=soon', 400, 400, /created_after/],
    ];
    for (const [query, statusA, statusB, message] of cases) {
      const a = await app.request(`/v1/notes/search?q=plan${query}`, { key });
      expect(a.status, query).toBe(statusA);
      expect(a.json.error.message, query).toMatch(message);
      const b = await app.request(`/v1/notes/search?q=plan${query}`, { key, form: 'B' });
      expect(b.status, query).toBe(statusB);
      expect(b.json.error, query).toMatch(message);
    }
  });

  it('a filter never starves an account: its few matching notes among many others, searched through the index, all come back', async () => {
    const { key: big } = await app.createAccount({ form: 'A' });
    for (let i = 0; i < 14; i++)
      await app.recordNote(big, {
        platform: 'zoom',
        segments: [line('Dan', `The release plan for sprint ${i} is on track.`, 0)],
      });
    const rare = [];
    for (let i = 0; i < 3; i++)
      rare.push(
        await app.recordNote(big, {
          platform: 'teams',
          segments: [line('Eve', `Budget talk number ${i}, nothing about launches.`, 0)],
        }),
      );
    const hits = await app.request('/v1/notes/search?q=release+plan&limit=3&platform=teams', { key: big });
    expect(hits.status).toBe(200);
    expect(noteIds(hits.json.data, 'A')).toEqual(rare.sort());
    const eve = await app.request('/v1/notes/search?q=release+plan&limit=5&speaker=eve', { key: big });
    expect(noteIds(eve.json.data, 'A')).toEqual(rare.sort());
  });
});
