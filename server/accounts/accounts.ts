import { randomUUID } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { and, eq, gt, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { accounts, apiKeys } from '../db/schema';
import { DEFAULT_FORM, type FormName, type Plan } from '../domain';
import { passwordProblem, passwordTooLong, PASSWORD_MAX_BYTES } from './password-policy';
import { conflict, notFound, validationError } from '../errors';
import { describeApiKey, generateApiKey } from './api-key-crypto';
import { isStorableText } from '../db/storage-bounds';

export type Account = typeof accounts.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;

/**
 * bcrypt's cost: 12 (about a third of a second a hash on one core) wherever the service runs.
 * Under vitest (NODE_ENV=test) it is 4, as Django advises for test suites: the suites sign up
 * and sign in hundreds of times, and what they check (throttles, sessions, resets) does not
 * depend on the cost. Playwright's tests run the built server, which hashes at 12.
 */
export const PASSWORD_HASH_COST = process.env.NODE_ENV === 'test' ? 4 : 12;

/** Callers check the policy first (passwordProblem); this refuses what bcrypt would truncate. */
export async function hashPassword(password: string): Promise<string> {
  if (passwordTooLong(password))
    throw validationError(`A password may be at most ${PASSWORD_MAX_BYTES} bytes long`);
  return bcrypt.hash(password, PASSWORD_HASH_COST);
}

/** A password longer than bcrypt reads never matches: its first 72 bytes alone must not sign in. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  if (passwordTooLong(password)) return false;
  return bcrypt.compare(password, hash);
}

export interface CreateAccountInput {
  email: string;
  name?: string | null;
  /** Checked against the password policy, then hashed. */
  password?: string | null;
  /** A hash made already (sign-up hashes before it knows whether the address is taken). */
  passwordHash?: string | null;
  plan?: Plan;
  dailyLimit?: number | null;
  earlyAccess?: boolean;
  /**
   * Whether the address counts as verified from the start. Self-service sign-up says false (the
   * emailed link verifies it); an account made by an operator (admin CLI, console), the demo
   * seed or an OAuth provider that vouches for the address is verified, hence the default. No
   * account starts with its mailbox proven: only a link opened from the mailbox proves it.
   */
  emailVerified?: boolean;
}

export const isEmailAddress = (email: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);

/** Creates an account; an email taken already (in any letter case) is a conflict. */
export async function createAccount(db: Queryable, input: CreateAccountInput): Promise<Account> {
  const email = input.email.trim();
  if (!isEmailAddress(email)) throw validationError(`"${email}" is not an email address`);
  let passwordHash = input.passwordHash ?? null;
  if (input.password != null) {
    const problem = await passwordProblem(input.password, [email, input.name]);
    if (problem) throw validationError(problem);
    passwordHash = await hashPassword(input.password);
  }
  // The unique index on lower(email) decides, so two concurrent creations cannot both succeed.
  const [account] = await db
    .insert(accounts)
    .values({
      id: randomUUID(),
      email,
      name: input.name ?? null,
      passwordHash,
      plan: input.plan ?? 'free',
      dailyLimit: input.dailyLimit ?? null,
      earlyAccess: input.earlyAccess ?? false,
      emailVerifiedAt: (input.emailVerified ?? true) ? new Date() : null,
    })
    .onConflictDoNothing()
    .returning();
  if (!account) throw conflict(`An account with the email ${email} already exists`);
  return account;
}

export interface UpdateAccountInput {
  plan?: Plan;
  dailyLimit?: number | null;
  earlyAccess?: boolean;
}

export async function updateAccount(
  db: Queryable,
  accountId: string,
  input: UpdateAccountInput,
): Promise<Account> {
  const [account] = await db
    .update(accounts)
    .set({
      ...(input.plan !== undefined && { plan: input.plan }),
      ...(input.dailyLimit !== undefined && { dailyLimit: input.dailyLimit }),
      ...(input.earlyAccess !== undefined && { earlyAccess: input.earlyAccess }),
    })
    .where(eq(accounts.id, accountId))
    .returning();
  if (!account) throw notFound('Account');
  return account;
}

/**
 * Whether the account's owner proved the address. The webhook deactivation email (and
 * any other notice) goes only to a verified address; false for an account that does not exist.
 */
export async function accountEmailVerified(db: Queryable, accountId: string): Promise<boolean> {
  const [row] = await db
    .select({ verifiedAt: accounts.emailVerifiedAt })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row?.verifiedAt != null;
}

/**
 * The owner opened a link emailed to the address (a verification or a reset link): the mailbox
 * is proven, and the address verified (kept at its first verification).
 */
export async function markMailboxProven(db: Queryable, accountId: string, at = new Date()): Promise<void> {
  const instant = sql`${at.toISOString()}::timestamptz`;
  await db
    .update(accounts)
    .set({
      emailVerifiedAt: sql`coalesce(${accounts.emailVerifiedAt}, ${instant})`,
      mailboxProvenAt: instant,
    })
    .where(eq(accounts.id, accountId));
}

