import type { z } from 'zod';
import type { NotePage, NoteRecord } from '../../notes/note-record';
import type { NoteB, NoteListB, SearchResultsB } from './schemas';

export function presentNote(note: NoteRecord): z.input<typeof NoteB> {
  return {
    id: note.id,
    title: note.title,
    platform: note.platform === 'microphone' ? 'phone' : note.platform,
    duration_seconds: note.durationSeconds,
    started_at: note.startedAt.toISOString(),
    ended_at: note.endedAt.toISOString(),
    status: 'ready',
    transcript: note.transcript.map((s) => ({
      sequence: s.sequence,
      speaker: s.speaker,
      content: s.content,
      start_time: s.startTime,
      end_time: s.endTime,
    })),
    summary: note.summary,
  };
}

export function presentNoteList(page: NotePage): z.input<typeof NoteListB> {
  const last = page.notes.at(-1);
  return {
    data: page.notes.map(presentNote),
    next_cursor: page.hasMore && last ? last.createdAt.toISOString() : null,
    has_more: page.hasMore,
  };
}

export function presentSearchResults(notes: NoteRecord[]): z.input<typeof SearchResultsB> {
  return { data: notes.map(presentNote) };
}
