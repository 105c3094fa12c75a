import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { consumeRateLimit, type RateLimitWindow, rateLimitResult } from '../rate-limit/consume-rate-limit';

// Sign-in and sign-up throttles, in the API's rate-limit counters (one table, shared by every
// instance) under buckets of their own. Each limit holds over any span of the window's length,
// not only within a clock window: the count of the window before the current one is carried in,
// weighted by how much of it still overlaps the last `windowMinutes` (a sliding-window counter).
// So ten failed sign-ins just before a quarter hour and one just after are refused alike; with
// fixed windows alone, twice the limit fit around each boundary.

/** Failed sign-ins allowed per window, per email address and per client address. */
export const SIGN_IN_LIMITS = { perEmail: 10, perAddress: 50, windowMinutes: 15 } as const;
/** Sign-ups allowed per window: each sends an email, so an inbox cannot be flooded either. */
export const SIGN_UP_LIMITS = { perEmail: 5, perAddress: 20, windowMinutes: 60 } as const;

/** Password-reset emails asked for, per address and per client; verification emails per account. */
export const RESET_LIMITS = { perEmail: 5, perAddress: 20, windowMinutes: 60 } as const;
export const VERIFICATION_EMAIL_LIMITS = { perAccount: 5, windowMinutes: 60 } as const;

export type Attempt = { allowed: true; refund(): Promise<void> } | { allowed: false; retryAfter: number };

function fixedWindow(bucket: string, limit: number, minutes: number, now: Date): RateLimitWindow {
  const size = minutes * 60_000;
  const start = new Date(Math.floor(now.getTime() / size) * size);
  return {
    bucket,
    limit,
    start,
    end: new Date(start.getTime() + size),
    keepFrom: new Date(start.getTime() - size),
  };
}

/** How much of the previous window's count still falls within the last window's length. */
async function carriedCount(db: Queryable, window: RateLimitWindow, now: Date): Promise<number> {
  const size = window.end.getTime() - window.start.getTime();
  const previousStart = new Date(window.start.getTime() - size);
  const rows = await queryRows<{ count: number }>(
    db,
    sql`select count from rate_limit_counters where bucket = ${window.bucket} and window_start = ${previousStart.toISOString()}`,
  );
  const previous = rows[0] ? Number(rows[0].count) : 0;
  const overlap = 1 - (now.getTime() - window.start.getTime()) / size;
  return Math.ceil(previous * overlap);
}

/** Counters hold a digest, not the address itself. */
const emailKey = (email: string) =>
  createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');

/**
 * Counts a sign-in attempt against both windows, before any password work. A refused attempt
 * counts in neither (as in the API's limits); the caller refunds an attempt that succeeded, so
 * only failures add up. With no known client address only the email window applies.
 */
export function consumeSignInAttempt(
  db: Queryable,
  who: { email: string; address: string | null },
  now = new Date(),
): Promise<Attempt> {
  const { perEmail, perAddress, windowMinutes } = SIGN_IN_LIMITS;
  return consumeAll(db, now, [
    ...(who.address ? [fixedWindow(`sign-in:address:${who.address}`, perAddress, windowMinutes, now)] : []),
    fixedWindow(`sign-in:email:${emailKey(who.email)}`, perEmail, windowMinutes, now),
  ]);
}

/** Counts a sign-up, successful or not: each one hashes a password and sends an email. */
export function consumeSignUpAttempt(
  db: Queryable,
  who: { email: string; address: string | null },
  now = new Date(),
): Promise<Attempt> {
  const { perEmail, perAddress, windowMinutes } = SIGN_UP_LIMITS;
  return consumeAll(db, now, [
    ...(who.address ? [fixedWindow(`sign-up:address:${who.address}`, perAddress, windowMinutes, now)] : []),
    fixedWindow(`sign-up:email:${emailKey(who.email)}`, perEmail, windowMinutes, now),
  ]);
}

/** Counts a password-reset request: each may send an email. */
export function consumeResetAttempt(
  db: Queryable,
  who: { email: string; address: string | null },
  now = new Date(),
): Promise<Attempt> {
  const { perEmail, perAddress, windowMinutes } = RESET_LIMITS;
  return consumeAll(db, now, [
    ...(who.address ? [fixedWindow(`reset:address:${who.address}`, perAddress, windowMinutes, now)] : []),
    fixedWindow(`reset:email:${emailKey(who.email)}`, perEmail, windowMinutes, now),
  ]);
}

/** Counts a "send the verification email again". */
export function consumeVerificationEmailAttempt(
  db: Queryable,
  accountId: string,
  now = new Date(),
): Promise<Attempt> {
  const { perAccount, windowMinutes } = VERIFICATION_EMAIL_LIMITS;
  return consumeAll(db, now, [
    fixedWindow(`verify-email:account:${accountId}`, perAccount, windowMinutes, now),
  ]);
}

async function consumeAll(db: Queryable, now: Date, windows: RateLimitWindow[]): Promise<Attempt> {
  const taken: RateLimitWindow[] = [];
  const refund = async () => {
    for (const w of taken) {
      await db.execute(
        sql`update rate_limit_counters set count = count - 1
            where bucket = ${w.bucket} and window_start = ${w.start.toISOString()} and count > 0`,
      );
    }
  };
  for (const window of windows) {
    const room = window.limit - (await carriedCount(db, window, now));
    const result =
      room > 0
        ? await consumeRateLimit(db, { ...window, limit: room }, now)
        : rateLimitResult(window, null, now);
    if (!result.allowed) {
      await refund();
      return { allowed: false, retryAfter: result.retryAfter };
    }
    taken.push(window);
    // An address's first attempt in a window: the time to drop counters every window has
    // outlived (consumeRateLimit clears only a bucket it reuses; an email tried once would stay).
    if (window.bucket.includes(':address:') && result.remaining === room - 1)
      await pruneCounters(db, window.bucket.slice(0, window.bucket.indexOf(':')), now);
  }
  return { allowed: true, refund };
}

async function pruneCounters(db: Queryable, prefix: string, now: Date) {
  const before = new Date(
    now.getTime() - 2 * Math.max(SIGN_IN_LIMITS.windowMinutes, SIGN_UP_LIMITS.windowMinutes) * 60_000,
  );
  await db.execute(
    sql`delete from rate_limit_counters where bucket like ${`${prefix}:%`} and window_start < ${before.toISOString()}`,
  );
}
