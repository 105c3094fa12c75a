import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKey } from '../../accounts/accounts';
import { DEFAULT_FORM, FORM_NAMES } from '../../domain';
import { accountProcedure, createUiRouter } from '../trpc';

const presentKey = (k: ApiKey) => ({
  id: k.id,
  name: k.name,
  form: k.form,
  prefix: k.prefix,
  lastFour: k.lastFour,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
});

export const keysRouter = createUiRouter({
  list: accountProcedure.query(async ({ ctx }) => (await listApiKeys(ctx.db, ctx.accountId)).map(presentKey)),

  /** The plaintext key is in this answer only (SPEC 5.3). */
  create: accountProcedure
    .input(
      z.object({
        name: z.string().trim().min(1, 'Give the key a name').max(100),
        form: z.enum(FORM_NAMES).default(DEFAULT_FORM),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { key, plaintext } = await createApiKey(ctx.db, {
        accountId: ctx.accountId,
        form: input.form,
        name: input.name,
      });
      return { key: presentKey(key), plaintext };
    }),

  revoke: accountProcedure.input(z.object({ id: z.guid() })).mutation(async ({ ctx, input }) => {
    await revokeApiKey(ctx.db, input.id, ctx.accountId);
    return { ok: true as const };
  }),
});
