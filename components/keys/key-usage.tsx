import type { KeyUsage } from './api-key';

const BAR_WIDTH = 8;
const BAR_GAP = 3;
const CHART_HEIGHT = 28;

const plural = (n: number, word: string) => `${n.toLocaleString()} ${n === 1 ? word : `${word}s`}`;

/** "Mar 12" for a UTC day (`2026-03-12`), whatever the browser's time zone. */
const dayLabel = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });

/** The chart's text for a screen reader: every day's count, in order, today last. */
export function usageSummary(keyName: string, days: KeyUsage['last7Days']): string {
  const total = days.reduce((n, d) => n + d.requests, 0);
  const each = days.map((d, i) => `${i === days.length - 1 ? 'today' : dayLabel(d.day)} ${d.requests}`);
  return `Requests with key ${keyName} per UTC day over the last 7 days, ${plural(total, 'request')} in all: ${each.join(', ')}`;
}

/**
 * A key's requests today and this minute, and a 7-day bar chart in an SVG
 * that a screen reader reads as one image with every day's count in its label.
 */
export function KeyUsageSummary({ keyName, usage }: { keyName: string; usage: KeyUsage | null }) {
  if (!usage) return <span className="text-zinc-500">No usage yet</span>;
  const days = usage.last7Days;
  const max = Math.max(1, ...days.map((d) => d.requests));
  const width = days.length * BAR_WIDTH + (days.length - 1) * BAR_GAP;
  return (
    <span className="flex items-center justify-end gap-3 lg:justify-start">
      <span className="text-right text-xs leading-5 whitespace-nowrap text-zinc-600 tabular-nums lg:text-left">
        <span className="block">
          <strong data-testid="key-usage-today" className="font-semibold text-zinc-900">
            {usage.today.toLocaleString()}
          </strong>{' '}
          today
        </span>
        <span className="block">
          <strong data-testid="key-usage-minute" className="font-semibold text-zinc-900">
            {usage.thisMinute.toLocaleString()}
          </strong>{' '}
          this minute
        </span>
      </span>
      <svg
        data-testid="key-usage-chart"
        role="img"
        aria-label={usageSummary(keyName, days)}
        width={width}
        height={CHART_HEIGHT}
        viewBox={`0 0 ${width} ${CHART_HEIGHT}`}
        className="shrink-0"
      >
        {days.map((d, i) => {
          // A day without requests keeps a thin line, so the week's seven days stay countable.
          const height = d.requests === 0 ? 2 : Math.max(3, Math.round((d.requests / max) * CHART_HEIGHT));
          return (
            <rect
              key={d.day}
              x={i * (BAR_WIDTH + BAR_GAP)}
              y={CHART_HEIGHT - height}
              width={BAR_WIDTH}
              height={height}
              rx={1.5}
              className={d.requests === 0 ? 'fill-zinc-300' : 'fill-indigo-500'}
            />
          );
        })}
      </svg>
    </span>
  );
}
