import { consumeAccountToken, issueAccountToken, retireAccountTokens } from '../accounts/account-tokens';
import { findAccountByEmail, getAccountOrThrow, markMailboxProven, setPassword } from '../accounts/accounts';
import type { Queryable } from '../db/client';
import type { Mailer } from '../email/send-email';
import { AppError, validationError } from '../errors';
import { enqueueJob } from '../jobs/jobs';
import type { Services } from '../services';
import { endAllAuthSessions } from './auth-sessions';
import { consumeResetAttempt } from './throttle-attempts';

// "Forgot password". The answer never says whether the address has an account;
// the link in the email is good once, for an hour; using it sets the password, proves the
// address, and ends every session of the account (whoever knew the old password is out).

export const INVALID_RESET_LINK =
  'This password reset link has expired or was used already. Ask for a new one on the sign-in page.';

/**
 * Asks for a reset link for this address. The request does the same work for every address: it
 * counts the throttles (keyed by the address and the client, never by an account) and queues the
 * email; looking the account up, issuing the link and sending it happen in the background job
 * (sendPasswordResetEmail), after the answer. So neither the answer nor its timing depends on
 * whether the address has an account.
 */
export async function requestPasswordReset(
  db: Queryable,
  services: Pick<Services, 'kick'>,
  input: { email: string; address: string | null },
  now = new Date(),
): Promise<void> {
  const attempt = await consumeResetAttempt(db, { email: input.email, address: input.address }, now);
  if (!attempt.allowed) {
    const minutes = Math.max(1, Math.ceil(attempt.retryAfter / 60));
    throw new AppError(
      'rate_limited',
      `Too many reset requests from here or for this address. Please try again in ${minutes} minutes.`,
    );
  }
  await enqueueJob(db, { kind: 'send_password_reset', email: input.email });
  services.kick();
}

/**
 * The send_password_reset job: emails a reset link to the account with this address, if there
 * is one, retiring its earlier links. An address without an account gets nothing (there is no
 * account to keep an email on). An error (the database's, the mailer's) fails the job, and the
 * queue retries it with its backoff; a retry sends a new link, which retires the earlier one.
 */
export async function sendPasswordResetEmail(
  db: Queryable,
  mailer: Mailer,
  appUrl: string,
  email: string,
): Promise<void> {
  const account = await findAccountByEmail(db, email);
  if (!account) return;
  const { token } = await issueAccountToken(db, {
    accountId: account.id,
    purpose: 'reset_password',
    email: account.email,
  });
  await mailer.send(db, {
    accountId: account.id,
    to: account.email,
    provesAddress: true,
    subject: 'Reset your Meeting Notes password',
    body: [
      `Hello${account.name ? ` ${account.name}` : ''},`,
      '',
      `Someone (we hope you) asked to reset the password of the Meeting Notes account for ${account.email}. To choose a new one, open this link (it works once, for one hour):`,
      `${appUrl}/reset-password?token=${token}`,
      '',
      'Setting a new password signs your account out everywhere.',
      '',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ].join('\n'),
  });
}

/**
 * Sets the new password with the emailed token. A password the policy refuses leaves the link
 * usable (nothing is committed); a good one uses the link up, proves the address, retires the
 * account's other reset links and ends every session. Returns how many sessions ended.
 */
export async function resetPassword(
  db: Queryable,
  input: { token: string; password: string },
): Promise<{ email: string; sessionsEnded: number }> {
  return db.transaction(async (tx) => {
    const used = await consumeAccountToken(tx, 'reset_password', input.token);
    if (!used) throw validationError(INVALID_RESET_LINK);
    const account = await getAccountOrThrow(tx, used.accountId);
    if (account.email.toLowerCase() !== used.email.toLowerCase()) throw validationError(INVALID_RESET_LINK);
    await setPassword(tx, account, input.password);
    await markMailboxProven(tx, account.id);
    await retireAccountTokens(tx, account.id, 'reset_password');
    const sessionsEnded = await endAllAuthSessions(tx, account.id);
    return { email: account.email, sessionsEnded };
  });
}
