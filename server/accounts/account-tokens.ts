import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { type AccountTokenPurpose, accountTokens } from '../db/schema';

// The tokens of the emailed links (verify an address, reset a password). A token is
// 32 random bytes (256 bits, base64url): it cannot be guessed or forged, and only its SHA-256 is
// stored, so the table alone opens nothing. Good once, until it expires, for the one address it
// was sent to. Limits: whoever holds the link can use it (as with any emailed link), so the
// link is short-lived and a new one replaces the unused ones before it.

/** How long a link works. */
export const TOKEN_LIFETIME_MS: Record<AccountTokenPurpose, number> = {
  verify_email: 24 * 3600_000,
  reset_password: 3600_000,
};

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new link token for the account; earlier unused ones of the same purpose stop working. */
export async function issueAccountToken(
  db: Queryable,
  input: { accountId: string; purpose: AccountTokenPurpose; email: string },
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME_MS[input.purpose]);
  await db
    .update(accountTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(accountTokens.accountId, input.accountId),
        eq(accountTokens.purpose, input.purpose),
        isNull(accountTokens.usedAt),
      ),
    );
  await db.insert(accountTokens).values({
    id: randomUUID(),
    accountId: input.accountId,
    purpose: input.purpose,
    tokenHash: hashToken(token),
    email: input.email,
    createdAt: now,
    expiresAt,
  });
  return { token, expiresAt };
}

/**
 * Uses a token up: one statement marks it used if it is unused and unexpired, so two concurrent
 * uses cannot both succeed. Null for anything else (unknown, used, expired, malformed).
 */
export async function consumeAccountToken(
  db: Queryable,
  purpose: AccountTokenPurpose,
  token: string,
  now = new Date(),
): Promise<{ accountId: string; email: string } | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const [row] = await db
    .update(accountTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(accountTokens.tokenHash, hashToken(token)),
        eq(accountTokens.purpose, purpose),
        isNull(accountTokens.usedAt),
        gt(accountTokens.expiresAt, now),
      ),
    )
    .returning({ accountId: accountTokens.accountId, email: accountTokens.email });
  return row ?? null;
}

/** Every unused token of the account and purpose stops working (a reset done, an address changed). */
export async function retireAccountTokens(
  db: Queryable,
  accountId: string,
  purpose: AccountTokenPurpose,
): Promise<void> {
  await db
    .update(accountTokens)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(accountTokens.accountId, accountId),
        eq(accountTokens.purpose, purpose),
        isNull(accountTokens.usedAt),
      ),
    );
}
