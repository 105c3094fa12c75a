'use client';

import type { inferRouterOutputs } from '@trpc/server';
import { useEffect, useState } from 'react';
import type { AppRouter } from '@/server/api/root';
import { Badge } from '../ui/card';

type Outputs = inferRouterOutputs<AppRouter>;
export type EndpointListItem = Outputs['webhooks']['list'][number];
export type Endpoint = Outputs['webhooks']['get'];
export type DeliveryAttempt = Outputs['webhooks']['deliveries']['items'][number];

/** SPEC 6.1, in the order a meeting produces them. */
export const EVENT_OPTIONS = [
  { name: 'meeting.started', description: 'A recording has started.' },
  { name: 'meeting.transcribed', description: 'A call has finished and its transcript is ready.' },
  {
    name: 'meeting.completed',
    description:
      'Alias for meeting.transcribed: the same moment. Subscribing to both still sends one delivery.',
  },
  { name: 'summary.ready', description: 'An AI summary has finished generating.' },
] as const;

export type WebhookEventName = (typeof EVENT_OPTIONS)[number]['name'];

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

/** The current time, re-read every `intervalMs`, so relative times stay true while a page is open. */
export function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatRelative(iso: string, now: number): string {
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return `${days} ${days === 1 ? 'day' : 'days'} ago`;
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

/** A relative time with the exact moment in its title and datetime attribute. */
export function RelativeTime({ iso, now }: { iso: string; now: number }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso, now)}
    </time>
  );
}

/** Why an attempt failed, in a few words: the sender's error, else the status code. */
export function describeFailure(attempt: { statusCode: number | null; error: string | null }): string {
  return attempt.error ?? (attempt.statusCode === null ? 'no response' : `HTTP ${attempt.statusCode}`);
}
