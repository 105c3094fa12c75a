import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';

/** One fixed window of one counter: which bucket, how many requests it allows, when it resets. */
export interface RateLimitWindow {
  bucket: string;
  limit: number;
  start: Date;
  end: Date;
  /** For messages, e.g. "100 requests per minute for this key". */
  description?: string;
  /** Counters of this bucket from this start on are kept when a new window opens (default: `start`). */
  keepFrom?: Date;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
  /** Whole seconds until then, at least 1 (the Retry-After header). */
  retryAfter: number;
  /** The window these figures describe: the one that refused the request, if one did. */
  window: RateLimitWindow;
}

/**
 * Counts one request against the window in a single statement. The conditional upsert makes
 * the check and the increment one atomic step, so concurrent requests on any number of
 * instances never let more than `limit` through, and a refused request is not counted.
 */
export async function consumeRateLimit(
  db: Queryable,
  window: RateLimitWindow,
  now = new Date(),
): Promise<RateLimitResult> {
  const rows = await queryRows<{ count: number }>(
    db,
    sql`insert into rate_limit_counters (bucket, window_start, count)
        values (${window.bucket}, ${window.start.toISOString()}, 1)
        on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
        where rate_limit_counters.count < ${window.limit}
        returning count`,
  );
  const count = rows[0] ? Number(rows[0].count) : null;
  if (count === 1) await deleteOlderWindows(db, window);
  return rateLimitResult(window, count, now);
}

/**
 * Counts one request against several windows (an account's day and a key's minute) as one
 * step: either every window has room and each counts the request, or none counts it, so a
 * request refused by one window does not use up another. The rows are locked in one order
 * (bucket, then window start), so concurrent requests sharing a window queue on it rather than
 * deadlock. The result describes the window that refused the request (of several, the one that
 * frees up last, so Retry-After is when a retry can pass), otherwise the first window given.
 */
export async function consumeRateLimits(
  db: Queryable,
  windows: RateLimitWindow[],
  now = new Date(),
): Promise<RateLimitResult> {
  const [first, ...others] = windows;
  if (!first) throw new Error('consumeRateLimits needs at least one window');
  if (others.length === 0) return consumeRateLimit(db, first, now);
  const ordered = [...windows].sort((a, b) =>
    a.bucket === b.bucket ? a.start.getTime() - b.start.getTime() : a.bucket < b.bucket ? -1 : 1,
  );
  const key = (bucket: string, start: Date | string) => `${bucket} ${new Date(start).getTime()}`;
  const rowsOf = sql.join(
    ordered.map((w) => sql`(${w.bucket}, ${w.start.toISOString()}::timestamptz)`),
    sql`, `,
  );
  return db.transaction(async (tx) => {
    // An upsert that changes nothing still locks each row (in the order given), and creates the
    // row of a window that has just begun.
    const locked = await queryRows<{ bucket: string; window_start: string | Date; count: number }>(
      tx,
      sql`insert into rate_limit_counters (bucket, window_start, count)
          select bucket, window_start, 0 from (values ${rowsOf}) as w(bucket, window_start)
          on conflict (bucket, window_start) do update set count = rate_limit_counters.count
          returning bucket, window_start, count`,
    );
    const counts = new Map(locked.map((r) => [key(r.bucket, r.window_start), Number(r.count)]));
    const countOf = (w: RateLimitWindow) => counts.get(key(w.bucket, w.start)) ?? 0;
    const refused = windows
      .filter((w) => countOf(w) >= w.limit)
      .sort((a, b) => b.end.getTime() - a.end.getTime());
    if (refused[0]) return rateLimitResult(refused[0], null, now);
    await tx.execute(
      sql`update rate_limit_counters set count = count + 1 where (bucket, window_start) in (${rowsOf})`,
    );
    for (const window of ordered) if (countOf(window) === 0) await deleteOlderWindows(tx, window);
    return rateLimitResult(first, countOf(first) + 1, now);
  });
}

export function rateLimitResult(window: RateLimitWindow, count: number | null, now: Date): RateLimitResult {
  return {
    allowed: count !== null,
    limit: window.limit,
    remaining: count === null ? 0 : Math.max(0, window.limit - count),
    reset: Math.ceil(window.end.getTime() / 1000),
    retryAfter: Math.max(1, Math.ceil((window.end.getTime() - now.getTime()) / 1000)),
    window,
  };
}

/** A new window began for this bucket: its old windows are of no further use. */
async function deleteOlderWindows(db: Queryable, window: RateLimitWindow): Promise<void> {
  await db.execute(
    sql`delete from rate_limit_counters where bucket = ${window.bucket} and window_start < ${(window.keepFrom ?? window.start).toISOString()}`,
  );
}

export function utcDayWindow(bucket: string, limit: number, now: Date): RateLimitWindow {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { bucket, limit, start, end: new Date(start.getTime() + 86_400_000) };
}

export function clockMinuteWindow(bucket: string, limit: number, now: Date): RateLimitWindow {
  const start = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  return { bucket, limit, start, end: new Date(start.getTime() + 60_000) };
}

export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(result.limit),
    'X-RateLimit-Remaining': String(result.remaining),
    'X-RateLimit-Reset': String(result.reset),
    ...(result.allowed ? {} : { 'Retry-After': String(result.retryAfter) }),
  };
}
