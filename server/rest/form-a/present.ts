import type { z } from 'zod';
import type { NotePage, NoteRecord } from '../../notes/note-record';
import { renderSummaryText } from '../../notes/summary';
import { encodeCursor } from '../../http/opaque-cursor';
import type { PassageHit } from '../../search/search-passages';
import type { WebhookEndpoint } from '../../webhooks/endpoints';
import type {
  CreatedEndpointA,
  EndpointA,
  EndpointListA,
  NoteA,
  NoteListA,
  NoteListItemA,
  SearchResultsA,
} from './schemas';

const iso = (d: Date) => d.toISOString();

function presentTranscript(note: NoteRecord) {
  return note.transcript.map((s) => ({
    sequence: s.sequence,
    speaker: s.speaker,
    content: s.content,
    start_time: s.startTime,
  }));
}

export function presentNoteListItem(note: NoteRecord): z.input<typeof NoteListItemA> {
  return {
    id: note.id,
    title: note.title ?? '',
    platform: note.platform,
    duration_seconds: note.durationSeconds,
    created_at: iso(note.createdAt),
    ended_at: iso(note.endedAt),
    transcript: presentTranscript(note),
  };
}

export function presentNote(note: NoteRecord): z.input<typeof NoteA> {
  return {
    id: note.id,
    title: note.title ?? '',
    platform: note.platform,
    duration_seconds: note.durationSeconds,
    created_at: iso(note.createdAt),
    ended_at: iso(note.endedAt),
    language: note.language,
    transcript: presentTranscript(note),
    summary: note.summaryText ?? (note.summary ? renderSummaryText(note.summary) : null),
    action_items: (note.summary?.action_items ?? []).map((a) => ({ text: a.task, assignee: a.owner })),
  };
}

export function presentNoteList(page: NotePage): z.input<typeof NoteListA> {
  const last = page.notes.at(-1);
  return {
    data: page.notes.map(presentNoteListItem),
    next_cursor: page.hasMore && last ? encodeCursor(last) : null,
    has_more: page.hasMore,
  };
}

export function presentSearchResults(hits: PassageHit[]): z.input<typeof SearchResultsA> {
  return {
    data: hits.map((h) => ({
      note_id: h.noteId,
      title: h.title ?? '',
      snippet: h.snippet,
      score: h.score,
      start_time: h.startTime,
    })),
  };
}

// Form A's key order: id, url, events, secret, created_at, active.
export function presentCreatedEndpoint(e: WebhookEndpoint): z.input<typeof CreatedEndpointA> {
  return {
    id: e.id,
    url: e.url,
    events: e.events as z.input<typeof CreatedEndpointA>['events'],
    secret: e.secret,
    created_at: iso(e.createdAt),
    active: e.active,
  };
}

export function presentEndpoint(e: WebhookEndpoint): z.input<typeof EndpointA> {
  return {
    id: e.id,
    url: e.url,
    events: e.events as z.input<typeof EndpointA>['events'],
    created_at: iso(e.createdAt),
    active: e.active,
  };
}

export function presentEndpointList(endpoints: WebhookEndpoint[]): z.input<typeof EndpointListA> {
  return { data: endpoints.map(presentEndpoint) };
}
