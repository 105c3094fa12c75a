'use client';

import type { inferRouterOutputs } from '@trpc/server';
import { useState } from 'react';
import type { AppRouter } from '@/server/api/root';
import { WEBHOOK_EVENTS, WEBHOOK_MAX_ATTEMPTS, type WebhookEvent } from '@/server/domain';
import { Badge } from '../ui/card';
import { formatDateTime, useNow } from '../ui/relative-time';

type Outputs = inferRouterOutputs<AppRouter>;
export type EndpointListItem = Outputs['webhooks']['list'][number];
export type Endpoint = Outputs['webhooks']['get'];
export type Delivery = Outputs['webhooks']['deliveries']['items'][number];
export type DeliveryDetail = Outputs['webhooks']['delivery'];
export type DeliveryState = Delivery['state'];
export type EndpointHealth = Outputs['webhooks']['health'];
export type AttemptTally = EndpointHealth['day'];

/** What each event an endpoint can subscribe to means (a name without one does not compile). */
const EVENT_DESCRIPTIONS: Record<WebhookEvent, string> = {
  'meeting.started': 'A recording has started.',
  'meeting.transcribed': 'A call has finished and its transcript is ready.',
  'meeting.completed':
    'Alias for meeting.transcribed: the same moment. Subscribing to both still sends one delivery.',
  'summary.ready': 'An AI summary has finished generating.',
};

/** The events an endpoint can subscribe to, in the order a meeting produces them. */
export const EVENT_OPTIONS = WEBHOOK_EVENTS.map((name) => ({ name, description: EVENT_DESCRIPTIONS[name] }));

/** Attempts a delivery gets before it fails (the first and three retries). */
export const MAX_DELIVERY_ATTEMPTS = WEBHOOK_MAX_ATTEMPTS;

/** Every delivery state with its label and badge colour (a state without one does not compile). */
export const DELIVERY_STATE_LABELS: Record<
  DeliveryState,
  { label: string; color: 'zinc' | 'amber' | 'green' | 'red' }
> = {
  pending: { label: 'Pending', color: 'zinc' },
  retrying: { label: 'Retrying', color: 'amber' },
  succeeded: { label: 'Succeeded', color: 'green' },
  failed: { label: 'Failed', color: 'red' },
  cancelled: { label: 'Cancelled', color: 'zinc' },
};

export const DELIVERY_STATES = Object.keys(DELIVERY_STATE_LABELS) as DeliveryState[];

export const isDeliveryState = (value: string | null | undefined): value is DeliveryState =>
  value != null && Object.hasOwn(DELIVERY_STATE_LABELS, value);

export const isWebhookEvent = (value: string | null | undefined): value is WebhookEvent =>
  value != null && (WEBHOOK_EVENTS as readonly string[]).includes(value);

const CANCELLED_REASONS: Record<string, string> = { endpoint_deactivated: 'endpoint deactivated' };

/** Why a delivery was cancelled, in words. */
export const describeCancelledReason = (reason: string | null): string | null =>
  reason === null ? null : (CANCELLED_REASONS[reason] ?? reason.replaceAll('_', ' '));

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

/** The first characters of an id: enough to tell deliveries apart on screen. */
export const shortId = (id: string): string => id.slice(0, 8);

/** "98.5 %", or "—" without attempts; never rounds a rate below 100 % up to 100 %. */
export function formatSuccessRate(rate: number | null): string {
  if (rate === null) return '—';
  const percent = Math.min(rate * 100, rate < 1 ? 99.9 : 100);
  return `${percent.toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;
}

/** "in 25 s", "in 4 min", else the moment itself; "due now" once it has passed. */
export function describeNextAttempt(iso: string, now: number): string {
  const seconds = Math.ceil((new Date(iso).getTime() - now) / 1000);
  if (seconds <= 0) return 'next attempt due now';
  if (seconds < 90) return `next attempt in ${seconds} s`;
  if (seconds < 3600) return `next attempt in ${Math.round(seconds / 60)} min`;
  return `next attempt at ${formatDateTime(iso)}`;
}

/** Counts down while a retry waits; re-renders itself every second, not the whole log. */
function NextAttempt({ iso }: { iso: string }) {
  const now = useNow(1000);
  return (
    <time dateTime={iso} title={formatDateTime(iso)} suppressHydrationWarning>
      {describeNextAttempt(iso, now)}
    </time>
  );
}

/** The delivery's state, with when it retries next or why it was cancelled. */
export function DeliveryStateBadge({
  delivery,
}: {
  delivery: Pick<Delivery, 'state' | 'nextAttemptAt' | 'cancelledReason'>;
}) {
  const { label, color } = DELIVERY_STATE_LABELS[delivery.state];
  const reason = delivery.state === 'cancelled' ? describeCancelledReason(delivery.cancelledReason) : null;
  return (
    <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
      <Badge color={color}>{label}</Badge>
      {delivery.state === 'retrying' && delivery.nextAttemptAt ? (
        <span className="text-xs text-amber-800">
          <NextAttempt iso={delivery.nextAttemptAt} />
        </span>
      ) : null}
      {reason ? <span className="text-xs text-zinc-600">{reason}</span> : null}
    </span>
  );
}

/** A button smaller than ui/Button, for actions repeated on every row (Button's padding cannot be overridden). */
export const SMALL_BUTTON =
  'inline-flex items-center justify-center rounded-md bg-white px-2 py-1 text-xs font-medium text-zinc-700 ring-1 ring-inset ring-zinc-300 hover:bg-zinc-50 disabled:cursor-not-allowed disabled:text-zinc-400';

/** A small copy button for inline values (ids), named after what it copies. */
export function InlineCopyButton({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className={SMALL_BUTTON}
      aria-label={copied ? `${what} copied` : `Copy ${what}`}
      onClick={async () => {
        await navigator.clipboard?.writeText(value).catch(() => {});
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}
