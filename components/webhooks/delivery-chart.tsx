'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Tooltip, type TooltipContentProps, XAxis, YAxis } from 'recharts';
import { useTRPC } from '../trpc';
import { ErrorMessage } from '../ui/card';
import { RelativeTime, useNow } from '../ui/relative-time';
import {
  type AttemptTally,
  describeFailure,
  type EndpointHealth,
  formatSuccessRate,
  InlineCopyButton,
  shortId,
} from './webhook-shared';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CHART_HEIGHT = 200;

// The palette's own colours (Tailwind's theme variables), as the legend's swatches use them.
const SUCCEEDED_FILL = 'var(--color-green-500)';
const FAILED_FILL = 'var(--color-red-500)';
const AXIS_TEXT = 'var(--color-zinc-500)';
const GRID_LINE = 'var(--color-zinc-200)';

type Period = 'day' | 'week';

const PERIODS: Record<Period, { label: string; bucket: string; span: string; size: number }> = {
  day: { label: '24 hours', bucket: 'hour', span: 'the last 24 hours', size: HOUR },
  week: { label: '7 days', bucket: 'day', span: 'the last 7 days', size: DAY },
};

interface Point {
  /** The middle of the bucket: where its bar stands on the time axis. */
  t: number;
  start: number;
  end: number;
  succeeded: number;
  failed: number;
}

const toPoints = (buckets: EndpointHealth['hourly'], size: number): Point[] =>
  buckets.map((b) => {
    const start = Date.parse(b.start);
    return { t: start + size / 2, start, end: start + size, succeeded: b.succeeded, failed: b.failed };
  });

const timeOfDay = (ms: number) =>
  new Date(ms).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
const dayOfMonth = (ms: number) =>
  new Date(ms).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
const dayAndTime = (ms: number) =>
  new Date(ms).toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  });

/**
 * Ticks on round local times inside the buckets' span: every 6 hours for the day, every
 * midnight for the week. The buckets end at the moment of the request, not on the hour.
 */
function ticksFor(period: Period, from: number, to: number): number[] {
  const tick = new Date(from);
  tick.setMinutes(0, 0, 0);
  if (period === 'week') tick.setHours(0);
  const ticks: number[] = [];
  while (tick.getTime() <= to) {
    const ms = tick.getTime();
    if (ms >= from && (period === 'week' || tick.getHours() % 6 === 0)) ticks.push(ms);
    if (period === 'week') tick.setDate(tick.getDate() + 1);
    else tick.setHours(tick.getHours() + 1);
  }
  return ticks;
}

const tickLabel = (period: Period) => (ms: number) =>
  period === 'week' || new Date(ms).getHours() === 0 ? dayOfMonth(ms) : timeOfDay(ms);

const bucketLabel = (period: Period, p: Point) =>
  period === 'week'
    ? `${dayAndTime(p.start)} – ${dayAndTime(p.end)}`
    : `${dayAndTime(p.start)} – ${timeOfDay(p.end)}`;

const plural = (n: number, word: string) => `${n.toLocaleString()} ${n === 1 ? word : `${word}s`}`;

/** The endpoint's health: success rates over 24 hours and 7 days, its last error, attempts over time. */
export function DeliveryChart({
  endpointId,
  refetchInterval,
}: {
  endpointId: string;
  refetchInterval: number;
}) {
  const trpc = useTRPC();
  const health = useQuery(trpc.webhooks.health.queryOptions({ id: endpointId }, { refetchInterval }));
  const [period, setPeriod] = useState<Period>('day');

  if (health.isPending)
    return <div className="h-64 w-full animate-pulse rounded bg-zinc-100" aria-hidden="true" />;
  if (health.isError)
    return (
      <ErrorMessage error={health.error} onRetry={() => health.refetch()} retrying={health.isFetching} />
    );
  const h = health.data;

  return (
    <div className="min-w-0 space-y-5">
      <dl className="grid gap-4 sm:grid-cols-3">
        <Rate testId="health-day" title="Success rate, 24 hours" tally={h.day} />
        <Rate testId="health-week" title="Success rate, 7 days" tally={h.week} />
        <LastError lastError={h.lastError} />
      </dl>
      {h.week.attempts === 0 ? (
        <p
          data-testid="delivery-chart-summary"
          className="rounded-lg border border-dashed border-zinc-300 p-8 text-center text-sm text-zinc-600"
        >
          No attempts in the last 7 days
        </p>
      ) : (
        <AttemptsChart
          period={period}
          onPeriod={setPeriod}
          points={period === 'day' ? toPoints(h.hourly, HOUR) : toPoints(h.daily, DAY)}
        />
      )}
    </div>
  );
}

