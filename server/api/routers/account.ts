import { z } from 'zod';
import { getAccountUsage } from '../../accounts/account-usage';
import { endAllAuthSessions } from '../../auth/auth-sessions';
import { signUp } from '../../auth/sign-up';
import { accountProcedure, createUiRouter, publicProcedure } from '../trpc';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
const noControlCharacters = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);

export const accountRouter = createUiRouter({
  /**
   * Sign-up: a new account without early access (D15). The answer is the same whether or not
   * the address had an account (issue 8): either way its owner gets an email.
   */
  signUp: publicProcedure
    .input(
      z.object({
        email: z.string().trim().max(254, 'Enter a valid email address').email('Enter a valid email address'),
        // The password policy (length in bytes, strength) is the service's, with its own messages.
        password: z.string().min(1, 'Enter a password'),
        name: z
          .string()
          .trim()
          .max(100, 'Use at most 100 characters for your name')
          .refine(noControlCharacters, 'Use letters, digits and punctuation in your name')
          .optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      await signUp(
        ctx.db,
        ctx.services.mailer,
        { email: input.email, password: input.password, name: input.name || null },
        { address: ctx.clientAddress },
      );
      return { checkEmail: true as const };
    }),

  /** Ends every session of the account, this one included (the page then signs out). */
  signOutEverywhere: accountProcedure.mutation(async ({ ctx }) => ({
    ended: await endAllAuthSessions(ctx.db, ctx.accountId),
  })),

  get: accountProcedure.query(async ({ ctx }) => {
    const { account, today, emails } = await getAccountUsage(ctx.db, ctx.accountId);
    return {
      email: account.email,
      name: account.name,
      plan: account.plan,
      earlyAccess: account.earlyAccess,
      usage: { today: today.count, limit: today.limit, resetsAt: today.resetsAt.toISOString() },
      emails: emails.map((e) => ({
        id: e.id,
        to: e.to,
        subject: e.subject,
        body: e.body,
        transport: e.transport,
        createdAt: e.createdAt.toISOString(),
      })),
    };
  }),
});
