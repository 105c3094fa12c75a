import { describe, expect, it } from 'vitest';
import type { NoteRecord } from '../../notes/note-record';
import type { Summary } from '../../notes/summary';
import { presentNote, presentNoteList } from './present';
import { NoteB, NoteListB } from './schemas';

const summary: Summary = {
  context: 'Quarterly planning with the platform team.',
  decisions: ['Ship the importer on Friday'],
  action_items: [
    { task: 'Send the hiring plan', owner: 'Ana', deadline: '2026-03-10' },
    { task: 'Book the retro room', owner: null, deadline: null },
  ],
  participants: ['Ana', 'Ben'],
  next_step: null,
  budget_mentioned: null,
  sentiment: 'positive',
};

function note(overrides: Partial<NoteRecord> = {}): NoteRecord {
  return {
    id: '0c8f6e4a-1b2c-4d3e-8f90-a1b2c3d4e5f6',
    title: 'Weekly sync',
    platform: 'zoom',
    language: 'de',
    startedAt: new Date('2026-03-02T09:00:00.000Z'),
    endedAt: new Date('2026-03-02T09:30:15.250Z'),
    durationSeconds: 1815,
    createdAt: new Date('2026-03-02T09:00:00.123Z'),
    summary: null,
    summaryText: null,
    transcript: [
      { sequence: 1, speaker: 'Ana', content: 'Good morning, shall we start?', startTime: 0, endTime: 2.5 },
      {
        sequence: 2,
        speaker: 'Ben',
        content: 'Yes, the release is on track.',
        startTime: 2.5,
        endTime: null,
      },
    ],
    ...overrides,
  };
}

const transcriptB = [
  { sequence: 1, speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0, end_time: 2.5 },
  { sequence: 2, speaker: 'Ben', content: 'Yes, the release is on track.', start_time: 2.5, end_time: null },
];

describe('Form B presenters: the fields of a note, a page and a summary', () => {
  it('a note with a summary: the Summary object, status ready, started_at, no Form A fields', () => {
    const out = presentNote(note({ summary, summaryText: 'Recorder text is a Form A thing.' }));
    expect(out).toStrictEqual({
      id: '0c8f6e4a-1b2c-4d3e-8f90-a1b2c3d4e5f6',
      title: 'Weekly sync',
      platform: 'zoom',
      duration_seconds: 1815,
      started_at: '2026-03-02T09:00:00.000Z',
      ended_at: '2026-03-02T09:30:15.250Z',
      status: 'ready',
      transcript: transcriptB,
      summary: {
        context: 'Quarterly planning with the platform team.',
        decisions: ['Ship the importer on Friday'],
        action_items: [
          { task: 'Send the hiring plan', owner: 'Ana', deadline: '2026-03-10' },
          { task: 'Book the retro room', owner: null, deadline: null },
        ],
        participants: ['Ana', 'Ben'],
        next_step: null,
        budget_mentioned: null,
        sentiment: 'positive',
      },
    });
    expect(NoteB.parse(out)).toStrictEqual(out);
  });

  it('summary null until generated; title null stays null (not "")', () => {
    const out = presentNote(note({ title: null }));
    expect(out).toStrictEqual({
      id: '0c8f6e4a-1b2c-4d3e-8f90-a1b2c3d4e5f6',
      title: null,
      platform: 'zoom',
      duration_seconds: 1815,
      started_at: '2026-03-02T09:00:00.000Z',
      ended_at: '2026-03-02T09:30:15.250Z',
      status: 'ready',
      transcript: transcriptB,
      summary: null,
    });
    expect(NoteB.parse(out)).toStrictEqual(out);
  });

  it.each([
    ['meet', 'meet'],
    ['zoom', 'zoom'],
    ['teams', 'teams'],
    ['phone', 'phone'],
    ['microphone', 'phone'],
  ] as const)('stored platform %s is written as %s in Form B', (stored, shown) => {
    const out = presentNote(note({ platform: stored }));
    expect(out.platform).toBe(shown);
    expect(NoteB.parse(out)).toStrictEqual(out);
  });

  it('Form B segments carry end_time (number or null), in recorder order', () => {
    const out = presentNote(note());
    for (const segment of out.transcript) {
      expect(Object.keys(segment)).toStrictEqual([
        'sequence',
        'speaker',
        'content',
        'start_time',
        'end_time',
      ]);
    }
    expect(out.transcript.map((s) => s.end_time)).toStrictEqual([2.5, null]);
  });

  it('a page with more notes: next_cursor is the created_at of the last note (UTC, milliseconds, Z), has_more true', () => {
    const first = note();
    const last = note({
      id: 'ffffffff-1b2c-4d3e-8f90-a1b2c3d4e5f6',
      title: null,
      platform: 'microphone',
      summary,
      createdAt: new Date('2026-03-01T08:00:00.007Z'),
    });
    const out = presentNoteList({ notes: [first, last], hasMore: true });
    expect(out).toStrictEqual({
      data: [presentNote(first), presentNote(last)],
      next_cursor: '2026-03-01T08:00:00.007Z',
      has_more: true,
    });
    expect(out.data[1]).toMatchObject({ title: null, platform: 'phone' });
    expect(NoteListB.parse(out)).toStrictEqual(out);
  });

  it('the last page has next_cursor null and has_more false', () => {
    const out = presentNoteList({ notes: [note()], hasMore: false });
    expect(out).toStrictEqual({ data: [presentNote(note())], next_cursor: null, has_more: false });
    expect(NoteListB.parse(out)).toStrictEqual(out);
  });

  it('an empty page has data [], next_cursor null, has_more false', () => {
    const out = presentNoteList({ notes: [], hasMore: false });
    expect(out).toStrictEqual({ data: [], next_cursor: null, has_more: false });
    expect(NoteListB.parse(out)).toStrictEqual(out);
  });
});
