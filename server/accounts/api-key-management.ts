import { randomUUID } from 'node:crypto';
import { and, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apiKeyUsage, apiKeys } from '../db/schema';
import { conflict, notFound, validationError } from '../errors';
import { isStorableText } from '../db/storage-bounds';
import { type ApiKey, type CreatedApiKey, lockAccountForNewKey, revokeApiKey, usableKey } from './accounts';
import { describeApiKey, generateApiKey } from './api-key-crypto';
import { changesReachEveryInstance } from './key-trust';

/** How long a rolled key keeps working beside its replacement, at most 7 days. */
export const MAX_ROLL_OVERLAP_SECONDS = 7 * 86_400;
/** The overlaps the settings app offers: none, 1 hour, 24 hours, 7 days. */
export const ROLL_OVERLAPS = [0, 3_600, 86_400, MAX_ROLL_OVERLAP_SECONDS] as const;

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw validationError('Give the key a name');
  if (trimmed.length > 100) throw validationError('A key name can be at most 100 characters');
  if (!isStorableText(trimmed))
    throw validationError('The key name must not contain NUL characters or unpaired surrogates');
  return trimmed;
}

/** Renames one of the account's working keys; the key itself does not change. */
export async function renameApiKey(
  db: Queryable,
  input: { accountId: string; keyId: string; name: string },
): Promise<ApiKey> {
  const name = checkedName(input.name);
  const [key] = await db
    .update(apiKeys)
    .set({ name })
    .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.accountId, input.accountId), usableKey()))
    .returning();
  if (!key) throw notFound('API key');
  return key;
}

export interface RolledApiKey extends CreatedApiKey {
  /** The key that was rolled: it works until its expiresAt (revoked at once with no overlap). */
  previous: ApiKey;
}

/**
 * Rolls a key (as Stripe's "roll key"): a new key with the same name and form, shown once, while
 * the old one keeps working for `overlapSeconds` (0 revokes it now) and then answers 401 like a
 * revoked key. An old key with an earlier expiry of its own keeps it. The new key expires when the
 * old one would have (never if it had no expiry), so a roll never lengthens a key's life. A key is
 * rolled once: its replacement is the one to roll next. During an overlap both keys count towards
 * the cap of 20, so an account at the cap can roll only with no overlap. It returns once the old
 * key's new end has reached every instance.
 */
export async function rollApiKey(
  db: Queryable,
  input: { accountId: string; keyId: string; overlapSeconds: number },
  now = new Date(),
): Promise<RolledApiKey> {
  const { overlapSeconds } = input;
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_ROLL_OVERLAP_SECONDS)
    throw validationError(
      `The overlap must be a whole number of seconds from 0 to ${MAX_ROLL_OVERLAP_SECONDS}`,
    );
  const rolled = await db.transaction(async (tx) => {
    const [old] = await tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.accountId, input.accountId), usableKey(now)))
      .for('update');
    if (!old) throw notFound('API key');
    if (old.rolledTo) throw conflict('This key has already been rolled: roll its replacement instead');
    const overlapEnds = new Date(now.getTime() + overlapSeconds * 1000);
    const expiresAt = old.expiresAt && old.expiresAt < overlapEnds ? old.expiresAt : overlapEnds;
    const id = randomUUID();
    if (overlapSeconds === 0) {
      await tx.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, old.id));
      await lockAccountForNewKey(tx, input.accountId);
    } else {
      await lockAccountForNewKey(
        tx,
        input.accountId,
        'roll this key with no overlap, or revoke another key first',
      );
    }
    const plaintext = generateApiKey();
    const [key] = await tx
      .insert(apiKeys)
      .values({
        id,
        accountId: input.accountId,
        name: old.name,
        form: old.form,
        // Rolling replaces the secret, not the lifetime: a short-lived key stays short-lived.
        expiresAt: old.expiresAt,
        ...describeApiKey(plaintext),
      })
      .returning();
    if (!key) throw new Error('Inserting the API key returned no row');
    const [previous] = await tx
      .update(apiKeys)
      .set(overlapSeconds === 0 ? { rolledTo: id } : { rolledTo: id, expiresAt })
      .where(eq(apiKeys.id, old.id))
      .returning();
    if (!previous) throw new Error('Updating the rolled key returned no row');
    return { key, plaintext, previous };
  });
  await changesReachEveryInstance();
  return rolled;
}

export interface RevokedApiKey {
  key: ApiKey;
  /** The key it replaced, revoked with it; null unless asked for and that key still worked. */
  replaced: ApiKey | null;
}

/**
 * The settings app's Revoke. A replacement revoked during its roll's overlap leaves the key it
 * replaced working until the overlap ends; with `alsoRevokeReplaced` that key is revoked in the
 * same transaction, so a user who believes the replacement leaked stops both or neither. Only
 * the account's own keys are touched: another account's key is not found and nothing changes.
 * It returns once the revocation has reached every instance.
 */
export async function revokeAccountKey(
  db: Queryable,
  input: { accountId: string; keyId: string; alsoRevokeReplaced?: boolean },
): Promise<RevokedApiKey> {
  const revoked = await db.transaction(async (tx): Promise<RevokedApiKey> => {
    const key = await revokeApiKey(tx, input.keyId, input.accountId);
    if (!input.alsoRevokeReplaced) return { key, replaced: null };
    // now() is the transaction's start, as revokeApiKey stamps it: both keys stop at one instant.
    const [replaced] = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(apiKeys.rolledTo, key.id), eq(apiKeys.accountId, input.accountId), usableKey()))
      .returning();
    return { key, replaced: replaced ?? null };
  });
  await changesReachEveryInstance();
  return revoked;
}

export interface KeyUsage {
  /** Requests made with the key this UTC day, including any a rate limit refused. */
  today: number;
  /** Requests in the current clock minute. */
  thisMinute: number;
  /** The last 7 UTC days, oldest first, today last. */
  last7Days: { day: string; requests: number }[];
}

const DAY_MS = 86_400_000;

/** Usage of the given keys, read from api_key_usage in one statement. */
export async function keyUsage(
  db: Queryable,
  keyIds: string[],
  now = new Date(),
): Promise<Map<string, KeyUsage>> {
  const days = Array.from({ length: 7 }, (_, i) =>
    new Date(now.getTime() - (6 - i) * DAY_MS).toISOString().slice(0, 10),
  );
  const today = days[6] as string;
  const minute = Math.floor(now.getTime() / 60_000) * 60_000;
  const rows =
    keyIds.length === 0
      ? []
      : await db
          .select()
          .from(apiKeyUsage)
          .where(and(inArray(apiKeyUsage.keyId, keyIds), gte(apiKeyUsage.day, days[0] as string)));
  const usage = new Map<string, KeyUsage>();
  for (const id of keyIds) {
    const mine = rows.filter((r) => r.keyId === id);
    const todayRow = mine.find((r) => r.day === today);
    usage.set(id, {
      today: todayRow?.requests ?? 0,
      thisMinute: todayRow && todayRow.minuteStart.getTime() === minute ? todayRow.minuteRequests : 0,
      last7Days: days.map((day) => ({ day, requests: mine.find((r) => r.day === day)?.requests ?? 0 })),
    });
  }
  return usage;
}
