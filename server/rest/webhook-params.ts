import { z } from 'zod';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../domain';
import { enumParam, INPUT_DEFAULT, requiredText } from '../http/params';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhooks/url-guard';
import type { CreateEndpointInput } from './procedures/webhooks';
import { UUID_LENGTH, V1_MAX_BODY_BYTES } from '../openapi-bounds';

// The request body of POST /v1/webhooks, the same in both forms, and the endpoint fields both
// forms write (docs/rules.md#webhook-endpoints).

/**
 * The most event names a request body can hold: duplicates are accepted (and removed), so the
 * bound is the 64 KiB body, in which each name takes at least its quotes and a comma.
 */
const MAX_EVENT_NAMES_IN_BODY = Math.floor(
  V1_MAX_BODY_BYTES / (Math.min(...WEBHOOK_EVENTS.map((e) => e.length)) + 3),
);

/** The events an endpoint subscribes to when the request names none, in both forms. */
export const DEFAULT_EVENTS: WebhookEvent[] = ['meeting.completed'];

export const createEndpointInput = z
  .object({
    // The URL's checks (https, length, public addresses) answer 422; the document states them.
    url: requiredText('url').meta({
      description: `An https:// URL without user info, at most ${MAX_WEBHOOK_URL_LENGTH} characters, whose every address is public.`,
      format: 'uri',
      minLength: 1,
      maxLength: MAX_WEBHOOK_URL_LENGTH,
    }),
    events: z
      .array(enumParam(WEBHOOK_EVENTS, 'events'), { error: 'events must be an array of event names' })
      .min(1, { error: 'events must name at least one event' })
      .meta({
        description: 'Event names to subscribe to; duplicates are ignored (default ["meeting.completed"]).',
        maxItems: MAX_EVENT_NAMES_IN_BODY,
        // zod drops `default` from a schema that transforms (its elements do): see INPUT_DEFAULT.
        [INPUT_DEFAULT]: DEFAULT_EVENTS,
      })
      .optional(),
  })
  .transform(
    (input): CreateEndpointInput => ({
      url: input.url,
      // Duplicates removed, order kept.
      events: [...new Set<WebhookEvent>(input.events ?? DEFAULT_EVENTS)],
    }),
  );

// Stored without duplicates, so at most one of each event.
export const EndpointEvents = z.array(z.enum(WEBHOOK_EVENTS)).meta({
  description: 'The events the endpoint receives.',
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
});
export const EndpointId = z
  .string()
  .uuid()
  .meta({ description: 'The UUID of the endpoint.', maxLength: UUID_LENGTH });
// Checked against the same length at registration and at every edit, before and after normalising.
export const EndpointUrl = z.string().meta({
  description: 'The https:// URL deliveries are sent to.',
  format: 'uri',
  maxLength: MAX_WEBHOOK_URL_LENGTH,
});
export const EndpointActive = z.boolean().meta({
  description: 'False once deliveries have failed for good and the endpoint was deactivated.',
});
