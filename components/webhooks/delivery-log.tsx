'use client';

import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { type FormEvent, Suspense, useEffect, useState } from 'react';
import { isUuid, WEBHOOK_EVENTS, type WebhookEvent } from '@/server/domain';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Badge, EmptyState, ErrorMessage, Loading } from '../ui/card';
import { friendlyMessage } from '../ui/friendly-error';
import { SelectField, TextField } from '../ui/field';
import { RelativeTime, useNow } from '../ui/relative-time';
import { useToast } from '../ui/toast';
import { DeliveryDetails } from './delivery-details';
import {
  DELIVERY_STATE_LABELS,
  DELIVERY_STATES,
  type Delivery,
  type DeliveryState,
  DeliveryStateBadge,
  describeFailure,
  InlineCopyButton,
  isDeliveryState,
  isWebhookEvent,
  MAX_DELIVERY_ATTEMPTS,
  SMALL_BUTTON,
  shortId,
} from './webhook-shared';

const PAGE_SIZE = 25;
const HOUR = 3_600_000;
/** How long typing in the lookup waits before it asks the server. */
const LOOKUP_DELAY_MS = 300;
const LOOKUP_MAX = 100;

const RANGES = {
  all: { label: 'All time', ms: null },
  '1h': { label: 'Last hour', ms: HOUR },
  '24h': { label: 'Last 24 hours', ms: 24 * HOUR },
  '7d': { label: 'Last 7 days', ms: 7 * 24 * HOUR },
} as const satisfies Record<string, { label: string; ms: number | null }>;
type Range = keyof typeof RANGES;
const isRange = (value: string | null): value is Range => value !== null && Object.hasOwn(RANGES, value);

interface Filters {
  state: 'all' | DeliveryState;
  event: 'all' | WebhookEvent;
  range: Range;
  /** The start of the range, fixed when the range is chosen so the query's key stays put. */
  since: string | null;
  /** A delivery id or a note id, as applied (the input's text settles first). */
  lookup: string;
}

const sinceOf = (range: Range): string | null => {
  const ms = RANGES[range].ms;
  return ms === null ? null : new Date(Date.now() - ms).toISOString();
};

/** The filters the page was opened with (?state=&event=&range=&lookup=), ignoring unknown values. */
function filtersFrom(params: URLSearchParams | null): Filters {
  const state = params?.get('state') ?? null;
  const event = params?.get('event') ?? null;
  const range = params?.get('range') ?? null;
  const validRange = isRange(range) ? range : 'all';
  return {
    state: isDeliveryState(state) ? state : 'all',
    event: isWebhookEvent(event) ? event : 'all',
    range: validRange,
    since: sinceOf(validRange),
    lookup: (params?.get('lookup') ?? '').trim().slice(0, LOOKUP_MAX),
  };
}

/** Mirrors the filters into the address, so a reload or a shared link shows the same deliveries. */
function useFiltersInUrl(filters: Filters) {
  useEffect(() => {
    const url = new URL(window.location.href);
    const wanted: Record<string, string | null> = {
      state: filters.state === 'all' ? null : filters.state,
      event: filters.event === 'all' ? null : filters.event,
      range: filters.range === 'all' ? null : filters.range,
      lookup: filters.lookup || null,
    };
    for (const [name, value] of Object.entries(wanted)) {
      if (value === null) url.searchParams.delete(name);
      else url.searchParams.set(name, value);
    }
    // Next's router follows history.replaceState without fetching the page again.
    if (url.href !== window.location.href) window.history.replaceState(null, '', url);
  }, [filters.state, filters.event, filters.range, filters.lookup]);
}

/** The endpoint's deliveries (one per event), newest first, filtered, refreshed while the page is open. */
export function DeliveryLog(props: { endpointId: string; active: boolean; refetchInterval: number }) {
  // useSearchParams needs a boundary of its own when a page is rendered ahead of a request.
  return (
    <Suspense fallback={<Loading label="Loading deliveries…" />}>
      <DeliveryLogWithFilters {...props} />
    </Suspense>
  );
}

