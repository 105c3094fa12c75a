import { describe, expect, it } from 'vitest';
import type { NoteRecord } from '../../notes/note-record';
import { renderSummaryText, type Summary } from '../../notes/summary';
import { decodeCursor } from '../../http/opaque-cursor';
import { presentNote, presentNoteList, presentNoteListItem } from './present';
import { NoteA, NoteListA, NoteListItemA } from './schemas';

const summary: Summary = {
  context: 'Quarterly planning with the platform team.',
  decisions: ['Ship the importer on Friday', 'Hire two engineers'],
  action_items: [
    { task: 'Send the hiring plan', owner: 'Ana', deadline: '2026-03-10' },
    { task: 'Book the retro room', owner: null, deadline: null },
  ],
  participants: ['Ana', 'Ben'],
  next_step: 'Review the importer demo next Tuesday',
  budget_mentioned: '$40k',
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

const transcriptA = [
  { sequence: 1, speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0 },
  { sequence: 2, speaker: 'Ben', content: 'Yes, the release is on track.', start_time: 2.5 },
];

describe('Form A presenters: the fields of a note, a list entry and a page', () => {
  it('single note with recorder-supplied summary text and action items', () => {
    const out = presentNote(note({ summary, summaryText: 'The team agreed to ship on Friday.' }));
    expect(out).toStrictEqual({
      id: '0c8f6e4a-1b2c-4d3e-8f90-a1b2c3d4e5f6',
      title: 'Weekly sync',
      platform: 'zoom',
      duration_seconds: 1815,
      created_at: '2026-03-02T09:00:00.123Z',
      ended_at: '2026-03-02T09:30:15.250Z',
      language: 'de',
      transcript: transcriptA,
      summary: 'The team agreed to ship on Friday.',
      action_items: [
        { text: 'Send the hiring plan', assignee: 'Ana' },
        { text: 'Book the retro room', assignee: null },
      ],
    });
    expect(NoteA.parse(out)).toStrictEqual(out);
  });

  it('without recorder text the summary is rendered from context, decisions and next step', () => {
    const out = presentNote(note({ summary, summaryText: null }));
    const rendered = renderSummaryText(summary);
    expect(out).toStrictEqual({
      id: '0c8f6e4a-1b2c-4d3e-8f90-a1b2c3d4e5f6',
      title: 'Weekly sync',
      platform: 'zoom',
      duration_seconds: 1815,
      created_at: '2026-03-02T09:00:00.123Z',
      ended_at: '2026-03-02T09:30:15.250Z',
      language: 'de',
      transcript: transcriptA,
      summary: rendered,
      action_items: [
        { text: 'Send the hiring plan', assignee: 'Ana' },
        { text: 'Book the retro room', assignee: null },
      ],
    });
    expect(rendered).toContain('Quarterly planning with the platform team.');
    expect(rendered).toContain('Ship the importer on Friday');
    expect(rendered).toContain('Hire two engineers');
    expect(rendered).toContain('Review the importer demo next Tuesday');
    expect(NoteA.parse(out)).toStrictEqual(out);
  });

  it('a note without a title and without a summary: title "", summary null, action_items []', () => {
    const out = presentNote(note({ title: null, platform: 'microphone', language: 'en' }));
    expect(out).toStrictEqual({
      id: '0c8f6e4a-1b2c-4d3e-8f90-a1b2c3d4e5f6',
      title: '',
      platform: 'microphone',
      duration_seconds: 1815,
      created_at: '2026-03-02T09:00:00.123Z',
      ended_at: '2026-03-02T09:30:15.250Z',
      language: 'en',
      transcript: transcriptA,
      summary: null,
      action_items: [],
    });
    expect(NoteA.parse(out)).toStrictEqual(out);
  });

  it('a summary without action items gives action_items []', () => {
    const out = presentNote(note({ summary: { ...summary, action_items: [] }, summaryText: 'Short.' }));
    expect(out.summary).toBe('Short.');
    expect(out.action_items).toStrictEqual([]);
    expect(NoteA.parse(out)).toStrictEqual(out);
  });

  it.each(['meet', 'zoom', 'teams', 'phone', 'microphone'] as const)(
    'Form A keeps the platform "%s" as stored',
    (platform) => {
      const out = presentNoteListItem(note({ platform }));
      expect(out.platform).toBe(platform);
      expect(NoteListItemA.parse(out)).toStrictEqual(out);
    },
  );

  it('a list entry has no language, summary, action_items, started_at or end_time', () => {
    const out = presentNoteListItem(note({ summary, summaryText: 'Text', title: null }));
    expect(out).toStrictEqual({
      id: '0c8f6e4a-1b2c-4d3e-8f90-a1b2c3d4e5f6',
      title: '',
      platform: 'zoom',
      duration_seconds: 1815,
      created_at: '2026-03-02T09:00:00.123Z',
      ended_at: '2026-03-02T09:30:15.250Z',
      transcript: transcriptA,
    });
    for (const segment of out.transcript)
      expect(Object.keys(segment)).toStrictEqual(['sequence', 'speaker', 'content', 'start_time']);
    expect(NoteListItemA.parse(out)).toStrictEqual(out);
  });

  it('single-note transcript segments omit end_time', () => {
    const out = presentNote(note());
    for (const segment of out.transcript)
      expect(Object.keys(segment)).toStrictEqual(['sequence', 'speaker', 'content', 'start_time']);
  });

  it('a page with more notes: next_cursor is the opaque cursor of the last note, has_more true', () => {
    const first = note();
    const last = note({
      id: 'ffffffff-1b2c-4d3e-8f90-a1b2c3d4e5f6',
      title: null,
      createdAt: new Date('2026-03-01T08:00:00.007Z'),
    });
    const out = presentNoteList({ notes: [first, last], hasMore: true });
    expect(out).toStrictEqual({
      data: [presentNoteListItem(first), presentNoteListItem(last)],
      next_cursor: expect.any(String),
      has_more: true,
    });
    expect(out.data[1]!.title).toBe('');
    expect(decodeCursor(out.next_cursor!)).toStrictEqual({ createdAt: last.createdAt, id: last.id });
    expect(Number.isNaN(Date.parse(out.next_cursor!))).toBe(true);
    expect(NoteListA.parse(out)).toStrictEqual(out);
  });

  it('the last page has next_cursor null and has_more false', () => {
    const out = presentNoteList({ notes: [note()], hasMore: false });
    expect(out).toStrictEqual({ data: [presentNoteListItem(note())], next_cursor: null, has_more: false });
    expect(NoteListA.parse(out)).toStrictEqual(out);
  });

  it('an empty page has data [], next_cursor null, has_more false', () => {
    const out = presentNoteList({ notes: [], hasMore: false });
    expect(out).toStrictEqual({ data: [], next_cursor: null, has_more: false });
    expect(NoteListA.parse(out)).toStrictEqual(out);
  });
});
