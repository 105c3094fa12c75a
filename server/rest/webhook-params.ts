import { z } from 'zod';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../domain';
import { enumParam, requiredText } from '../http/params';
import type { CreateEndpointInput } from './procedures/webhooks';

// The request body of POST /v1/webhooks, the same in both forms (SPEC 4.5, D2, D8).
export const createEndpointInput = z
  .object({
    url: requiredText('url').meta({ description: 'An https:// URL whose every address is public.' }),
    events: z
      .array(enumParam(WEBHOOK_EVENTS, 'events'), { error: 'events must be an array of event names' })
      .min(1, { error: 'events must name at least one event' })
      .meta({ description: 'Event names to subscribe to (default ["meeting.completed"]).' })
      .optional(),
  })
  .transform(
    (input): CreateEndpointInput => ({
      url: input.url,
      // D8: duplicates removed, order kept.
      events: [...new Set<WebhookEvent>(input.events ?? ['meeting.completed'])],
    }),
  );

export const EndpointEvents = z.array(z.enum(WEBHOOK_EVENTS));
