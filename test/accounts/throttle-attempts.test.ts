import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { createTestDatabase } from '../support/test-database';
import {
  consumeSignInAttempt,
  consumeSignUpAttempt,
  SIGN_IN_LIMITS,
} from '../../server/auth/throttle-attempts';

// The sign-in and sign-up limits hold over any span of their window's length, including one
// that straddles the start of a clock window.

const QUARTER = SIGN_IN_LIMITS.windowMinutes * 60_000;
/** A clock time `offsetMs` after the start of some quarter hour. */
const quarterPlus = (offsetMs: number) =>
  new Date(Math.floor(Date.UTC(2026, 10, 27, 9) / QUARTER) * QUARTER + offsetMs);

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.close());

const failures = async (email: string, n: number, at: Date, address: string | null = null) => {
  const results = [];
  for (let i = 0; i < n; i++) results.push(await consumeSignInAttempt(database.db, { email, address }, at));
  return results;
};

describe('failed sign-ins per email address', () => {
  it('ten failures just before a quarter hour still refuse the eleventh just after it', async () => {
    const email = `edge-${Date.now()}@example.com`;
    const before = await failures(email, 10, quarterPlus(QUARTER - 2_000));
    expect(before.every((a) => a.allowed)).toBe(true);
    const after = await consumeSignInAttempt(
      database.db,
      { email, address: null },
      quarterPlus(QUARTER + 1_000),
    );
    expect(after).toMatchObject({ allowed: false });
    expect(after.allowed || after.retryAfter).toBeGreaterThan(0);
  });

  it('the earlier failures count for less as the window slides past them, and not at all a window later', async () => {
    const email = `slide-${Date.now()}@example.com`;
    await failures(email, 10, quarterPlus(0));
    // Halfway through the next quarter hour half of them still count: five more are allowed.
    const half = await failures(email, 6, quarterPlus(QUARTER + QUARTER / 2));
    expect(half.map((a) => a.allowed)).toEqual([true, true, true, true, true, false]);
    // Two windows on, only the last window's five count.
    const later = await failures(email, 6, quarterPlus(2 * QUARTER + 1));
    expect(later.filter((a) => a.allowed)).toHaveLength(5);
  });

  it('a refunded attempt (a sign-in that succeeded) is not carried into the next window', async () => {
    const email = `refund-${Date.now()}@example.com`;
    for (let i = 0; i < 10; i++) {
      const attempt = await consumeSignInAttempt(
        database.db,
        { email, address: null },
        quarterPlus(QUARTER - 1_000),
      );
      if (attempt.allowed) await attempt.refund();
    }
    const next = await failures(email, 10, quarterPlus(QUARTER + 1_000));
    expect(next.every((a) => a.allowed)).toBe(true);
  });
});

describe('sign-ups per client address', () => {
  it('twenty sign-ups before the hour and one after it: the one after is refused', async () => {
    const hour = 60 * 60_000;
    const address = `192.0.2.${Date.now() % 200}`;
    const at = (ms: number) => new Date(Math.floor(Date.UTC(2026, 10, 27, 10) / hour) * hour + ms);
    for (let i = 0; i < 20; i++)
      expect(
        await consumeSignUpAttempt(
          database.db,
          { email: `s${i}-${Date.now()}@example.com`, address },
          at(hour - 5_000),
        ),
      ).toMatchObject({ allowed: true });
    expect(
      await consumeSignUpAttempt(
        database.db,
        { email: `late-${Date.now()}@example.com`, address },
        at(hour + 5_000),
      ),
    ).toMatchObject({ allowed: false });
  });
});
