import { and, desc, eq } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { emails, rateLimitCounters } from '../db/schema';
import { utcDayWindow } from '../rate-limit/consume-rate-limit';
import { accountDayBucket, dailyRequestLimit } from '../rate-limit/plan-limits';
import { type Account, getAccountOrThrow } from './accounts';

export type SentEmail = typeof emails.$inferSelect;

export interface AccountUsage {
  account: Account;
  /** The requests counted this UTC day, in either form, against the plan's daily limit. */
  today: { count: number; limit: number; resetsAt: Date };
  /** The latest emails sent to the account, newest first (never the text of one that proves the address). */
  emails: SentEmail[];
}

/** How many emails the account page shows. */
const RECENT_EMAILS = 20;

/** The account, its request count of today and the emails it was sent: the settings app's account page. */
export async function getAccountUsage(
  db: Queryable,
  accountId: string,
  now = new Date(),
): Promise<AccountUsage> {
  const account = await getAccountOrThrow(db, accountId);
  const window = utcDayWindow(accountDayBucket(account.id), dailyRequestLimit(account), now);
  const [counter] = await db
    .select({ count: rateLimitCounters.count })
    .from(rateLimitCounters)
    .where(and(eq(rateLimitCounters.bucket, window.bucket), eq(rateLimitCounters.windowStart, window.start)));
  const sent = await db
    .select()
    .from(emails)
    .where(eq(emails.accountId, account.id))
    .orderBy(desc(emails.createdAt))
    .limit(RECENT_EMAILS);
  return {
    account,
    today: { count: counter?.count ?? 0, limit: window.limit, resetsAt: window.end },
    emails: sent,
  };
}
