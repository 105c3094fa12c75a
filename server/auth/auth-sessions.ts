import { isUuid } from '../domain';
import { randomUUID } from 'node:crypto';
import { and, eq, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { authSessions } from '../db/schema';

// Browser sessions on the server: the next-auth JWT only carries a session id, and every request
// that uses it asks this table, so signing out ends a session for real (a copied cookie stops
// working too) and "sign out everywhere" ends every one of an account's sessions.

/** A session lasts this long from sign-in, however often it is used. */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

/** Records a new session at sign-in and returns its id; the account's ended sessions are dropped. */
export async function startAuthSession(db: Queryable, accountId: string, now = new Date()): Promise<string> {
  const id = randomUUID();
  await db.insert(authSessions).values({
    id,
    accountId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_MAX_AGE_SECONDS * 1000),
  });
  await db
    .delete(authSessions)
    .where(
      and(
        eq(authSessions.accountId, accountId),
        or(isNotNull(authSessions.revokedAt), lt(authSessions.expiresAt, now)),
      ),
    );
  return id;
}

/** The account of a session that is neither revoked nor expired, or null. */
export async function findLiveAuthSession(
  db: Queryable,
  sessionId: unknown,
  now = new Date(),
): Promise<{ accountId: string } | null> {
  if (typeof sessionId !== 'string' || !isUuid(sessionId)) return null;
  const [row] = await db
    .select({ accountId: authSessions.accountId })
    .from(authSessions)
    .where(
      and(eq(authSessions.id, sessionId), isNull(authSessions.revokedAt), gt(authSessions.expiresAt, now)),
    );
  return row ?? null;
}

/** Sign-out: this session ends. */
export async function endAuthSession(db: Queryable, sessionId: unknown): Promise<void> {
  if (typeof sessionId !== 'string' || !isUuid(sessionId)) return;
  await db
    .update(authSessions)
    .set({ revokedAt: sql`coalesce(${authSessions.revokedAt}, now())` })
    .where(eq(authSessions.id, sessionId));
}

/** Sign out everywhere: every live session of the account ends. Returns how many did. */
export async function endAllAuthSessions(db: Queryable, accountId: string): Promise<number> {
  const ended = await db
    .update(authSessions)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(authSessions.accountId, accountId),
        isNull(authSessions.revokedAt),
        gt(authSessions.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: authSessions.id });
  return ended.length;
}
