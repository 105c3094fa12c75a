import { type SQL, sql } from 'drizzle-orm';
import { PLANS, type Plan } from '../domain';
import { clockMinuteWindow, utcDayWindow, type RateLimitWindow } from './consume-rate-limit';

// Requests per account per UTC day, by plan, in either form; enterprise accounts have their own figure.
const DAILY_LIMITS = { free: 100, pro: 10_000 } as const;
const ENTERPRISE_DEFAULT = 100_000;

export function dailyRequestLimit(account: { plan: Plan; dailyLimit: number | null }): number {
  return account.plan === 'enterprise'
    ? (account.dailyLimit ?? ENTERPRISE_DEFAULT)
    : DAILY_LIMITS[account.plan];
}

/** dailyRequestLimit in SQL, over an account's plan and daily_limit columns (the same table). */
function dailyRequestLimitSql(plan: SQL, dailyLimit: SQL): SQL {
  const cases = PLANS.map((p) =>
    p === 'enterprise'
      ? sql`when ${p} then coalesce(${dailyLimit}, ${ENTERPRISE_DEFAULT})`
      : sql`when ${p} then ${DAILY_LIMITS[p]}`,
  );
  return sql`(case ${plan} ${sql.join(cases, sql` `)} end)::int`;
}

/** Form B: requests per key per clock minute, on every plan. */
export const FORM_B_PER_MINUTE = 100;

export const accountDayBucket = (accountId: string) => `account:${accountId}`;
export const keyMinuteBucket = (keyId: string) => `key:${keyId}`;

/** The account's requests of this UTC day, whatever the form or key. */
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

/** One key's requests of this clock minute (Form B). */
export function keyMinuteWindow(keyId: string, now: Date): RateLimitWindow {
  return {
    ...clockMinuteWindow(keyMinuteBucket(keyId), FORM_B_PER_MINUTE, now),
    description: `${FORM_B_PER_MINUTE} requests per minute for this key`,
  };
}

/** Who a request is counted for: its key and the key's account. */
export interface RateLimitPrincipal {
  key: { id: string };
  account: { id: string; plan: Plan; dailyLimit: number | null };
}

/** The same principal as SQL expressions (the columns of a key joined to its account). */
export interface RateLimitPrincipalSql {
  keyId: SQL;
  accountId: SQL;
  plan: SQL;
  dailyLimit: SQL;
}

/**
 * A window kind that an API form counts its requests against (docs/rules.md#rate-limits), both for a known
 * principal and as SQL over a principal still to be looked up, so that the key lookup and the
 * count can be one statement. Both spellings come from the same constants.
 */
export interface RateLimitRule {
  window(principal: RateLimitPrincipal, now: Date): RateLimitWindow;
  windowSql(principal: RateLimitPrincipalSql, now: Date): { bucket: SQL; limit: SQL; start: Date };
}

/** The account's UTC day, its limit by plan. */
export const ACCOUNT_DAY: RateLimitRule = {
  window: (principal, now) => accountDayWindow(principal.account, now),
  windowSql(p, now) {
    return {
      bucket: sql`${accountDayBucket('')} || ${p.accountId}::text`,
      limit: dailyRequestLimitSql(p.plan, p.dailyLimit),
      start: utcDayWindow('', 0, now).start,
    };
  },
};

/** The key's clock minute, 100 on every plan (Form B). */
export const KEY_MINUTE: RateLimitRule = {
  window: (principal, now) => keyMinuteWindow(principal.key.id, now),
  windowSql(p, now) {
    return {
      bucket: sql`${keyMinuteBucket('')} || ${p.keyId}::text`,
      limit: sql`${FORM_B_PER_MINUTE}::int`,
      start: clockMinuteWindow('', 0, now).start,
    };
  },
};

/** The windows of a list of rules for one principal, in the rules' order. */
export const windowsOf =
  (rules: readonly RateLimitRule[]) =>
  (principal: RateLimitPrincipal, now: Date): RateLimitWindow[] =>
    rules.map((rule) => rule.window(principal, now));
