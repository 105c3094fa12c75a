'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useTRPC } from '../trpc';
import { EmptyState, ErrorMessage, Loading, PageHeader } from '../ui/card';
import { RelativeTime, useNow } from '../ui/relative-time';
import { AddEndpointDialog } from './add-endpoint-dialog';
import {
  EndpointStatusBadge,
  EventBadges,
  describeFailure,
  type EndpointListItem,
  formatSuccessRate,
} from './webhook-shared';

/** How much of a last error the list shows; the endpoint's page has all of it. */
const ERROR_PREVIEW_CHARS = 60;

/** The endpoints first, with "Add endpoint" as the list's action (the form opens in a dialog). */
export function WebhooksPage({ allowPrivateUrls }: { allowPrivateUrls: boolean }) {
  const trpc = useTRPC();
  // Refreshed now and then so status and last delivery follow the dispatcher without a reload.
  const list = useQuery(trpc.webhooks.list.queryOptions(undefined, { refetchInterval: 15_000 }));
  const now = useNow();

  return (
    <div className="space-y-8">
      <PageHeader
        title="Webhooks"
        description="Meeting Notes POSTs a signed JSON payload to your endpoints when a meeting starts, when its transcript is ready and when its summary is ready."
        actions={<AddEndpointDialog allowPrivateUrls={allowPrivateUrls} />}
      />

      <section aria-labelledby="endpoints-heading" className="space-y-3">
        <h2 id="endpoints-heading" className="text-base font-semibold">
          Endpoints
        </h2>
        {list.isPending ? (
          <Loading label="Loading endpoints…" />
        ) : list.isError ? (
          <ErrorMessage error={list.error} onRetry={() => list.refetch()} retrying={list.isFetching} />
        ) : list.data.length === 0 ? (
          <EmptyState title="No webhook endpoints yet">
            <p>
              A webhook endpoint is a URL on your server. For every event it subscribes to, Meeting Notes
              sends an HTTPS POST with the meeting as JSON, signed with the endpoint&apos;s secret, and
              retries up to 3 times when it fails. Add one with{' '}
              <strong className="font-medium">Add endpoint</strong> to get transcripts and summaries pushed to
              you instead of polling the API.
            </p>
          </EmptyState>
        ) : (
          <ul className="divide-y divide-zinc-200 rounded-lg bg-white shadow-sm ring-1 ring-zinc-200">
            {list.data.map((endpoint) => (
              <EndpointRow key={endpoint.id} endpoint={endpoint} now={now} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function EndpointRow({ endpoint, now }: { endpoint: EndpointListItem; now: number }) {
  const href = `/webhooks/${endpoint.id}`;
  return (
    <li
      data-testid="endpoint-row"
      data-endpoint-id={endpoint.id}
      className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:gap-6 sm:px-6"
    >
      <div className="min-w-0 grow space-y-2">
        <Link
          href={href}
          className="block break-all font-mono text-sm font-medium text-zinc-900 hover:text-indigo-700 hover:underline"
        >
          {endpoint.url}
        </Link>
        {endpoint.description ? (
          <p data-testid="endpoint-description" className="break-words text-sm text-zinc-600">
            {endpoint.description}
          </p>
        ) : null}
        <EventBadges events={endpoint.events} />
        <EndpointHealthSummary health={endpoint.health} now={now} />
      </div>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2 text-sm sm:shrink-0 sm:justify-end">
        <EndpointStatusBadge active={endpoint.active} />
        <p className="text-zinc-600">
          <span className="sr-only">Last delivery: </span>
          <span data-testid="endpoint-last-delivery">
            <LastDelivery last={endpoint.lastDelivery} now={now} />
          </span>
        </p>
        <Link
          href={href}
          aria-label={`Delivery log of ${endpoint.url}`}
          className="rounded-md px-2 py-1 font-medium text-indigo-700 ring-1 ring-inset ring-indigo-200 hover:bg-indigo-50"
        >
          Delivery log
        </Link>
      </div>
    </li>
  );
}

function LastDelivery({ last, now }: { last: EndpointListItem['lastDelivery']; now: number }) {
  if (!last) return <>No deliveries yet</>;
  if (last.success) {
    return (
      <>
        <span className="font-medium text-green-700">{last.statusCode}</span> ·{' '}
        <RelativeTime iso={last.at} now={now} />
      </>
    );
  }
  return (
    <>
      <span className="font-medium text-red-700">Failed: {describeFailure(last)}</span> ·{' '}
      <RelativeTime iso={last.at} now={now} />
    </>
  );
}

function EndpointHealthSummary({ health, now }: { health: EndpointListItem['health']; now: number }) {
  const error = health.lastError ? describeFailure(health.lastError) : null;
  const preview =
    error && error.length > ERROR_PREVIEW_CHARS ? `${error.slice(0, ERROR_PREVIEW_CHARS - 1)}…` : error;
  return (
    <dl data-testid="endpoint-health" className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-600">
      <div className="flex gap-1">
        <dt>Success 24 h</dt>
        <dd data-testid="endpoint-success-day" className="font-medium tabular-nums text-zinc-900">
          {formatSuccessRate(health.day.successRate)}
        </dd>
      </div>
      <div className="flex gap-1">
        <dt>7 d</dt>
        <dd data-testid="endpoint-success-week" className="font-medium tabular-nums text-zinc-900">
          {formatSuccessRate(health.week.successRate)}
        </dd>
      </div>
      {health.lastError ? (
        <div className="flex min-w-0 gap-1">
          <dt className="shrink-0">Last error</dt>
          <dd data-testid="endpoint-last-error" className="min-w-0 break-words">
            <span className="text-red-700" title={error ?? undefined}>
              {preview}
            </span>{' '}
            · <RelativeTime iso={health.lastError.at} now={now} />
          </dd>
        </div>
      ) : null}
    </dl>
  );
}
