import { z } from 'zod';
import {
  getAccountForOperator,
  listAccountsForOperator,
  MAX_DAILY_LIMIT,
  operatorCreateAccount,
  operatorCreateKey,
  operatorOrThrow,
  operatorRevokeKey,
  operatorUpdateAccount,
} from '../../accounts/operator-console';
import { DEFAULT_FORM, FORM_NAMES, PLANS } from '../../domain';
import { accountProcedure, createUiRouter } from '../trpc';

// The operator console. Every procedure is for an operator only (an address in ADMIN_EMAILS whose
// owner opened a link emailed to it), and every change goes through the services the admin CLI uses.

const operatorProcedure = accountProcedure.use(async ({ ctx, next }) => {
  const actor = await operatorOrThrow(ctx.db, ctx.accountId, ctx.services.accounts.operators);
  return next({ ctx: { ...ctx, actor } });
});

const accountId = z.string().uuid('Not an account id');
const dailyLimit = z
  .number({ error: 'The daily limit must be a whole number' })
  .int('The daily limit must be a whole number')
  .min(1, 'The daily limit must be at least 1')
  .max(MAX_DAILY_LIMIT, `The daily limit must be at most ${MAX_DAILY_LIMIT}`);
const plan = z.enum(PLANS, { error: `The plan must be one of ${PLANS.join(', ')}` });
const form = z.enum(FORM_NAMES, { error: `The form must be ${FORM_NAMES.join(' or ')}` });
const keyName = z.string().trim().max(100, 'Use at most 100 characters for the key name').optional();

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const adminRouter = createUiRouter({
  /** Accounts: open early-access requests first, then the newest. */
  accounts: operatorProcedure
    .input(
      z
        .object({
          search: z.string().max(254, 'Search with at most 254 characters').optional(),
          page: z.number().int().min(0).max(100_000).optional(),
        })
        .optional(),
    )
    .query(async ({ ctx, input }) => {
      const list = await listAccountsForOperator(ctx.db, input ?? {});
      return {
        total: list.total,
        pageSize: list.pageSize,
        accounts: list.accounts.map((a) => ({
          ...a,
          earlyAccessRequestedAt: iso(a.earlyAccessRequestedAt),
          createdAt: a.createdAt.toISOString(),
        })),
      };
    }),

  account: operatorProcedure.input(z.object({ accountId })).query(async ({ ctx, input }) => {
    const { account, usageToday, limitToday, keys, audit } = await getAccountForOperator(
      ctx.db,
      input.accountId,
    );
    return {
      id: account.id,
      email: account.email,
      name: account.name,
      plan: account.plan,
      dailyLimit: account.dailyLimit,
      earlyAccess: account.earlyAccess,
      earlyAccessRequestedAt: iso(account.earlyAccessRequestedAt),
      emailVerified: account.emailVerifiedAt !== null,
      createdAt: account.createdAt.toISOString(),
      usageToday,
      limitToday,
      keys: keys.map((k) => ({
        id: k.id,
        name: k.name,
        form: k.form,
        prefix: k.prefix,
        lastFour: k.lastFour,
        createdAt: k.createdAt.toISOString(),
        lastUsedAt: iso(k.lastUsedAt),
      })),
      audit: audit.map((e) => ({
        id: e.id,
        actor: e.actor,
        action: e.action,
        detail: e.detail as Record<string, unknown>,
        createdAt: e.createdAt.toISOString(),
      })),
    };
  }),

  /** Grant or revoke early access, change the plan or the daily limit (account:update). */
  updateAccount: operatorProcedure
    .input(
      z.object({
        accountId,
        plan: plan.optional(),
        dailyLimit: dailyLimit.nullable().optional(),
        earlyAccess: z.boolean().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { accountId: id, ...changes } = input;
      const { account, recorded } = await operatorUpdateAccount(ctx.db, ctx.actor, id, changes, {
        mailer: ctx.services.mailer,
        appUrl: ctx.services.accounts.appUrl,
      });
      return {
        id: account.id,
        plan: account.plan,
        dailyLimit: account.dailyLimit,
        earlyAccess: account.earlyAccess,
        recorded,
      };
    }),

  /** account:create: the account and its first key, whose value is shown this once. */
  createAccount: operatorProcedure
    .input(
      z.object({
        email: z.string().trim().max(254, 'Enter a valid email address').email('Enter a valid email address'),
        name: z.string().trim().max(100, 'Use at most 100 characters for the name').optional(),
        password: z.string().optional(),
        plan: plan.default('free'),
        dailyLimit: dailyLimit.nullable().optional(),
        earlyAccess: z.boolean().default(false),
        form: form.default(DEFAULT_FORM),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { account, key, plaintext } = await operatorCreateAccount(
        ctx.db,
        ctx.actor,
        {
          email: input.email,
          name: input.name || null,
          password: input.password || null,
          plan: input.plan,
          dailyLimit: input.dailyLimit ?? null,
          earlyAccess: input.earlyAccess,
        },
        { form: input.form },
      );
      return {
        accountId: account.id,
        email: account.email,
        keyId: key.id,
        apiKey: plaintext,
        form: key.form,
      };
    }),

  /** key:create for the account; the value is shown this once. */
  createKey: operatorProcedure
    .input(z.object({ accountId, form: form.default(DEFAULT_FORM), name: keyName }))
    .mutation(async ({ ctx, input }) => {
      const { key, plaintext } = await operatorCreateKey(ctx.db, ctx.actor, {
        accountId: input.accountId,
        form: input.form,
        name: input.name ?? '',
      });
      return { keyId: key.id, apiKey: plaintext, form: key.form };
    }),

  /** key:revoke, of a key of this account. */
  revokeKey: operatorProcedure
    .input(z.object({ accountId, keyId: z.string().uuid('Not a key id') }))
    .mutation(async ({ ctx, input }) => {
      const key = await operatorRevokeKey(ctx.db, ctx.actor, input.keyId, input.accountId);
      return { keyId: key.id, revoked: true as const };
    }),
});
