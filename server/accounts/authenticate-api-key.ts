import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { accounts, apiKeys } from '../db/schema';
import type { Account, ApiKey } from './accounts';
import { hashApiKey, looksLikeApiKey } from './api-key-crypto';

export interface ApiPrincipal {
  key: Pick<ApiKey, 'id' | 'form' | 'accountId'>;
  account: Pick<Account, 'id' | 'plan' | 'dailyLimit' | 'earlyAccess'>;
}

/** last_used_at is written at most once a minute per key, so busy keys do not write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The principal behind a bearer token, or null for a missing, unknown or revoked key (D15). */
export async function authenticateApiKey(db: Queryable, token: string | null): Promise<ApiPrincipal | null> {
  if (!token || !looksLikeApiKey(token)) return null;
  const [row] = await db
    .select({
      keyId: apiKeys.id,
      form: apiKeys.form,
      lastUsedAt: apiKeys.lastUsedAt,
      accountId: accounts.id,
      plan: accounts.plan,
      dailyLimit: accounts.dailyLimit,
      earlyAccess: accounts.earlyAccess,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.keyHash, hashApiKey(token)), isNull(apiKeys.revokedAt)));
  if (!row) return null;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    const staleBefore = new Date(now - LAST_USED_RESOLUTION_MS);
    await db
      .update(apiKeys)
      .set({ lastUsedAt: new Date(now) })
      .where(
        and(eq(apiKeys.id, row.keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, staleBefore))),
      );
  }
  return {
    key: { id: row.keyId, form: row.form, accountId: row.accountId },
    account: { id: row.accountId, plan: row.plan, dailyLimit: row.dailyLimit, earlyAccess: row.earlyAccess },
  };
}

/** `Authorization: Bearer <key>`; the scheme is case-insensitive (RFC 9110). */
export function bearerToken(header: string | null): string | null {
  const match = header?.match(/^\s*Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}
