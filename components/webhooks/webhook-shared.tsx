'use client';

import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { WEBHOOK_EVENTS, type WebhookEvent } from '@/server/domain';
import { Badge } from '../ui/card';

type Outputs = inferRouterOutputs<AppRouter>;
export type EndpointListItem = Outputs['webhooks']['list'][number];
export type Endpoint = Outputs['webhooks']['get'];
export type DeliveryAttempt = Outputs['webhooks']['deliveries']['items'][number];

/** What each event an endpoint can subscribe to means (a name without one does not compile). */
const EVENT_DESCRIPTIONS: Record<WebhookEvent, string> = {
  'meeting.started': 'A recording has started.',
  'meeting.transcribed': 'A call has finished and its transcript is ready.',
  'meeting.completed':
    'Alias for meeting.transcribed: the same moment. Subscribing to both still sends one delivery.',
  'summary.ready': 'An AI summary has finished generating.',
};

/** SPEC 6.1, in the order a meeting produces them. */
export const EVENT_OPTIONS = WEBHOOK_EVENTS.map((name) => ({ name, description: EVENT_DESCRIPTIONS[name] }));

export type WebhookEventName = WebhookEvent;

export function EndpointStatusBadge({ active }: { active: boolean }) {
  return (
    <span data-testid="endpoint-status">
      <Badge color={active ? 'green' : 'red'}>{active ? 'Active' : 'Inactive'}</Badge>
    </span>
  );
}

export function EventBadges({ events }: { events: readonly string[] }) {
  return (
    <ul aria-label="Subscribed events" className="flex flex-wrap gap-1">
      {events.map((e) => (
        <li key={e}>
          <Badge color="indigo">
            <span className="font-mono">{e}</span>
          </Badge>
        </li>
      ))}
    </ul>
  );
}

/** Why an attempt failed, in a few words: the sender's error, else the status code. */
export function describeFailure(attempt: { statusCode: number | null; error: string | null }): string {
  return attempt.error ?? (attempt.statusCode === null ? 'no response' : `HTTP ${attempt.statusCode}`);
}
