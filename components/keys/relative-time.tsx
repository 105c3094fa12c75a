'use client';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];
const WEEK_SECONDS = 7 * 24 * 3600;

/** "5 minutes ago" for the last week, a plain date before that; the exact time is in the tooltip. */
export function describeTime(iso: string, now = Date.now()): { text: string; full: string } {
  const date = new Date(iso);
  const full = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const seconds = Math.round((date.getTime() - now) / 1000);
  if (Math.abs(seconds) >= WEEK_SECONDS)
    return { text: date.toLocaleDateString(undefined, { dateStyle: 'medium' }), full };
  if (Math.abs(seconds) < 60) return { text: 'just now', full };
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const [unit, size] = UNITS.find(([, s]) => Math.abs(seconds) >= s) ?? ['minute', 60];
  return { text: rtf.format(Math.round(seconds / size), unit), full };
}

/** A readable timestamp; relative text depends on the clock, so server and browser may differ by a little. */
export function RelativeTime({ iso }: { iso: string }) {
  const { text, full } = describeTime(iso);
  return (
    <time dateTime={iso} title={full} suppressHydrationWarning>
      {text}
    </time>
  );
}
