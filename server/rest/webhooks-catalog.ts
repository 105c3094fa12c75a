import { type EventType, WEBHOOK_EVENTS, type WebhookEvent, eventTypeOf } from '../domain';
import {
  API_TIMESTAMP_LENGTH,
  API_TIMESTAMP_PATTERN,
  MAX_UNIX_SECONDS,
  UUID_LENGTH,
} from '../openapi-bounds';
import { buildEventData, serializeEnvelope } from '../webhooks/envelope';
import { SAMPLE_NOTE } from './openapi-samples';

// The event catalog: the OpenAPI 3.1 `webhooks` section of both forms' documents. One entry per
// event an endpoint can subscribe to, with the exact body (docs/rules.md#event-payloads, the same
// in both forms), the headers every attempt carries (docs/rules.md#signatures-and-headers) and
// what the receiver answers. The body's data is the EventData component the Events API
// describes too, so the two cannot drift.

/** When each event fires, in the catalog's words. */
export const EVENT_DESCRIPTIONS: Record<WebhookEvent, string> = {
  'meeting.started':
    'The recorder announced a meeting. Its data has no transcript yet: transcript is [], ended_at, duration_seconds and summary are null.',
  'meeting.transcribed':
    'The meeting’s transcript is stored: it is now a note. The data carries the whole transcript; summary is null.',
  'meeting.completed':
    'Another name of meeting.transcribed, the same moment and data. An endpoint subscribed to both gets meeting.transcribed only.',
  'summary.ready':
    'A summary is stored, generated or sent by the recorder. The data carries the transcript and the summary; a summary stored again fires it again.',
};

const UUID = { type: 'string', format: 'uuid', minLength: UUID_LENGTH, maxLength: UUID_LENGTH };
const HEX_64 = '[0-9a-f]{64}';
const BASE64_HMAC = '[A-Za-z0-9+/]{43}=';
const UNIX_SECONDS = `^[0-9]{1,${String(MAX_UNIX_SECONDS).length}}$`;

const header = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

/** The headers of every attempt (one or two signatures: two during a secret rotation's overlap). */
const attemptHeaders = (event: WebhookEvent) => [
  header('X-Service-Event', 'The event name, as in the body.', { type: 'string', const: event }),
  header('X-Service-Timestamp', 't: when this attempt was made, in Unix seconds.', {
    type: 'string',
    pattern: UNIX_SECONDS,
    maxLength: String(MAX_UNIX_SECONDS).length,
  }),
  header(
    'X-Service-Signature',
    't=<t>,v1=<hex>: the hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret exactly as shown at creation. During a rotation, a second v1= (the old secret).',
    { type: 'string', pattern: `^t=[0-9]+,v1=${HEX_64}(,v1=${HEX_64})?$`, maxLength: 160 },
  ),
  header('X-Service-Delivery', 'The delivery id: the same on every attempt of one delivery.', UUID),
  header(
    'X-Service-Event-Id',
    'The event id: the same on every delivery of the event, resent ones included; GET /v1/events/{id} returns it.',
    UUID,
  ),
  header('webhook-id', 'Standard Webhooks: the delivery id again; the key to deduplicate on.', UUID),
  header('webhook-timestamp', 'Standard Webhooks: t again.', {
    type: 'string',
    pattern: UNIX_SECONDS,
    maxLength: String(MAX_UNIX_SECONDS).length,
  }),
  header(
    'webhook-signature',
    'Standard Webhooks: v1,<base64 HMAC-SHA256 of "<webhook-id>.<t>.<raw body>">, keyed with the base64 decoding of the secret after any whsec_ prefix; two, space-separated, during a rotation.',
    { type: 'string', pattern: `^v1,${BASE64_HMAC}( v1,${BASE64_HMAC})?$`, maxLength: 100 },
  ),
  header('User-Agent', 'Always MeetingNotes-Webhooks/1.0.', {
    type: 'string',
    const: 'MeetingNotes-Webhooks/1.0',
  }),
];

/** The body of one event: the envelope, with `event` fixed to its name. */
export const envelopeSchema = (event: WebhookEvent) => ({
  type: 'object',
  description: 'The envelope, serialised once as compact JSON: every attempt sends the same bytes.',
  required: ['event', 'created_at', 'data'],
  additionalProperties: false,
  properties: {
    event: { type: 'string', const: event, description: 'The event name the endpoint subscribed to.' },
    created_at: {
      type: 'string',
      format: 'date-time',
      description: 'When the event happened: ISO 8601, UTC, millisecond precision.',
      minLength: API_TIMESTAMP_LENGTH,
      maxLength: API_TIMESTAMP_LENGTH,
      pattern: API_TIMESTAMP_PATTERN,
    },
    data: { $ref: '#/components/schemas/EventData' },
  },
});

/** A body as the service writes it for the sample meeting, at the moment the event fires. */
export function sampleEnvelope(event: WebhookEvent): unknown {
  const type: EventType = eventTypeOf(event);
  const at: Record<EventType, Date> = {
    'meeting.started': SAMPLE_NOTE.createdAt,
    'meeting.transcribed': new Date(SAMPLE_NOTE.createdAt.getTime() + 31 * 60_000),
    'summary.ready': new Date(SAMPLE_NOTE.createdAt.getTime() + 31 * 60_000 + 4_360),
  };
  const data =
    type === 'meeting.started'
      ? buildEventData({ ...SAMPLE_NOTE, endedAt: null, durationSeconds: null }, [], null)
      : buildEventData(
          SAMPLE_NOTE,
          SAMPLE_NOTE.transcript,
          type === 'summary.ready' ? SAMPLE_NOTE.summary : null,
        );
  return JSON.parse(serializeEnvelope(event, at[type], data));
}

/** meeting.started → meetingStarted. */
const operationId = (event: WebhookEvent) => event.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase());

/** The `webhooks` section: what each subscribed endpoint receives, as a POST to its URL. */
export function webhooksCatalog(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: operationId(event),
          summary: event,
          description: `${EVENT_DESCRIPTIONS[event]} Verify the signature over the raw body before parsing it, and reject a timestamp more than 5 minutes from your clock.`,
          tags: ['Webhook events'],
          // The service calls the receiver: no credential of the API's; the signatures authenticate.
          security: [],
          parameters: attemptHeaders(event),
          requestBody: {
            required: true,
            description: 'The event envelope.',
            content: {
              'application/json': { schema: envelopeSchema(event), example: sampleEnvelope(event) },
            },
          },
          responses: {
            '200': {
              description:
                'Any 2xx within the time-out (10 s by default) acknowledges the delivery; its body is ignored. Anything else, a redirect included, fails the attempt: it is retried up to three times (after 30 s, 5 min and 30 min by default), and when the fourth attempt of a real event fails the endpoint is deactivated.',
            },
          },
        },
      },
    ]),
  );
}

/** The tag of the catalog's entries. */
export const WEBHOOK_EVENTS_TAG = {
  name: 'Webhook events',
  description:
    'What the service POSTs to a webhook endpoint for each event it subscribed to: the same bodies in both forms.',
};
