import { z } from 'zod';
import { createApiKey, listApiKeys, type ApiKey } from '../../accounts/accounts';
import {
  keyUsage,
  MAX_ROLL_OVERLAP_SECONDS,
  renameApiKey,
  revokeAccountKey,
  rollApiKey,
  type KeyUsage,
} from '../../accounts/api-key-management';
import { DEFAULT_FORM, FORM_NAMES } from '../../domain';
import { accountProcedure, createUiRouter } from '../trpc';

const presentKey = (k: ApiKey, usage?: KeyUsage) => ({
  id: k.id,
  name: k.name,
  form: k.form,
  prefix: k.prefix,
  lastFour: k.lastFour,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  /** When the key stops working (its chosen expiry, or a roll's overlap end). */
  expiresAt: k.expiresAt?.toISOString() ?? null,
  /** Set on a rolled key in its overlap: the id of the key that replaced it (the list pairs them). */
  rolledTo: k.rolledTo,
  usage: usage ?? null,
});

const keyName = z
  .string()
  .trim()
  .min(1, 'Give the key a name')
  .max(100, 'A key name can be at most 100 characters');

export const keysRouter = createUiRouter({
  /** The account's working keys (revoked and expired ones are gone), each with its usage. */
  list: accountProcedure.query(async ({ ctx }) => {
    const now = new Date();
    // The figures this process still holds in memory are written first.
    await ctx.services.requests.flush(ctx.db);
    const keys = await listApiKeys(ctx.db, ctx.accountId);
    const usage = await keyUsage(
      ctx.db,
      keys.map((k) => k.id),
      now,
    );
    return keys.map((k) => presentKey(k, usage.get(k.id)));
  }),

  /** The plaintext key is in this answer only: only its hash is stored. */
  create: accountProcedure
    .input(
      z.object({
        name: keyName,
        form: z.enum(FORM_NAMES).default(DEFAULT_FORM),
        /** Optional expiry: in the future, at most 3 years away. */
        expiresAt: z.iso.datetime({ offset: true }).nullish(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { key, plaintext } = await createApiKey(ctx.db, {
        accountId: ctx.accountId,
        form: input.form,
        name: input.name,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      });
      return { key: presentKey(key), plaintext };
    }),

  rename: accountProcedure
    .input(z.object({ id: z.guid(), name: keyName }))
    .mutation(async ({ ctx, input }) =>
      presentKey(await renameApiKey(ctx.db, { accountId: ctx.accountId, keyId: input.id, name: input.name })),
    ),

  /**
   * A new key, shown once in this answer, while the old one keeps working for
   * the overlap (the app offers none, 1 hour, 24 hours and 7 days).
   */
  roll: accountProcedure
    .input(
      z.object({
        id: z.guid(),
        overlapSeconds: z.number().int().min(0).max(MAX_ROLL_OVERLAP_SECONDS),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const rolled = await rollApiKey(ctx.db, {
        accountId: ctx.accountId,
        keyId: input.id,
        overlapSeconds: input.overlapSeconds,
      });
      return {
        key: presentKey(rolled.key),
        plaintext: rolled.plaintext,
        previous: presentKey(rolled.previous),
      };
    }),

  /**
   * Revokes a key; with alsoRevokeReplaced, the key it replaced in a roll (if still in its
   * overlap) too, in the same transaction. `replacedRevoked` is that key's id, or null.
   */
  revoke: accountProcedure
    .input(z.object({ id: z.guid(), alsoRevokeReplaced: z.boolean().default(false) }))
    .mutation(async ({ ctx, input }) => {
      const { replaced } = await revokeAccountKey(ctx.db, {
        accountId: ctx.accountId,
        keyId: input.id,
        alsoRevokeReplaced: input.alsoRevokeReplaced,
      });
      return { ok: true as const, replacedRevoked: replaced?.id ?? null };
    }),
});
