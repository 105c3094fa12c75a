import type { Plan } from '../db/schema';

// D14: Form A requests per account per UTC day, by plan; enterprise accounts have their own figure.
const DAILY_LIMITS = { free: 100, pro: 10_000 } as const;
const ENTERPRISE_DEFAULT = 100_000;

export function dailyRequestLimit(account: { plan: Plan; dailyLimit: number | null }): number {
  return account.plan === 'enterprise' ? (account.dailyLimit ?? ENTERPRISE_DEFAULT) : DAILY_LIMITS[account.plan];
}

/** Form B: requests per key per clock minute, on every plan. */
export const FORM_B_PER_MINUTE = 100;

export const accountDayBucket = (accountId: string) => `account:${accountId}`;
export const keyMinuteBucket = (keyId: string) => `key:${keyId}`;
