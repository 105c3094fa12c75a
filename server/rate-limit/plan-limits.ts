import type { Plan } from '../domain';
import { clockMinuteWindow, utcDayWindow, type RateLimitWindow } from './consume-rate-limit';

// D14, D22: requests per account per UTC day, by plan, in either form; enterprise accounts have their own figure.
const DAILY_LIMITS = { free: 100, pro: 10_000 } as const;
const ENTERPRISE_DEFAULT = 100_000;

export function dailyRequestLimit(account: { plan: Plan; dailyLimit: number | null }): number {
  return account.plan === 'enterprise'
    ? (account.dailyLimit ?? ENTERPRISE_DEFAULT)
    : DAILY_LIMITS[account.plan];
}

/** Form B: requests per key per clock minute, on every plan. */
export const FORM_B_PER_MINUTE = 100;

export const accountDayBucket = (accountId: string) => `account:${accountId}`;
export const keyMinuteBucket = (keyId: string) => `key:${keyId}`;

/** D14, D22: the account's requests of this UTC day, whatever the form or key. */
export function accountDayWindow(
  account: { id: string; plan: Plan; dailyLimit: number | null },
  now: Date,
): RateLimitWindow {
  const limit = dailyRequestLimit(account);
  return {
    ...utcDayWindow(accountDayBucket(account.id), limit, now),
    description: `the account's ${limit} requests per UTC day`,
  };
}

/** D14: one key's requests of this clock minute (Form B). */
export function keyMinuteWindow(keyId: string, now: Date): RateLimitWindow {
  return {
    ...clockMinuteWindow(keyMinuteBucket(keyId), FORM_B_PER_MINUTE, now),
    description: `${FORM_B_PER_MINUTE} requests per minute for this key`,
  };
}