function Rate({ testId, title, tally }: { testId: string; title: string; tally: AttemptTally }) {
  const failed = tally.attempts - tally.succeeded;
  return (
    <div data-testid={testId} className="min-w-0">
      <dt className="text-xs font-medium uppercase tracking-wide text-zinc-500">{title}</dt>
      <dd className="mt-1">
        <span className="text-2xl font-semibold tabular-nums text-zinc-900">
          {formatSuccessRate(tally.successRate)}
        </span>
        <span className="block text-sm text-zinc-600">
          {tally.attempts === 0
            ? 'No attempts'
            : `${plural(tally.attempts, 'attempt')}${failed > 0 ? `, ${failed.toLocaleString()} failed` : ''}`}
        </span>
      </dd>
    </div>
  );
}

function LastError({ lastError }: { lastError: EndpointHealth['lastError'] }) {
  const now = useNow();
  return (
    <div data-testid="health-last-error" className="min-w-0">
      <dt className="text-xs font-medium uppercase tracking-wide text-zinc-500">Last error</dt>
      <dd className="mt-1 text-sm">
        {lastError ? (
          <>
            <span className="block break-words font-medium text-red-700">{describeFailure(lastError)}</span>
            <span className="block text-zinc-600">
              <RelativeTime iso={lastError.at} now={now} />
            </span>
            <span className="flex items-center gap-1 text-xs text-zinc-600">
              Delivery{' '}
              <code className="font-mono text-zinc-900" title={lastError.deliveryId}>
                {shortId(lastError.deliveryId)}
              </code>
              <InlineCopyButton
                value={lastError.deliveryId}
                what={`delivery id ${shortId(lastError.deliveryId)}`}
              />
            </span>
          </>
        ) : (
          <span className="text-zinc-600">None</span>
        )}
      </dd>
    </div>
  );
}

