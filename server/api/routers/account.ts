import { z } from 'zod';
import { getAccountUsage } from '../../accounts/account-usage';
import { requestEarlyAccess } from '../../accounts/early-access';
import { endAllAuthSessions } from '../../auth/auth-sessions';
import { resendVerificationEmail, verifyEmail } from '../../auth/email-verification';
import { requestPasswordReset, resetPassword } from '../../auth/password-reset';
import { signUp } from '../../auth/sign-up';
import { hasOperatorAddress, isOperatorAccount } from '../../accounts/operator-console';
import { accountProcedure, callAlone, createUiRouter, publicProcedure } from '../trpc';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
const noControlCharacters = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);

const emailInput = z
  .string()
  .trim()
  .max(254, 'Enter a valid email address')
  .email('Enter a valid email address');
/** An emailed link's token; the service tells a wrong one from a used one no better than this. */
const tokenInput = z.string().max(200, 'This link is not valid');

export const accountRouter = createUiRouter({
  /**
   * Sign-up: a new account without early access. The answer is the same whether or not the
   * address had an account: either way its owner gets an email.
   */
  signUp: publicProcedure
    .use(callAlone)
    .input(
      z.object({
        email: emailInput,
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
        ctx.services.accounts.appUrl,
      );
      return { checkEmail: true as const };
    }),

  /** The welcome email's link, opened (no session needed: the token is the proof). */
  verifyEmail: publicProcedure
    .use(callAlone)
    .input(z.object({ token: tokenInput }))
    .mutation(async ({ ctx, input }) => verifyEmail(ctx.db, input.token)),

  /** A new verification link, from the Account page. */
  resendVerification: accountProcedure
    .use(callAlone)
    .mutation(async ({ ctx }) =>
      resendVerificationEmail(ctx.db, ctx.services.mailer, ctx.services.accounts.appUrl, ctx.accountId),
    ),

  /**
   * "Forgot password": the same answer, after the same work, whether or not the address
   * has an account; the email is sent by a background job.
   */
  requestPasswordReset: publicProcedure
    .use(callAlone)
    .input(z.object({ email: emailInput }))
    .mutation(async ({ ctx, input }) => {
      await requestPasswordReset(
        ctx.db,
        ctx.services,
        { email: input.email, address: ctx.clientAddress },
        ctx.now?.(),
      );
      return { checkEmail: true as const };
    }),

  /** A new password with the emailed link; every session of the account ends. */
  resetPassword: publicProcedure
    .use(callAlone)
    .input(z.object({ token: tokenInput, password: z.string().min(1, 'Enter a password') }))
    .mutation(async ({ ctx, input }) => {
      const { email } = await resetPassword(ctx.db, input);
      return { email };
    }),

  /** Records the request once and emails the operators. */
  requestEarlyAccess: accountProcedure.mutation(async ({ ctx }) => {
    const { requestedAt } = await requestEarlyAccess(
      ctx.db,
      ctx.services.mailer,
      ctx.services.accounts,
      ctx.accountId,
    );
    return { requestedAt: requestedAt.toISOString() };
  }),

  /** Ends every session of the account, this one included (the page then signs out). */
  signOutEverywhere: accountProcedure.mutation(async ({ ctx }) => ({
    ended: await endAllAuthSessions(ctx.db, ctx.accountId),
  })),

  get: accountProcedure.query(async ({ ctx }) => {
    // Unused blocks of quota this process holds go back first, so today's count is what was admitted.
    await ctx.services.requests.flush(ctx.db);
    const { account, today, emails } = await getAccountUsage(ctx.db, ctx.accountId);
    return {
      email: account.email,
      name: account.name,
      plan: account.plan,
      earlyAccess: account.earlyAccess,
      earlyAccessRequestedAt: account.earlyAccessRequestedAt?.toISOString() ?? null,
      emailVerified: account.emailVerifiedAt !== null,
      mailboxProven: account.mailboxProvenAt !== null,
      operator: isOperatorAccount(account, ctx.services.accounts.operators),
      /** An ADMIN_EMAILS address: the console opens once the mailbox is proven. */
      operatorAddress: hasOperatorAddress(account, ctx.services.accounts.operators),
      usage: { today: today.count, limit: today.limit, resetsAt: today.resetsAt.toISOString() },
      // A message that carries a link proving the address has no body here: it lives only in the mailbox.
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
