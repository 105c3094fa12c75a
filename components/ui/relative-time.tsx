'use client';

import { useEffect, useState } from 'react';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];
const WEEK_SECONDS = 7 * 24 * 3600;

/** The exact moment, e.g. "12 Mar 2026, 14:05" in the browser's locale. */
export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** "5 minutes ago" for the last week, a plain date before that; `full` is the exact moment. */
export function describeTime(iso: string, now = Date.now()): { text: string; full: string } {
  const date = new Date(iso);
  const full = formatDateTime(iso);
  const seconds = Math.round((date.getTime() - now) / 1000);
  if (Math.abs(seconds) >= WEEK_SECONDS)
    return { text: date.toLocaleDateString(undefined, { dateStyle: 'medium' }), full };
  if (Math.abs(seconds) < 60) return { text: 'just now', full };
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const [unit, size] = UNITS.find(([, s]) => Math.abs(seconds) >= s) ?? ['minute', 60];
  return { text: rtf.format(Math.round(seconds / size), unit), full };
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

/**
 * A readable timestamp with the exact moment in its title and datetime attribute. Pass `now`
 * (from useNow) to keep it current on a page that stays open; without it the time of rendering
 * is used. Relative text depends on the clock, so server and browser may differ by a little.
 */
export function RelativeTime({ iso, now }: { iso: string; now?: number }) {
  const { text, full } = describeTime(iso, now);
  return (
    <time dateTime={iso} title={full} suppressHydrationWarning>
      {text}
    </time>
  );
}
