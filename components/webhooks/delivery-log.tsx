'use client';

import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Badge, EmptyState, ErrorMessage, Loading } from '../ui/card';
import { RelativeTime, useNow } from '../ui/relative-time';
import { describeFailure, type DeliveryAttempt } from './webhook-shared';

type Filter = 'all' | 'failed' | 'succeeded';

const FILTERS: { value: Filter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'failed', label: 'Failed' },
  { value: 'succeeded', label: 'Succeeded' },
];

const EMPTY: Record<Filter, string> = {
  all: 'No delivery attempts yet',
  failed: 'No failed attempts',
  succeeded: 'No successful attempts',
};

const COLUMNS = ['Event', 'Attempt', 'Status', 'Result', 'Error', 'Duration', 'Time'];

/** The endpoint's attempts, newest first, refreshed while the page is open. */
export function DeliveryLog({
  endpointId,
  active,
  refetchInterval,
}: {
  endpointId: string;
  active: boolean;
  refetchInterval: number;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const now = useNow(15_000);
  const [filter, setFilter] = useState<Filter>('all');
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [resent, setResent] = useState<Record<string, string>>({});

  const log = useInfiniteQuery(
    trpc.webhooks.deliveries.infiniteQueryOptions(
      { id: endpointId, status: filter, limit: 25 },
      { getNextPageParam: (page) => page.nextCursor, refetchInterval },
    ),
  );

  const resend = useMutation(
    trpc.webhooks.resend.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter());
      },
    }),
  );

  function toggle(id: string) {
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  function resendAttempt(attempt: DeliveryAttempt) {
    setResent((r) => ({ ...r, [attempt.id]: 'Queuing…' }));
    resend.mutate(
      { deliveryId: attempt.deliveryId },
      {
        onSuccess: () => setResent((r) => ({ ...r, [attempt.id]: 'Resend queued' })),
        onError: (err) => setResent((r) => ({ ...r, [attempt.id]: err.message })),
      },
    );
  }

  const items = log.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <section aria-labelledby="delivery-log-heading" className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2 id="delivery-log-heading" className="text-base font-semibold">
            Delivery log
          </h2>
          <p className="text-xs text-zinc-500">
            Every attempt, newest first. Updates every {Math.round(refetchInterval / 1000)} seconds while this
            page is open.
          </p>
        </div>
        <fieldset
          aria-label="Show attempts"
          className="inline-flex min-w-0 rounded-md shadow-sm ring-1 ring-inset ring-zinc-300"
        >
          {FILTERS.map((f, i) => (
            <button
              key={f.value}
              type="button"
              data-testid={`filter-${f.value}`}
              aria-pressed={filter === f.value}
              onClick={() => setFilter(f.value)}
              className={`px-3 py-1.5 text-sm font-medium focus-visible:relative focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                i === 0 ? 'rounded-l-md' : ''
              } ${i === FILTERS.length - 1 ? 'rounded-r-md' : 'border-r border-zinc-300'} ${
                filter === f.value ? 'bg-zinc-900 text-white' : 'bg-white text-zinc-700 hover:bg-zinc-50'
              }`}
            >
              {f.label}
            </button>
          ))}
        </fieldset>
      </div>

      {log.isPending ? (
        <Loading label="Loading deliveries…" />
      ) : log.isError ? (
        <ErrorMessage error={log.error} />
      ) : items.length === 0 ? (
        <EmptyState title={EMPTY[filter]}>
          {filter === 'all' ? <p>Send a test event: its attempt appears here within a few seconds.</p> : null}
        </EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg bg-white shadow-sm ring-1 ring-zinc-200">
          <table className="min-w-full text-left text-sm">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-xs uppercase tracking-wide text-zinc-500">
              <tr>
                <th scope="col" className="w-10 px-3 py-2">
                  <span className="sr-only">Details</span>
                </th>
                {COLUMNS.map((c) => (
                  <th key={c} scope="col" className="whitespace-nowrap px-3 py-2 font-medium">
                    {c}
                  </th>
                ))}
                <th scope="col" className="px-3 py-2">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-200">
              {items.map((a) => {
                const open = expanded.has(a.id);
                const detailsId = `attempt-${a.id}`;
                return (
                  <Fragment key={a.id}>
                    <tr
                      data-testid="delivery-row"
                      data-success={String(a.success)}
                      data-attempt={a.attempt}
                      data-delivery-id={a.deliveryId}
                    >
                      <td className="px-3 py-2">
                        <button
                          type="button"
                          aria-expanded={open}
                          aria-controls={open ? detailsId : undefined}
                          aria-label={`${open ? 'Hide' : 'Show'} details of ${a.event} attempt ${a.attempt}`}
                          onClick={() => toggle(a.id)}
                          className="flex size-7 items-center justify-center rounded-md text-zinc-600 hover:bg-zinc-100"
                        >
                          <svg
                            viewBox="0 0 12 12"
                            aria-hidden="true"
                            className={`size-3 transition-transform ${open ? 'rotate-90' : ''}`}
                          >
                            <path
                              d="M4 2l4 4-4 4"
                              fill="none"
                              stroke="currentColor"
                              strokeWidth="1.8"
                              strokeLinecap="round"
                              strokeLinejoin="round"
                            />
                          </svg>
                        </button>
                      </td>
                      <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">{a.event}</td>
                      <td className="px-3 py-2 tabular-nums">{a.attempt}</td>
                      <td className="px-3 py-2 tabular-nums">{a.statusCode ?? '—'}</td>
                      <td className="px-3 py-2">
                        <Badge color={a.success ? 'green' : 'red'}>
                          {a.success ? 'Succeeded' : 'Failed'}
                        </Badge>
                      </td>
                      <td className="max-w-64 px-3 py-2 text-zinc-600">
                        {a.success ? '' : describeFailure(a)}
                      </td>
                      <td className="whitespace-nowrap px-3 py-2 tabular-nums text-zinc-600">
                        {a.durationMs} ms
                      </td>
                      <td className="whitespace-nowrap px-3 py-2 text-zinc-600">
                        <RelativeTime iso={a.createdAt} now={now} />
                      </td>
                      <td className="whitespace-nowrap px-3 py-2 text-right">
                        <div className="flex items-center justify-end gap-2">
                          {resent[a.id] ? (
                            <span role="status" className="text-xs text-zinc-500">
                              {resent[a.id]}
                            </span>
                          ) : null}
                          <Button
                            variant="secondary"
                            className="px-2 py-1 text-xs"
                            data-testid="resend-delivery"
                            disabled={
                              !active || (resend.isPending && resend.variables?.deliveryId === a.deliveryId)
                            }
                            title={
                              active
                                ? 'Send this payload again as a new delivery'
                                : 'Re-enable the endpoint to resend'
                            }
                            onClick={() => resendAttempt(a)}
                          >
                            Resend
                          </Button>
                        </div>
                      </td>
                    </tr>
                    {open ? (
                      <tr id={detailsId} className="bg-zinc-50">
                        <td colSpan={COLUMNS.length + 2} className="px-3 py-3">
                          <AttemptDetails attempt={a} />
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      {log.hasNextPage ? (
        <Button
          variant="secondary"
          onClick={() => void log.fetchNextPage()}
          disabled={log.isFetchingNextPage}
        >
          {log.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </Button>
      ) : null}
    </section>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function AttemptDetails({ attempt }: { attempt: DeliveryAttempt }) {
  const headers = Object.entries(attempt.requestHeaders)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  return (
    <div className="grid min-w-0 gap-4 lg:grid-cols-2">
      <CodeBlock title="Payload" text={prettyJson(attempt.payload)} className="lg:row-span-2" />
      <CodeBlock title="Request headers" text={headers || 'No headers recorded'} />
      <CodeBlock
        title={attempt.statusCode === null ? 'Response body' : `Response body (HTTP ${attempt.statusCode})`}
        text={
          attempt.responseBody
            ? attempt.responseBody
            : attempt.statusCode === null
              ? 'No response was received'
              : 'Empty body'
        }
      />
      <p className="text-xs text-zinc-500 lg:col-span-2">
        Delivery <span className="font-mono">{attempt.deliveryId}</span>
      </p>
    </div>
  );
}

function CodeBlock({ title, text, className = '' }: { title: string; text: string; className?: string }) {
  return (
    <div className={`min-w-0 ${className}`}>
      <p className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">{title}</p>
      <section
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the block scrolls on its own; keyboard users must be able to focus it to scroll it (WCAG 2.1.1, axe scrollable-region-focusable)
        tabIndex={0}
        aria-label={title}
        className="max-h-80 max-w-[calc(100vw-4rem)] overflow-auto rounded-md bg-white p-3 ring-1 ring-zinc-200"
      >
        <pre className="whitespace-pre font-mono text-xs text-zinc-800">{text}</pre>
      </section>
    </div>
  );
}
