import { AppError, type ErrorCode } from '../errors';
import type { EventPage, EventRecord } from '../events/list-events';
import type { NotePage, NoteRecord } from '../notes/note-record';
import type { PassageHit } from '../search/search-passages';
import { buildEventData, serializeEnvelope } from '../webhooks/envelope';
import type { WebhookEndpoint } from '../webhooks/endpoints';
import type { DeliveryAttemptRecord } from '../webhooks/list-delivery-attempts';

// The records the OpenAPI examples are written from. Each form's index.ts runs
// its own presenters on them and openapi-document.ts runs presentError, so an example is what the
// server writes for such a record: it cannot drift from the presenters or the error format.

const at = (iso: string) => new Date(iso);

export const SAMPLE_NOTE: NoteRecord = {
  id: '3f1c9a52-8d4e-4b7a-9c61-2e5f0a7b3d10',
  title: 'Weekly product sync',
  platform: 'zoom',
  language: 'en',
  startedAt: at('2026-01-29T14:00:00.000Z'),
  endedAt: at('2026-01-29T14:30:00.000Z'),
  durationSeconds: 1800,
  createdAt: at('2026-01-29T14:31:05.120Z'),
  summary: {
    context: 'The team reviewed the launch plan for the new onboarding flow.',
    decisions: ['Ship the onboarding flow on 2026-02-10'],
    action_items: [{ task: 'Write the release notes', owner: 'Dana', deadline: '2026-02-06' }],
    participants: ['Dana', 'Sam'],
    next_step: 'Review the release notes on Monday.',
    budget_mentioned: null,
    sentiment: 'positive',
  },
  summaryText: null,
  transcript: [
    {
      sequence: 1,
      speaker: 'Dana',
      content: 'Shall we go over the launch plan?',
      startTime: 0,
      endTime: 3.2,
    },
    {
      sequence: 2,
      speaker: 'Sam',
      content: 'Yes, the onboarding flow is ready.',
      startTime: 3.4,
      endTime: 6.9,
    },
  ],
};

/** A first page that has a next one, so its next_cursor shows the form's cursor. */
export const SAMPLE_NOTE_PAGE: NotePage = { notes: [SAMPLE_NOTE], hasMore: true };

export const SAMPLE_PASSAGE: PassageHit = {
  noteId: SAMPLE_NOTE.id,
  title: SAMPLE_NOTE.title,
  startedAt: SAMPLE_NOTE.startedAt,
  speaker: 'Sam',
  snippet: 'Yes, the onboarding flow is ready.',
  score: 0.83,
  startTime: 3.4,
  sequence: 2,
  relevance: 'strong',
};

export const SAMPLE_ENDPOINT: WebhookEndpoint = {
  id: '9b2d4e6f-1a3c-4e5f-8a7b-6c5d4e3f2a10',
  accountId: '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d',
  url: 'https://hooks.example.com/meeting-notes',
  events: ['meeting.completed'],
  form: 'A',
  description: '',
  secret: 'whsec_3q2+7w==',
  previousSecret: null,
  previousSecretExpiresAt: null,
  active: true,
  activeSince: at('2026-01-28T09:15:00.000Z'),
  deactivatedAt: null,
  deactivatedByDeliveryId: null,
  createdAt: at('2026-01-28T09:15:00.000Z'),
};

export const SAMPLE_DELIVERY_ATTEMPT: DeliveryAttemptRecord = {
  id: 'c4d5e6f7-0a1b-4c2d-9e3f-4a5b6c7d8e9f',
  deliveryId: 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b',
  event: 'meeting.completed',
  attempt: 1,
  statusCode: 200,
  success: true,
  error: null,
  durationMs: 184,
  payload: serializeEnvelope(
    'meeting.completed',
    at('2026-01-29T14:31:05.120Z'),
    buildEventData(SAMPLE_NOTE, SAMPLE_NOTE.transcript, SAMPLE_NOTE.summary),
  ),
  requestHeaders: {},
  responseBody: 'ok',
  createdAt: at('2026-01-29T14:31:06.000Z'),
};

export const SAMPLE_EVENT: EventRecord = {
  id: '7d3e5f1a-2b4c-4d6e-8f0a-1b2c3d4e5f6a',
  type: 'summary.ready',
  data: buildEventData(SAMPLE_NOTE, SAMPLE_NOTE.transcript, SAMPLE_NOTE.summary),
  createdAt: at('2026-01-29T14:31:09.480Z'),
};

/** A first page of events that has a next one, so its next_cursor shows. */
export const SAMPLE_EVENT_PAGE: EventPage = { events: [SAMPLE_EVENT], hasMore: true };

/** One error per code, with a message the server writes for it. */
export const SAMPLE_ERRORS: Record<ErrorCode, AppError> = {
  invalid_request: new AppError('invalid_request', 'limit must be an integer'),
  invalid_api_key: new AppError('invalid_api_key', 'Missing, invalid, revoked or expired API key'),
  forbidden: new AppError('forbidden', 'API access is limited to early-access accounts'),
  not_found: new AppError('not_found', 'Note not found'),
  conflict: new AppError(
    'conflict',
    'An endpoint with the url https://hooks.example.com/meeting-notes is already registered',
  ),
  validation_error: new AppError('validation_error', 'limit must be between 1 and 100'),
  payload_too_large: new AppError('payload_too_large', 'The request body is larger than 65536 bytes'),
  rate_limited: new AppError('rate_limited', 'Rate limit exceeded; retry after the time in Retry-After'),
  internal_error: new AppError(
    'internal_error',
    'Internal error; quote request id 0b7e4d3c-2a19-4f58-9c6e-7d8a1b2c3d4e when reporting it',
  ),
  service_unavailable: new AppError(
    'service_unavailable',
    'The service cannot reach its database for the moment; retry in 5 seconds',
  ),
};
