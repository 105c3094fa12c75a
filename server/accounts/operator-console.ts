import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { accountAuditLog, accounts, apiKeys } from '../db/schema';
import type { FormName, Plan } from '../domain';
import type { Mailer } from '../email/send-email';
import { AppError, notFound, validationError } from '../errors';
import { utcDayWindow } from '../rate-limit/consume-rate-limit';
import { accountDayBucket, dailyRequestLimit } from '../rate-limit/plan-limits';
import {
  type Account,
  type ApiKey,
  type CreateAccountInput,
  createAccountWithKey,
  createApiKey,
  getAccountOrThrow,
  usableKey,
  revokeApiKey,
  updateAccount,
} from './accounts';
import { changesReachEveryInstance } from './key-trust';

// What operators do to accounts, from the console (/admin) or the admin CLI, through the same
// account services, each change written to the audit log with who and when. An operator is a
// signed-in account whose address is in ADMIN_EMAILS and whose owner has opened a link emailed to
// it (isOperatorAccount).

/** Who did it: an operator's address (and account), or the admin CLI. */
export interface Actor {
  label: string;
  accountId: string | null;
}

export const AUDIT_ACTIONS = [
  'account.create',
  'early_access.grant',
  'early_access.revoke',
  'plan.change',
  'daily_limit.change',
  'key.create',
  'key.revoke',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEntry = typeof accountAuditLog.$inferSelect;

/** The largest daily limit an account can have: what the counter column holds. */
export const MAX_DAILY_LIMIT = 2_147_483_647;

/** Whether the account's address is one of ADMIN_EMAILS (an operator once the mailbox is proven). */
export function hasOperatorAddress(account: Account, operators: readonly string[]): boolean {
  return operators.includes(account.email.trim().toLowerCase());
}

/**
 * Whether the account is an operator: its address is in ADMIN_EMAILS and its owner opened a link
 * emailed to that address. Nothing else counts (an operator or an OAuth provider vouching for
 * the address, an account older than verification): otherwise whoever signed up first with an
 * operator's address, or read a link anywhere but in the mailbox, would be one.
 */
export function isOperatorAccount(account: Account, operators: readonly string[]): boolean {
  return account.mailboxProvenAt != null && hasOperatorAddress(account, operators);
}

/** The operator behind a request, or 403. */
export async function operatorOrThrow(
  db: Queryable,
  accountId: string,
  operators: readonly string[],
): Promise<Actor> {
  const account = await getAccountOrThrow(db, accountId);
  if (!isOperatorAccount(account, operators))
    throw new AppError('forbidden', 'The operator console is only for the addresses in ADMIN_EMAILS');
  return { label: account.email, accountId: account.id };
}

async function audit(
  db: Queryable,
  actor: Actor,
  accountId: string,
  action: AuditAction,
  detail: Record<string, unknown>,
  at: Date,
) {
  await db.insert(accountAuditLog).values({
    id: randomUUID(),
    accountId,
    actor: actor.label,
    actorAccountId: actor.accountId,
    action,
    detail,
    createdAt: at,
  });
}

export interface OperatorAccountRow {
  id: string;
  email: string;
  name: string | null;
  plan: Plan;
  dailyLimit: number | null;
  earlyAccess: boolean;
  earlyAccessRequestedAt: Date | null;
  emailVerified: boolean;
  createdAt: Date;
  usageToday: number;
  limitToday: number;
  activeKeys: number;
  endpoints: number;
}

/** At most this many accounts per page of the console. */
export const OPERATOR_PAGE_SIZE = 50;

/** "%" and "_" typed in the search are letters, not patterns. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The console's list: open early-access requests first (oldest first), then the newest
 * accounts; with `search`, only addresses and names containing it. Usage is this UTC day's count.
 */
export async function listAccountsForOperator(
  db: Queryable,
  opts: { search?: string; page?: number } = {},
  now = new Date(),
): Promise<{ accounts: OperatorAccountRow[]; total: number; pageSize: number }> {
  const search = opts.search?.trim() ?? '';
  const page = Math.max(0, opts.page ?? 0);
  const dayStart = utcDayWindow('', 1, now).start;
  const where = search
    ? sql`where a.email ilike ${likePattern(search)} escape '\\' or coalesce(a.name, '') ilike ${likePattern(search)} escape '\\'`
    : sql``;
  const rows = await queryRows<{
    id: string;
    email: string;
    name: string | null;
    plan: Plan;
    daily_limit: number | null;
    early_access: boolean;
    early_access_requested_at: string | Date | null;
    email_verified_at: string | Date | null;
    created_at: string | Date;
    usage_today: number | string;
    active_keys: number | string;
    endpoints: number | string;
    total: number | string;
  }>(
    db,
    sql`select a.id, a.email, a.name, a.plan, a.daily_limit, a.early_access, a.early_access_requested_at,
          a.email_verified_at, a.created_at,
          coalesce((select c.count from rate_limit_counters c
                    where c.bucket = 'account:' || a.id::text and c.window_start = ${dayStart.toISOString()}), 0) as usage_today,
          (select count(*) from api_keys where api_keys.account_id = a.id and ${usableKey()}) as active_keys,
          (select count(*) from webhook_endpoints e where e.account_id = a.id) as endpoints,
          count(*) over () as total
        from accounts a
        ${where}
        order by (a.early_access_requested_at is not null and not a.early_access) desc,
          case when a.early_access_requested_at is not null and not a.early_access then a.early_access_requested_at end asc,
          a.created_at desc, a.id
        limit ${OPERATOR_PAGE_SIZE} offset ${page * OPERATOR_PAGE_SIZE}`,
  );
  const date = (v: string | Date) => (v instanceof Date ? v : new Date(v));
  return {
    total: Number(rows[0]?.total ?? 0),
    pageSize: OPERATOR_PAGE_SIZE,
    accounts: rows.map((r) => ({
      id: r.id,
      email: r.email,
      name: r.name,
      plan: r.plan,
      dailyLimit: r.daily_limit,
      earlyAccess: r.early_access,
      earlyAccessRequestedAt: r.early_access_requested_at ? date(r.early_access_requested_at) : null,
      emailVerified: r.email_verified_at != null,
      createdAt: date(r.created_at),
      usageToday: Number(r.usage_today),
      limitToday: dailyRequestLimit({ plan: r.plan, dailyLimit: r.daily_limit }),
      activeKeys: Number(r.active_keys),
      endpoints: Number(r.endpoints),
    })),
  };
}

/** One account for the console: its row, its active keys and its audit log (newest first). */
export async function getAccountForOperator(
  db: Queryable,
  accountId: string,
  now = new Date(),
): Promise<{
  account: Account;
  usageToday: number;
  limitToday: number;
  keys: ApiKey[];
  audit: AuditEntry[];
}> {
  const account = await getAccountOrThrow(db, accountId);
  const window = utcDayWindow(accountDayBucket(account.id), dailyRequestLimit(account), now);
  const [usage] = await queryRows<{ count: number }>(
    db,
    sql`select count from rate_limit_counters where bucket = ${window.bucket} and window_start = ${window.start.toISOString()}`,
  );
  const keys = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), usableKey()))
    .orderBy(desc(apiKeys.createdAt));
  const entries = await db
    .select()
    .from(accountAuditLog)
    .where(eq(accountAuditLog.accountId, accountId))
    .orderBy(desc(accountAuditLog.createdAt), desc(accountAuditLog.id))
    .limit(100);
  return { account, usageToday: Number(usage?.count ?? 0), limitToday: window.limit, keys, audit: entries };
}

