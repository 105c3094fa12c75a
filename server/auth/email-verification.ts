import { consumeAccountToken, issueAccountToken } from '../accounts/account-tokens';
import { type Account, getAccountOrThrow, markMailboxProven } from '../accounts/accounts';
import type { Queryable } from '../db/client';
import type { Mailer } from '../email/send-email';
import { AppError, conflict, validationError } from '../errors';
import { consumeVerificationEmailAttempt } from './throttle-attempts';

// An address is proven by a link emailed to it. Until then the account signs in and works as
// usual, but no notice (such as an endpoint turned inactive) goes to the address.

const greeting = (account: Account) => `Hello${account.name ? ` ${account.name}` : ''},`;

/** The verification link for the account's address, valid 24 hours. */
export async function verificationLink(db: Queryable, appUrl: string, account: Account): Promise<string> {
  const { token } = await issueAccountToken(db, {
    accountId: account.id,
    purpose: 'verify_email',
    email: account.email,
  });
  return `${appUrl}/verify-email?token=${token}`;
}

/** Sign-up's first email: welcome, and the link that verifies the address. */
export function welcomeEmail(account: Account, link: string) {
  return {
    provesAddress: true,
    subject: 'Welcome to Meeting Notes',
    body: [
      greeting(account),
      '',
      `Your Meeting Notes account for ${account.email} is ready. Sign in with the password you chose to create API keys and webhook endpoints.`,
      '',
      'Please confirm that this address is yours by opening this link (it works once, for 24 hours):',
      link,
      '',
      'Until then we send no webhook notices (such as an endpoint turned inactive) to this address.',
      '',
      'API access is limited to early-access accounts: once your address is confirmed, you can ask for it on your Account page. Until your account has it, API calls answer 403.',
      '',
      'If you did not sign up, you can ignore this message.',
    ].join('\n'),
  };
}

/** "Send the link again" from the Account page: a new link replaces the earlier ones. */
export async function resendVerificationEmail(
  db: Queryable,
  mailer: Mailer,
  appUrl: string,
  accountId: string,
): Promise<{ sentTo: string }> {
  const account = await getAccountOrThrow(db, accountId);
  // An address that counts as verified without a link (an operator made the account, an OAuth
  // provider vouched for it) can still be proven through the mailbox, which operator status needs.
  if (account.mailboxProvenAt) throw conflict('Your email address is verified already');
  const attempt = await consumeVerificationEmailAttempt(db, accountId);
  if (!attempt.allowed) {
    const minutes = Math.max(1, Math.ceil(attempt.retryAfter / 60));
    throw new AppError(
      'rate_limited',
      `Too many verification emails. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    );
  }
  const link = await verificationLink(db, appUrl, account);
  await mailer.send(db, {
    accountId: account.id,
    to: account.email,
    provesAddress: true,
    subject: 'Confirm your email address',
    body: [
      greeting(account),
      '',
      `Please confirm that ${account.email} is the address of your Meeting Notes account by opening this link (it works once, for 24 hours):`,
      link,
      '',
      'If you did not ask for this, you can ignore this message.',
    ].join('\n'),
  });
  return { sentTo: account.email };
}

export const INVALID_VERIFICATION_LINK =
  'This verification link has expired or was used already. Sign in and send a new one from your Account page.';

/** The emailed link, opened: the address it was sent to is now verified. */
export async function verifyEmail(db: Queryable, token: string): Promise<{ email: string }> {
  return db.transaction(async (tx) => {
    const used = await consumeAccountToken(tx, 'verify_email', token);
    if (!used) throw validationError(INVALID_VERIFICATION_LINK);
    const account = await getAccountOrThrow(tx, used.accountId);
    // A link proves the address it went to, not one the account has since moved to.
    if (account.email.toLowerCase() !== used.email.toLowerCase())
      throw validationError(INVALID_VERIFICATION_LINK);
    await markMailboxProven(tx, account.id);
    return { email: account.email };
  });
}
