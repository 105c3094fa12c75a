import { createAccount, findAccountByEmail, hashPassword, type Account } from '../accounts/accounts';
import { passwordProblem } from '../accounts/password-policy';
import type { Queryable } from '../db/client';
import type { Mailer } from '../email/send-email';
import { AppError, validationError } from '../errors';
import { verificationLink, welcomeEmail } from './email-verification';
import { consumeSignUpAttempt } from './throttle-attempts';

export interface SignUpInput {
  email: string;
  password: string;
  name: string | null;
}

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

/**
 * Sign-up that does not tell whether an address has an account: the answer is the same either
 * way ("check your email"), and so is the work (the password is hashed, one email is sent). A
 * new address gets its account and a welcome email; the owner of an existing one is told that
 * someone tried to sign up with it, and nothing about the account changes. What the caller can
 * learn is only whether the password it chose now signs in, which a new address's owner needs.
 */
export async function signUp(
  db: Queryable,
  mailer: Mailer,
  input: SignUpInput,
  from: { address: string | null },
  appUrl: string,
): Promise<void> {
  const email = input.email.trim();
  const problem = await passwordProblem(input.password, [email, input.name]);
  if (problem) throw validationError(problem);
  const attempt = await consumeSignUpAttempt(db, { email, address: from.address });
  if (!attempt.allowed) {
    throw new AppError(
      'rate_limited',
      `Too many sign-ups from here or for this address. Please try again in ${minutes(attempt.retryAfter)} minutes.`,
    );
  }
  const passwordHash = await hashPassword(input.password);
  let existing: Account | undefined = await findAccountByEmail(db, email);
  if (!existing) {
    try {
      // Unverified until the welcome email's link is opened.
      const account = await createAccount(db, {
        email,
        name: input.name,
        passwordHash,
        emailVerified: false,
      });
      const link = await verificationLink(db, appUrl, account);
      await mailer.send(db, { accountId: account.id, to: account.email, ...welcomeEmail(account, link) });
      return;
    } catch (err) {
      // Taken in the meantime by a concurrent sign-up: the same answer as for any taken address.
      if (!(err instanceof AppError && err.code === 'conflict')) throw err;
      existing = await findAccountByEmail(db, email);
      if (!existing) throw err;
    }
  }
  await mailer.send(db, {
    accountId: existing.id,
    to: existing.email,
    ...attemptEmail(existing, new Date()),
  });
}

function attemptEmail(account: Account, at: Date) {
  return {
    subject: 'Someone tried to sign up with your email address',
    body: [
      `Hello${account.name ? ` ${account.name}` : ''},`,
      '',
      `Someone tried to create a Meeting Notes account with ${account.email} at ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
      'You already have an account with this address, so nothing changed: no account was created and your password is the same.',
      '',
      'If it was you, sign in with your existing password. If it was not, you can ignore this message.',
    ].join('\n'),
  };
}