export interface OperatorChanges {
  plan?: Plan;
  /** Enterprise accounts' own daily limit; null: the plan's default. */
  dailyLimit?: number | null;
  earlyAccess?: boolean;
}

function checkDailyLimit(limit: number | null | undefined) {
  if (limit == null) return;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DAILY_LIMIT)
    throw validationError(`The daily limit must be a whole number from 1 to ${MAX_DAILY_LIMIT}`);
}

/**
 * Changes plan, daily limit and early access (account:update), one audit entry per setting that
 * changed; a setting given with its current value changes nothing and is not recorded. A grant
 * is emailed to the owner (a verified address only). A change returns once it has reached every
 * instance that answers the account's keys.
 */
export async function operatorUpdateAccount(
  db: Queryable,
  actor: Actor,
  accountId: string,
  changes: OperatorChanges,
  opts: { mailer?: Mailer; appUrl?: string } = {},
): Promise<{ account: Account; recorded: AuditAction[] }> {
  checkDailyLimit(changes.dailyLimit);
  const now = new Date();
  const result = await db.transaction(async (tx) => {
    const [before] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for('update');
    if (!before) throw notFound('Account');
    const recorded: AuditAction[] = [];
    const set: OperatorChanges = {};
    if (changes.earlyAccess !== undefined && changes.earlyAccess !== before.earlyAccess) {
      set.earlyAccess = changes.earlyAccess;
      const action = changes.earlyAccess ? 'early_access.grant' : 'early_access.revoke';
      await audit(tx, actor, accountId, action, { from: before.earlyAccess, to: changes.earlyAccess }, now);
      recorded.push(action);
    }
    if (changes.plan !== undefined && changes.plan !== before.plan) {
      set.plan = changes.plan;
      await audit(tx, actor, accountId, 'plan.change', { from: before.plan, to: changes.plan }, now);
      recorded.push('plan.change');
    }
    if (changes.dailyLimit !== undefined && changes.dailyLimit !== before.dailyLimit) {
      set.dailyLimit = changes.dailyLimit;
      await audit(
        tx,
        actor,
        accountId,
        'daily_limit.change',
        { from: before.dailyLimit, to: changes.dailyLimit },
        now,
      );
      recorded.push('daily_limit.change');
    }
    const account = recorded.length ? await updateAccount(tx, accountId, set) : before;
    return { account, recorded };
  });
  if (result.recorded.length > 0) await changesReachEveryInstance();
  if (result.recorded.includes('early_access.grant') && opts.mailer && result.account.emailVerifiedAt) {
    const { account } = result;
    await opts.mailer.send(db, {
      accountId: account.id,
      to: account.email,
      subject: 'Your Meeting Notes account has early access',
      body: [
        `Hello${account.name ? ` ${account.name}` : ''},`,
        '',
        `Your account ${account.email} now has early access: the API (/v1) answers your keys' requests.`,
        ...(opts.appUrl ? ['', `Create an API key: ${opts.appUrl}/keys`] : []),
      ].join('\n'),
    });
  }
  return result;
}

