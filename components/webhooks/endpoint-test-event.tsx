'use client';

import { useId, useState } from 'react';
import { Button } from '../ui/button';
import type { WebhookEvent } from '@/server/domain';

/**
 * "Send test event" with the event to send: a sample in that event's real payload shape,
 * chosen from the events the endpoint subscribes to, the first by default.
 */
export function EndpointTestEvent({
  events,
  disabled,
  pending,
  onSend,
}: {
  events: readonly WebhookEvent[];
  disabled: boolean;
  pending: boolean;
  onSend(event: WebhookEvent): void;
}) {
  const selectId = useId();
  const [picked, setPicked] = useState<WebhookEvent | null>(null);
  // An edit may have dropped the picked event: fall back to the first subscribed one.
  const event = picked && events.includes(picked) ? picked : events[0];

  return (
    <div className="flex min-w-0 flex-wrap items-center gap-2">
      <label htmlFor={selectId} className="sr-only">
        Test event type
      </label>
      <select
        id={selectId}
        data-testid="test-event-type"
        value={event ?? ''}
        disabled={disabled || !event}
        onChange={(e) => setPicked(events.find((name) => name === e.target.value) ?? null)}
        className="min-w-0 max-w-full rounded-md border-0 bg-white py-2 pr-8 pl-3 font-mono text-sm text-zinc-900 shadow-sm ring-1 ring-inset ring-zinc-300 focus:ring-2 focus:ring-inset focus:ring-indigo-600 disabled:text-zinc-400"
      >
        {events.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <Button
        variant="secondary"
        data-testid="send-test-event"
        disabled={disabled || pending || !event}
        onClick={() => event && onSend(event)}
      >
        {pending ? 'Sending…' : 'Send test event'}
      </Button>
    </div>
  );
}
