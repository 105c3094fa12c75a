import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';

/** One fixed window of one counter: which bucket, how many requests it allows, when it resets. */
export interface RateLimitWindow {
  bucket: string;
  limit: number;
  start: Date;
  end: Date;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
  /** Whole seconds until then, at least 1 (D14). */
  retryAfter: number;
}

/**
 * Counts one request against the window in a single statement. The conditional upsert makes
 * the check and the increment one atomic step, so concurrent requests on any number of
 * instances never let more than `limit` through, and a refused request is not counted (D14).
 */
export async function consumeRateLimit(db: Queryable, window: RateLimitWindow, now = new Date()): Promise<RateLimitResult> {
  const rows = await queryRows<{ count: number }>(
    db,
    sql`insert into rate_limit_counters (bucket, window_start, count)
        values (${window.bucket}, ${window.start.toISOString()}, 1)
        on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
        where rate_limit_counters.count < ${window.limit}
        returning count`,
  );
  const count = rows[0] ? Number(rows[0].count) : null;
  if (count === 1) {
    // A new window began for this bucket: its old windows are of no further use.
    await db.execute(
      sql`delete from rate_limit_counters where bucket = ${window.bucket} and window_start < ${window.start.toISOString()}`,
    );
  }
  const reset = Math.ceil(window.end.getTime() / 1000);
  return {
    allowed: count !== null,
    limit: window.limit,
    remaining: count === null ? 0 : Math.max(0, window.limit - count),
    reset,
    retryAfter: Math.max(1, Math.ceil((window.end.getTime() - now.getTime()) / 1000)),
  };
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
