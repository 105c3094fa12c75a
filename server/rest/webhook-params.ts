import { z } from 'zod';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../domain';
import { enumParam, INPUT_DEFAULT, requiredText } from '../http/params';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhooks/url-guard';
import type { CreateEndpointInput } from './procedures/webhooks';

// The request body of POST /v1/webhooks, the same in both forms, and the endpoint fields both
// forms write (docs/rules.md#webhook-endpoints).

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

export const EndpointEvents = z
  .array(z.enum(WEBHOOK_EVENTS))
  .meta({ description: 'The events the endpoint receives.' });
export const EndpointId = z.string().uuid().meta({ description: 'The UUID of the endpoint.' });
export const EndpointUrl = z
  .string()
  .meta({ description: 'The https:// URL deliveries are sent to.', format: 'uri' });
export const EndpointActive = z.boolean().meta({
  description: 'False once deliveries have failed for good and the endpoint was deactivated.',
});