function DeliveryLogWithFilters({
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
  const params = useSearchParams();
  const now = useNow(15_000);
  const [filters, setFilters] = useState<Filters>(() => filtersFrom(params));
  const [lookupDraft, setLookupDraft] = useState(filters.lookup);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [resendStatus, setResendStatus] = useState<Record<string, string>>({});
  useFiltersInUrl(filters);

  const draft = lookupDraft.trim();
  useEffect(() => {
    if (draft === filters.lookup) return;
    const timer = setTimeout(() => setFilters((f) => ({ ...f, lookup: draft })), LOOKUP_DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft, filters.lookup]);

  const log = useInfiniteQuery(
    trpc.webhooks.deliveries.infiniteQueryOptions(
      {
        id: endpointId,
        state: filters.state,
        limit: PAGE_SIZE,
        ...(filters.event !== 'all' && { event: filters.event }),
        ...(filters.since && { since: filters.since }),
        ...(filters.lookup && { lookup: filters.lookup }),
      },
      {
        getNextPageParam: (page) => page.nextCursor,
        refetchInterval,
        // A new filter keeps the old rows on screen (dimmed) until its own arrive.
        placeholderData: keepPreviousData,
      },
    ),
  );

  const toast = useToast();
  const resend = useMutation(
    trpc.webhooks.resend.mutationOptions({
      onSettled: () => queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter()),
    }),
  );

  function update(change: Partial<Filters>) {
    setFilters((f) => ({ ...f, ...change }));
  }

  function clearFilters() {
    setLookupDraft('');
    setFilters(filtersFrom(null));
  }

  function applyLookup(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    update({ lookup: draft });
  }

  function showDelivery(id: string) {
    setLookupDraft(id);
    setFilters({ ...filtersFrom(null), lookup: id });
  }

  function toggle(id: string) {
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  function resendDelivery(delivery: Delivery) {
    setResendStatus((s) => ({ ...s, [delivery.id]: 'Queuing…' }));
    resend.mutate(
      { deliveryId: delivery.id },
      {
        onSuccess: ({ deliveryId }) => {
          setResendStatus((s) => ({ ...s, [delivery.id]: `Resend queued as ${shortId(deliveryId)}` }));
          toast(`Resend queued as ${shortId(deliveryId)}`);
        },
        onError: (err) => {
          setResendStatus((s) => ({ ...s, [delivery.id]: friendlyMessage(err) }));
          toast(`Resend failed: ${friendlyMessage(err)}`, 'error');
        },
      },
    );
  }

  const items = log.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = filters.state !== 'all' || filters.event !== 'all' || filters.range !== 'all';

  return (
    <section aria-labelledby="delivery-log-heading" className="min-w-0 space-y-4">
      <div>
        <h2 id="delivery-log-heading" className="text-base font-semibold">
          Delivery log
        </h2>
        <p className="text-xs text-zinc-500">
          One delivery per event, newest first, with every attempt inside. Updates every{' '}
          {Math.round(refetchInterval / 1000)} seconds while this page is open.
        </p>
      </div>

      <search aria-label="Filter deliveries">
        <form
          onSubmit={applyLookup}
          className="grid gap-3 rounded-lg bg-white p-4 shadow-sm ring-1 ring-zinc-200 sm:grid-cols-2 lg:grid-cols-4"
        >
          <SelectField
            label="State"
            data-testid="delivery-state-filter"
            value={filters.state}
            onChange={(e) => update({ state: isDeliveryState(e.target.value) ? e.target.value : 'all' })}
          >
            <option value="all">All states</option>
            {DELIVERY_STATES.map((s) => (
              <option key={s} value={s}>
                {DELIVERY_STATE_LABELS[s].label}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Event"
            data-testid="delivery-event-filter"
            value={filters.event}
            onChange={(e) => update({ event: isWebhookEvent(e.target.value) ? e.target.value : 'all' })}
          >
            <option value="all">All events</option>
            {WEBHOOK_EVENTS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Created"
            data-testid="delivery-range-filter"
            value={filters.range}
            onChange={(e) => {
              const range = isRange(e.target.value) ? e.target.value : 'all';
              update({ range, since: sinceOf(range) });
            }}
          >
            {Object.entries(RANGES).map(([value, { label }]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
          <TextField
            label="Delivery id or note id"
            data-testid="delivery-lookup"
            type="search"
            value={lookupDraft}
            onChange={(e) => setLookupDraft(e.target.value)}
            maxLength={LOOKUP_MAX}
            placeholder="e.g. 3f2a…"
            autoComplete="off"
            spellCheck={false}
            enterKeyHint="search"
          />
        </form>
      </search>

      {log.isPending ? (
        <Loading label="Loading deliveries…" />
      ) : log.isError && items.length === 0 ? (
        <ErrorMessage error={log.error} onRetry={() => log.refetch()} retrying={log.isFetching} />
      ) : items.length === 0 ? (
        <NoDeliveries lookup={filters.lookup} filtered={filtered} onClear={clearFilters} />
      ) : (
        <>
          {log.isError ? (
            <ErrorMessage
              error={log.error}
              onRetry={() => (log.isFetchNextPageError ? log.fetchNextPage() : log.refetch())}
              retrying={log.isFetching}
            />
          ) : null}
          <ul
            aria-label="Deliveries"
            aria-busy={log.isPlaceholderData}
            className={`min-w-0 divide-y divide-zinc-200 rounded-lg bg-white shadow-sm ring-1 ring-zinc-200 transition-opacity ${
              log.isPlaceholderData ? 'opacity-60' : ''
            }`}
          >
            {items.map((d) => (
              <DeliveryRow
                key={d.id}
                delivery={d}
                now={now}
                open={expanded.has(d.id)}
                onToggle={() => toggle(d.id)}
                active={active}
                resending={resend.isPending && resend.variables?.deliveryId === d.id}
                resendStatus={resendStatus[d.id]}
                onResend={() => resendDelivery(d)}
                onShowDelivery={showDelivery}
                refetchInterval={refetchInterval}
              />
            ))}
          </ul>
        </>
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

function NoDeliveries({ lookup, filtered, onClear }: { lookup: string; filtered: boolean; onClear(): void }) {
  if (lookup) {
    return (
      <EmptyState title="No delivery matches">
        <p>
          {isUuid(lookup)
            ? `No delivery of this endpoint has the id ${lookup} or is about the note with that id${filtered ? ' among the filtered ones' : ''}.`
            : 'Enter a whole delivery id or note id, e.g. 3f2a9c4e-…'}
        </p>
        <Button variant="secondary" className="mt-3" onClick={onClear}>
          Clear filters
        </Button>
      </EmptyState>
    );
  }
  if (filtered) {
    return (
      <EmptyState title="No deliveries match these filters">
        <Button variant="secondary" className="mt-3" onClick={onClear}>
          Clear filters
        </Button>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No deliveries yet">
      <p>Send a test event: its delivery appears here within a few seconds.</p>
    </EmptyState>
  );
}

function DeliveryRow({
  delivery: d,
  now,
  open,
  onToggle,
  active,
  resending,
  resendStatus,
  onResend,
  onShowDelivery,
  refetchInterval,
}: {
  delivery: Delivery;
  now: number;
  open: boolean;
  onToggle(): void;
  active: boolean;
  resending: boolean;
  resendStatus: string | undefined;
  onResend(): void;
  onShowDelivery(id: string): void;
  refetchInterval: number;
}) {
  const detailsId = `delivery-details-${d.id}`;
  const lastStatus =
    d.lastAttemptAt === null ? '—' : describeFailure({ statusCode: d.lastStatusCode, error: d.lastError });
  // Only a succeeded delivery ended on a successful attempt; any other with attempts ended on a failure.
  const lastFailed = d.lastAttemptAt !== null && d.state !== 'succeeded';
  return (
    <li
      data-testid="delivery-row"
      data-state={d.state}
      data-delivery-id={d.id}
      className="min-w-0 p-4 sm:px-5"
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={open ? detailsId : undefined}
          aria-label={`${d.event} delivery ${shortId(d.id)}, details`}
          onClick={onToggle}
          className="-ml-1 flex min-w-0 items-center gap-2 rounded-md px-1 py-0.5 text-left hover:bg-zinc-100"
        >
          <svg
            viewBox="0 0 12 12"
            aria-hidden="true"
            className={`size-3 shrink-0 text-zinc-500 transition-transform ${open ? 'rotate-90' : ''}`}
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
          <span className="break-all font-mono text-sm font-medium text-zinc-900">{d.event}</span>
        </button>
        {d.test ? <Badge color="indigo">test</Badge> : null}
        <span data-testid="delivery-state">
          <DeliveryStateBadge delivery={d} />
        </span>
        {active ? (
          <span className="flex grow flex-wrap items-center justify-end gap-2">
            {resendStatus ? (
              <span role="status" className="text-xs text-zinc-600">
                {resendStatus}
              </span>
            ) : null}
            <button
              type="button"
              data-testid="resend-delivery"
              className={SMALL_BUTTON}
              aria-label={`Resend delivery ${shortId(d.id)}`}
              title="Send this payload again as a new delivery"
              disabled={resending}
              onClick={onResend}
            >
              {resending ? 'Resending…' : 'Resend'}
            </button>
          </span>
        ) : null}
      </div>

      <dl className="mt-2 flex min-w-0 flex-wrap items-center gap-x-5 gap-y-1 text-xs text-zinc-600">
        <div className="flex gap-1">
          <dt>Attempts</dt>
          <dd className="tabular-nums text-zinc-900">
            {d.attempts} of {MAX_DELIVERY_ATTEMPTS}
          </dd>
        </div>
        <div className="flex min-w-0 gap-1">
          <dt className="shrink-0">Last status</dt>
          <dd className={`min-w-0 break-words ${lastFailed ? 'text-red-700' : 'text-zinc-900'}`}>
            {lastStatus}
          </dd>
        </div>
        <div className="flex gap-1">
          <dt>Created</dt>
          <dd className="text-zinc-900">
            <RelativeTime iso={d.createdAt} now={now} />
          </dd>
        </div>
        <div className="flex items-center gap-1">
          <dt>ID</dt>
          <dd className="flex items-center gap-1">
            <code className="font-mono text-zinc-900" title={d.id}>
              {shortId(d.id)}
            </code>
            <InlineCopyButton value={d.id} what={`delivery id ${shortId(d.id)}`} />
          </dd>
        </div>
        {d.resentAs ? (
          <div className="flex items-center gap-1">
            <dt>Resent as</dt>
            <dd>
              <button
                type="button"
                onClick={() => onShowDelivery(d.resentAs ?? '')}
                aria-label={`Resent as ${shortId(d.resentAs)}: show that delivery`}
                className="rounded font-mono text-indigo-700 underline-offset-2 hover:underline"
              >
                {shortId(d.resentAs)}
              </button>
            </dd>
          </div>
        ) : null}
      </dl>

      {open ? (
        <div
          id={detailsId}
          data-testid="delivery-details"
          className="mt-3 min-w-0 rounded-md bg-zinc-50 p-3 sm:p-4"
        >
          <DeliveryDetails deliveryId={d.id} state={d.state} refetchInterval={refetchInterval} />
        </div>
      ) : null}
    </li>
  );
}
