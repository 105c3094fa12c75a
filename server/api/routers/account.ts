import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { createAccount, getAccountOrThrow } from '../../accounts/accounts';
import { emails, rateLimitCounters } from '../../db/schema';
import { accountDayBucket, dailyRequestLimit } from '../../rate-limit/plan-limits';
import { utcDayWindow } from '../../rate-limit/consume-rate-limit';
import { accountProcedure, createUiRouter, publicProcedure } from '../trpc';

export const accountRouter = createUiRouter({
  /** Sign-up: a new account without early access (D15); the page explains what that means. */
  signUp: publicProcedure
    .input(
      z.object({
        email: z.string().trim().email('Enter a valid email address'),
        password: z.string().min(8, 'Use at least 8 characters'),
        name: z.string().trim().max(100).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const account = await createAccount(ctx.db, { email: input.email, password: input.password, name: input.name ?? null });
      return { accountId: account.id };
    }),

  get: accountProcedure.query(async ({ ctx }) => {
    const account = await getAccountOrThrow(ctx.db, ctx.accountId);
    const today = utcDayWindow(accountDayBucket(account.id), dailyRequestLimit(account), new Date());
    const [usage] = await ctx.db
      .select({ count: rateLimitCounters.count })
      .from(rateLimitCounters)
      .where(and(eq(rateLimitCounters.bucket, today.bucket), eq(rateLimitCounters.windowStart, today.start)));
    const sent = await ctx.db
      .select()
      .from(emails)
      .where(eq(emails.accountId, account.id))
      .orderBy(desc(emails.createdAt))
      .limit(20);
    return {
      email: account.email,
      name: account.name,
      plan: account.plan,
      earlyAccess: account.earlyAccess,
      usage: { today: usage?.count ?? 0, limit: today.limit, resetsAt: today.end.toISOString() },
      emails: sent.map((e) => ({ id: e.id, to: e.to, subject: e.subject, body: e.body, transport: e.transport, createdAt: e.createdAt.toISOString() })),
    };
  }),
});
