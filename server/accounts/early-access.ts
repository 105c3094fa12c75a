import { and, eq, isNull } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { accounts } from '../db/schema';
import type { Mailer } from '../email/send-email';
import { AppError, conflict } from '../errors';
import { log } from '../log';
import { findAccountByEmail, getAccountOrThrow } from './accounts';

// "Request early access" records the request once and emails the operators
// (ADMIN_EMAILS), who grant it in the console (/admin). Only a verified address can ask: the
// operators read the request by its address, so it has to be the owner's.

export async function requestEarlyAccess(
  db: Queryable,
  mailer: Mailer,
  settings: { appUrl: string; operators: readonly string[] },
  accountId: string,
  now = new Date(),
): Promise<{ requestedAt: Date; operatorsNotified: number }> {
  const account = await getAccountOrThrow(db, accountId);
  if (account.earlyAccess) throw conflict('Your account has early access already');
  if (!account.emailVerifiedAt)
    throw new AppError('forbidden', 'Please verify your email address before asking for early access');
  // One statement: two clicks (or two tabs) record one request and email the operators once.
  const [recorded] = await db
    .update(accounts)
    .set({ earlyAccessRequestedAt: now })
    .where(and(eq(accounts.id, accountId), isNull(accounts.earlyAccessRequestedAt)))
    .returning({ at: accounts.earlyAccessRequestedAt });
  if (!recorded?.at) return { requestedAt: account.earlyAccessRequestedAt ?? now, operatorsNotified: 0 };
  if (settings.operators.length === 0)
    log.warn('early access requested, but ADMIN_EMAILS names no operator to tell', { accountId });
  for (const to of settings.operators) {
    const operator = await findAccountByEmail(db, to);
    await mailer.send(db, {
      accountId: operator?.id ?? null,
      to,
      subject: `Early access requested by ${account.email}`,
      body: [
        `${account.email}${account.name ? ` (${account.name})` : ''} asks for early access to the Meeting Notes API.`,
        `Account created ${account.createdAt.toISOString().slice(0, 10)}, plan ${account.plan}.`,
        '',
        `Grant or decline it in the operator console: ${settings.appUrl}/admin/accounts/${account.id}`,
      ].join('\n'),
    });
  }
  return { requestedAt: recorded.at, operatorsNotified: settings.operators.length };
}