function AttemptsChart({
  period,
  onPeriod,
  points,
}: {
  period: Period;
  onPeriod(period: Period): void;
  points: Point[];
}) {
  const summaryId = useId();
  const { bucket, span } = PERIODS[period];
  const succeeded = points.reduce((n, p) => n + p.succeeded, 0);
  const failed = points.reduce((n, p) => n + p.failed, 0);
  const from = points[0]?.start ?? 0;
  const to = points.at(-1)?.end ?? 0;
  const summary =
    succeeded + failed === 0
      ? `No attempts in ${span}`
      : `${plural(succeeded + failed, 'attempt')} in ${span}: ${succeeded.toLocaleString()} succeeded, ${failed.toLocaleString()} failed`;

  return (
    <div className="min-w-0 space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h3 className="text-sm font-medium text-zinc-900">Attempts per {bucket}</h3>
        <fieldset
          aria-label="Chart period"
          className="inline-flex min-w-0 rounded-md shadow-sm ring-1 ring-inset ring-zinc-300"
        >
          {(Object.keys(PERIODS) as Period[]).map((p, i) => (
            <button
              key={p}
              type="button"
              data-testid={`delivery-chart-${p}`}
              aria-pressed={period === p}
              onClick={() => onPeriod(p)}
              className={`px-3 py-1.5 text-sm font-medium focus-visible:relative ${
                i === 0 ? 'rounded-l-md border-r border-zinc-300' : 'rounded-r-md'
              } ${
                // zinc-50 on zinc-900, not white: dark mode turns both around (app/globals.css),
                // where white text stays white and would sit on a near-white background.
                period === p ? 'bg-zinc-900 text-zinc-50' : 'bg-white text-zinc-700 hover:bg-zinc-50'
              }`}
            >
              {PERIODS[p].label}
            </button>
          ))}
        </fieldset>
      </div>

      <figure className="min-w-0 space-y-2">
        <figcaption id={summaryId} data-testid="delivery-chart-summary" className="text-sm text-zinc-600">
          {summary}
        </figcaption>
        <div data-testid="delivery-chart" className="min-w-0">
          <BarChart
            responsive
            style={{ width: '100%', height: CHART_HEIGHT }}
            data={points}
            margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
            barCategoryGap="15%"
            accessibilityLayer={false}
            role="img"
            aria-label={`Bar chart of attempts per ${bucket} over ${span}, succeeded and failed`}
            aria-describedby={summaryId}
          >
            <CartesianGrid vertical={false} stroke={GRID_LINE} />
            <XAxis
              dataKey="t"
              type="number"
              scale="time"
              domain={[from, to]}
              ticks={ticksFor(period, from, to)}
              tickFormatter={tickLabel(period)}
              tick={{ fill: AXIS_TEXT, fontSize: 12 }}
              stroke={GRID_LINE}
              minTickGap={8}
            />
            <YAxis
              allowDecimals={false}
              width={32}
              tick={{ fill: AXIS_TEXT, fontSize: 12 }}
              stroke={GRID_LINE}
            />
            <Tooltip
              cursor={{ fill: 'var(--color-zinc-100)' }}
              isAnimationActive={false}
              content={(props) => <BucketTooltip {...props} period={period} />}
            />
            <Bar
              dataKey="succeeded"
              name="Succeeded"
              stackId="attempts"
              fill={SUCCEEDED_FILL}
              isAnimationActive={false}
            />
            <Bar
              dataKey="failed"
              name="Failed"
              stackId="attempts"
              fill={FAILED_FILL}
              isAnimationActive={false}
            />
          </BarChart>
        </div>

        <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-zinc-600" aria-hidden="true">
          <span className="inline-flex items-center gap-1.5">
            <span className="size-2.5 rounded-sm bg-green-500" /> Succeeded
          </span>
          <span className="inline-flex items-center gap-1.5">
            <span className="size-2.5 rounded-sm bg-red-500" /> Failed
          </span>
        </div>
      </figure>

      <details className="text-sm">
        <summary className="cursor-pointer rounded text-indigo-700 hover:underline">Show the numbers</summary>
        <table className="mt-2 w-full text-left text-sm tabular-nums">
          <caption className="sr-only">
            Attempts per {bucket} over {span}
          </caption>
          <thead className="text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th scope="col" className="py-1 pr-3 font-medium">
                {period === 'day' ? 'Hour' : 'Day'}
              </th>
              <th scope="col" className="py-1 pr-3 text-right font-medium">
                Succeeded
              </th>
              <th scope="col" className="py-1 text-right font-medium">
                Failed
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {points.map((p) => (
              <tr key={p.start}>
                <th scope="row" className="py-1 pr-3 font-normal text-zinc-700">
                  {bucketLabel(period, p)}
                </th>
                <td className="py-1 pr-3 text-right">{p.succeeded}</td>
                <td className="py-1 text-right">{p.failed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}

function BucketTooltip({ active, payload, period }: Partial<TooltipContentProps> & { period: Period }) {
  const point = payload?.[0]?.payload as Point | undefined;
  if (!active || !point) return null;
  return (
    <div className="rounded-md bg-white px-3 py-2 text-xs shadow-md ring-1 ring-zinc-200">
      <p className="font-medium text-zinc-900">{bucketLabel(period, point)}</p>
      <p className="text-green-700">{plural(point.succeeded, 'succeeded attempt')}</p>
      <p className="text-red-700">{plural(point.failed, 'failed attempt')}</p>
    </div>
  );
}
