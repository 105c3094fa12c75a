import type { z } from 'zod';
import type { Platform } from '../../domain';
import type { NotePage, NoteRecord } from '../../notes/note-record';
import { presentSummary } from '../../notes/summary';
import type { WebhookEndpoint } from '../../webhooks/endpoints';
import type { DeliveryAttemptRecord } from '../../webhooks/list-delivery-attempts';
import { encodeCursor } from '../../http/opaque-cursor';
import type {
  CreatedEndpointB,
  DeletedEndpointB,
  DeliveryPageB,
  EndpointB,
  EndpointListB,
  NoteB,
  NoteListB,
  SearchResultsB,
} from './schemas';

/** Form B has no microphone: such notes are phone notes. */
export const presentPlatformB = (platform: Platform) => (platform === 'microphone' ? 'phone' : platform);

export function presentNote(note: NoteRecord): z.input<typeof NoteB> {
  return {
    id: note.id,
    title: note.title,
    platform: presentPlatformB(note.platform),
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
    summary: note.summary && presentSummary(note.summary),
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

type Events = z.input<typeof EndpointB>['events'];

// Form B's key order: id, url, events, active, created_at, secret.
export function presentCreatedEndpoint(e: WebhookEndpoint): z.input<typeof CreatedEndpointB> {
  return { ...presentEndpoint(e), secret: e.secret };
}

export function presentEndpoint(e: WebhookEndpoint): z.input<typeof EndpointB> {
  return {
    id: e.id,
    url: e.url,
    events: e.events as Events,
    active: e.active,
    created_at: e.createdAt.toISOString(),
  };
}

export function presentEndpointList(endpoints: WebhookEndpoint[]): z.input<typeof EndpointListB> {
  return { data: endpoints.map(presentEndpoint) };
}

export const presentDeletedEndpoint = (): z.input<typeof DeletedEndpointB> => ({ success: true });

type Attempt = z.input<typeof DeliveryPageB>['data'][number];

export function presentDeliveryPage(page: {
  attempts: DeliveryAttemptRecord[];
  hasMore: boolean;
}): z.input<typeof DeliveryPageB> {
  const last = page.attempts.at(-1);
  return {
    data: page.attempts.map((a) => ({
      id: a.id,
      delivery_id: a.deliveryId,
      event: a.event as Attempt['event'],
      attempt: a.attempt,
      status_code: a.statusCode,
      success: a.success,
      error: a.error,
      duration_ms: a.durationMs,
      payload: JSON.parse(a.payload) as Attempt['payload'],
      created_at: a.createdAt.toISOString(),
    })),
    next_cursor: page.hasMore && last ? encodeCursor(last) : null,
    has_more: page.hasMore,
  };
}
