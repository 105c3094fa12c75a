import { randomUUID } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { accounts, apiKeys, type FormName, type Plan } from '../db/schema';
import { AppError, conflict, notFound } from '../errors';
import { describeApiKey, generateApiKey } from './api-key-crypto';

export type Account = typeof accounts.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;

const BCRYPT_ROUNDS = 12;

export async function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_ROUNDS);
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

export interface CreateAccountInput {
  email: string;
  name?: string | null;
  password?: string | null;
  plan?: Plan;
  dailyLimit?: number | null;
  earlyAccess?: boolean;
}

export async function createAccount(db: Queryable, input: CreateAccountInput): Promise<Account> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new AppError('validation_error', `"${email}" is not an email address`);
  if (input.password != null && input.password.length < 8) {
    throw new AppError('validation_error', 'The password must be at least 8 characters long');
  }
  const [existing] = await db.select({ id: accounts.id }).from(accounts).where(sql`lower(${accounts.email}) = lower(${email})`);
  if (existing) throw conflict(`An account with the email ${email} already exists`);
  const [account] = await db
    .insert(accounts)
    .values({
      id: randomUUID(),
      email,
      name: input.name ?? null,
      passwordHash: input.password ? await hashPassword(input.password) : null,
      plan: input.plan ?? 'free',
      dailyLimit: input.dailyLimit ?? null,
      earlyAccess: input.earlyAccess ?? false,
    })
    .returning();
  return account!;
}

export interface UpdateAccountInput {
  plan?: Plan;
  dailyLimit?: number | null;
  earlyAccess?: boolean;
}

export async function updateAccount(db: Queryable, accountId: string, input: UpdateAccountInput): Promise<Account> {
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

export async function getAccountOrThrow(db: Queryable, accountId: string): Promise<Account> {
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw notFound('Account');
  return account;
}

export async function findAccountByEmail(db: Queryable, email: string): Promise<Account | undefined> {
  const [account] = await db.select().from(accounts).where(sql`lower(${accounts.email}) = lower(${email.trim()})`);
  return account;
}

export interface CreatedApiKey {
  key: ApiKey;
  /** The plaintext key: returned once, never stored. */
  plaintext: string;
}

export async function createApiKey(
  db: Queryable,
  input: { accountId: string; form?: FormName; name?: string },
): Promise<CreatedApiKey> {
  const plaintext = generateApiKey();
  const [key] = await db
    .insert(apiKeys)
    .values({
      id: randomUUID(),
      accountId: input.accountId,
      name: input.name?.trim() ?? '',
      form: input.form ?? 'A',
      ...describeApiKey(plaintext),
    })
    .returning();
  return { key: key!, plaintext };
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
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .orderBy(sql`${apiKeys.createdAt} desc`);
}