/** account:create: an account with its first key (shown once), recorded with what it was given. */
export async function operatorCreateAccount(
  db: Queryable,
  actor: Actor,
  input: CreateAccountInput,
  key: { form: FormName; name?: string },
) {
  checkDailyLimit(input.dailyLimit);
  return db.transaction(async (tx) => {
    const created = await createAccountWithKey(tx, input, key);
    await audit(
      tx,
      actor,
      created.account.id,
      'account.create',
      {
        plan: created.account.plan,
        daily_limit: created.account.dailyLimit,
        early_access: created.account.earlyAccess,
        key_id: created.key.id,
        form: created.key.form,
      },
      new Date(),
    );
    return created;
  });
}

/** key:create for any account. */
export async function operatorCreateKey(
  db: Queryable,
  actor: Actor,
  input: { accountId: string; form: FormName; name?: string },
) {
  return db.transaction(async (tx) => {
    const created = await createApiKey(tx, input);
    await audit(
      tx,
      actor,
      input.accountId,
      'key.create',
      { key_id: created.key.id, form: created.key.form, name: created.key.name },
      new Date(),
    );
    return created;
  });
}

/**
 * key:revoke of any account's key (with accountId, only a key of that account); it returns once
 * the revocation has reached every instance.
 */
export async function operatorRevokeKey(db: Queryable, actor: Actor, keyId: string, accountId?: string) {
  const { key, changed } = await db.transaction(async (tx) => {
    const [current] = await tx
      .select({ revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), accountId ? eq(apiKeys.accountId, accountId) : undefined));
    const key = await revokeApiKey(tx, keyId, accountId);
    // Revoking a revoked key changes nothing, so nothing is recorded.
    const changed = current != null && !current.revokedAt;
    if (changed)
      await audit(tx, actor, key.accountId, 'key.revoke', { key_id: key.id, prefix: key.prefix }, new Date());
    return { key, changed };
  });
  if (changed) await changesReachEveryInstance();
  return key;
}