/** A new password, checked against the policy and hashed; the caller ends the sessions. */
export async function setPassword(db: Queryable, account: Account, password: string): Promise<void> {
  const problem = await passwordProblem(password, [account.email, account.name]);
  if (problem) throw validationError(problem);
  await db
    .update(accounts)
    .set({ passwordHash: await hashPassword(password) })
    .where(eq(accounts.id, account.id));
}

export async function getAccountOrThrow(db: Queryable, accountId: string): Promise<Account> {
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw notFound('Account');
  return account;
}

export async function findAccountByEmail(db: Queryable, email: string): Promise<Account | undefined> {
  const [account] = await db
    .select()
    .from(accounts)
    .where(sql`lower(${accounts.email}) = lower(${email.trim()})`);
  return account;
}

export interface CreatedApiKey {
  key: ApiKey;
  /** The plaintext key: returned once, never stored. */
  plaintext: string;
}

/** At most this many active (unrevoked, unexpired) keys per account. */
export const MAX_ACTIVE_API_KEYS = 20;

/**
 * A key that still works at `now`: unrevoked and unexpired. A rolled key in its overlap is one
 * of them, so it counts towards the cap of MAX_ACTIVE_API_KEYS until the overlap ends.
 */
export function usableKey(now: Date | SQL = sql`now()`): SQL {
  const at = now instanceof Date ? sql`${now.toISOString()}::timestamptz` : now;
  return and(isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, at))) as SQL;
}

/** The longest expiry a key can be given at creation. */
export const MAX_KEY_LIFETIME_MS = 3 * 365 * 86_400_000;

/** Refuses (400) an expiry that is not in the future or lies beyond MAX_KEY_LIFETIME_MS. */
export function checkKeyExpiry(expiresAt: Date | null | undefined, now = new Date()): void {
  if (expiresAt == null) return;
  if (Number.isNaN(expiresAt.getTime())) throw validationError('The expiry must be a valid date');
  if (expiresAt.getTime() <= now.getTime()) throw validationError('The expiry must be in the future');
  if (expiresAt.getTime() - now.getTime() > MAX_KEY_LIFETIME_MS)
    throw validationError('A key can expire at most 3 years from now');
}

/**
 * The key cap inside a transaction: locks the account row (so concurrent creations cannot pass the cap
 * together) and refuses a key beyond the cap, saying `refusal` for what to do instead.
 */
export async function lockAccountForNewKey(
  tx: Queryable,
  accountId: string,
  refusal = 'revoke one before creating another',
): Promise<void> {
  const [account] = await tx
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .for('update');
  if (!account) throw notFound('Account');
  const [active] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), usableKey()));
  if (Number(active?.n ?? 0) >= MAX_ACTIVE_API_KEYS) {
    throw conflict(`An account can have at most ${MAX_ACTIVE_API_KEYS} active API keys; ${refusal}`);
  }
}

/**
 * Creates a key, the account's 21st active one refused, optionally expiring at `expiresAt`
 * (docs/rules.md#accounts-early-access-and-api-keys).
 */
export async function createApiKey(
  db: Queryable,
  input: { accountId: string; form?: FormName; name?: string; expiresAt?: Date | null },
): Promise<CreatedApiKey> {
  const name = input.name?.trim() ?? '';
  if (!isStorableText(name))
    throw validationError('The key name must not contain NUL characters or unpaired surrogates');
  checkKeyExpiry(input.expiresAt);
  return db.transaction(async (tx) => {
    await lockAccountForNewKey(tx, input.accountId);
    const plaintext = generateApiKey();
    const [key] = await tx
      .insert(apiKeys)
      .values({
        id: randomUUID(),
        accountId: input.accountId,
        name,
        form: input.form ?? DEFAULT_FORM,
        expiresAt: input.expiresAt ?? null,
        ...describeApiKey(plaintext),
      })
      .returning();
    if (!key) throw new Error('Inserting the API key returned no row');
    return { key, plaintext };
  });
}

/** A new account with its first API key, both or neither (the admin CLI's account:create, the demo seed). */
export async function createAccountWithKey(
  db: Queryable,
  account: CreateAccountInput,
  key: { form?: FormName; name?: string },
): Promise<CreatedApiKey & { account: Account }> {
  return db.transaction(async (tx) => {
    const created = await createAccount(tx, account);
    return { account: created, ...(await createApiKey(tx, { accountId: created.id, ...key })) };
  });
}

/** Revokes a key; with accountId, only a key of that account (the settings UI's check). */
export async function revokeApiKey(db: Queryable, keyId: string, accountId?: string): Promise<ApiKey> {
  const [key] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(and(eq(apiKeys.id, keyId), accountId ? eq(apiKeys.accountId, accountId) : undefined))
    .returning();
  if (!key) throw notFound('API key');
  return key;
}

export async function listApiKeys(db: Queryable, accountId: string): Promise<ApiKey[]> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), usableKey()))
    .orderBy(sql`${apiKeys.createdAt} desc`);
}
