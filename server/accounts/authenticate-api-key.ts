import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { accounts, apiKeys } from '../db/schema';
import type { FormName, Plan } from '../domain';
import { consumeRateLimits, rateLimitResult, type RateLimitResult } from '../rate-limit/consume-rate-limit';
import type { RateLimitRule } from '../rate-limit/plan-limits';
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

/** What the /v1 facade learns from a key in one statement: who sent it, its form, its count. */
export interface CountedRequest {
  principal: ApiPrincipal;
  /** The request's form: the override when one was given, else the key's (D1). */
  form: FormName;
  limit: RateLimitResult;
}

// Raised by the statement below when one window counted the request and another refused it:
// the error undoes the count, and the request is counted again the slow way.
const PARTIAL_COUNT = 'rate limit: one window refused after another counted';

/**
 * Authenticates a /v1 request and counts it against its form's rate-limit windows in one SQL
 * statement (issue 14 item 2): the key lookup, the counts (D14, D22) and the once-a-minute
 * last_used_at write (D15) are one round trip. Null for a missing, unknown or revoked key, which
 * counts nothing.
 *
 * The same guarantees as consumeRateLimits: each window's upsert admits only while its count is
 * below its limit, whatever runs concurrently, and a request is counted in all of its windows or
 * in none. A window already full in the statement's snapshot refuses before anything is counted;
 * should a window fill between the snapshot and the upserts while another has counted the
 * request, the statement fails (undoing both counts) and the request goes through
 * authenticateApiKey and consumeRateLimits instead. Rows are locked in bucket order, as there.
 */
export async function authenticateAndCount(
  db: Queryable,
  token: string | null,
  opts: { form?: FormName; rules: Record<FormName, readonly RateLimitRule[]>; now: Date },
): Promise<CountedRequest | null> {
  if (!token || !looksLikeApiKey(token)) return null;
  const { now, rules } = opts;
  const columns = {
    keyId: sql`p.key_id`,
    accountId: sql`p.account_id`,
    plan: sql`p.plan`,
    dailyLimit: sql`p.daily_limit`,
  };
  const windowRows = (Object.keys(rules) as FormName[]).flatMap((form) =>
    rules[form].map((rule, position) => {
      const w = rule.windowSql(columns, now);
      return sql`(${form}::text, ${position}::int, (${w.bucket})::text, ${w.start.toISOString()}::timestamptz, (${w.limit})::int)`;
    }),
  );
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  let rows: CountRow[];
  try {
    rows = await queryRows<CountRow>(
      db,
      sql`with principal as (
            select k.id as key_id, k.form as key_form, a.id as account_id, a.plan, a.daily_limit,
                   a.early_access, coalesce(${opts.form ?? null}::text, k.form) as form
            from api_keys k join accounts a on a.id = k.account_id
            where k.key_hash = ${hashApiKey(token)} and k.revoked_at is null
          ),
          windows as (
            select w.position, w.bucket, w.window_start, w.lim
            from principal p
            cross join lateral (values ${sql.join(windowRows, sql`, `)}) as w(form, position, bucket, window_start, lim)
            where w.form = p.form
          ),
          seen as (
            select w.position, coalesce(c.count, 0) as count
            from windows w
            left join rate_limit_counters c on c.bucket = w.bucket and c.window_start = w.window_start
          ),
          counted as (
            insert into rate_limit_counters as c (bucket, window_start, count)
            select w.bucket, w.window_start, 1 from windows w
            where not exists (select 1 from windows f join seen s using (position) where s.count >= f.lim)
            order by w.bucket, w.window_start
            on conflict (bucket, window_start) do update set count = c.count + 1
            where c.count < (select f.lim from windows f
                             where f.bucket = excluded.bucket and f.window_start = excluded.window_start)
            returning c.bucket, c.window_start, c.count
          ),
          pruned as (
            delete from rate_limit_counters c using counted n
            where n.count = 1 and c.bucket = n.bucket and c.window_start < n.window_start
          ),
          touched as (
            update api_keys k set last_used_at = ${now.toISOString()}::timestamptz
            from principal p
            where k.id = p.key_id and (k.last_used_at is null or k.last_used_at < ${staleBefore.toISOString()}::timestamptz)
          )
          select p.key_id, p.key_form, p.account_id, p.plan, p.daily_limit, p.early_access, p.form,
                 (select json_agg(json_build_array(s.count, n.count) order by w.position)::text
                  from windows w
                  join seen s using (position)
                  left join counted n on n.bucket = w.bucket and n.window_start = w.window_start) as counts,
                 case when (select count(*) from counted) between 1 and (select count(*) - 1 from windows)
                      then (${PARTIAL_COUNT}::text || (select count(*) from counted))::int end as partial
          from principal p`,
    );
  } catch (err) {
    if (!String((err as Error)?.message).includes(PARTIAL_COUNT)) throw err;
    return countTheSlowWay(db, token, opts);
  }
  const [row] = rows;
  if (!row) return null;
  const principal: ApiPrincipal = {
    key: { id: row.key_id, form: row.key_form, accountId: row.account_id },
    account: {
      id: row.account_id,
      plan: row.plan,
      dailyLimit: row.daily_limit === null ? null : Number(row.daily_limit),
      earlyAccess: row.early_access,
    },
  };
  const form = row.form;
  const windows = rules[form].map((rule) => rule.window(principal, now));
  const counts = JSON.parse(row.counts ?? '[]') as [seen: number, counted: number | null][];
  const [first] = windows;
  const [firstCount] = counts;
  if (!first || !firstCount || counts.length !== windows.length)
    throw new Error('rate-limit windows out of step');
  if (counts.every(([, counted]) => counted !== null)) {
    return { principal, form, limit: rateLimitResult(first, firstCount[1], now) };
  }
  // Refused: by the windows full in the snapshot, or (when the upserts found them filled since)
  // by all of them. Of several, the one that frees up last is described (D22).
  const full = windows.filter((w, i) => (counts[i]?.[0] ?? 0) >= w.limit);
  const [refused = first] = (full.length > 0 ? full : windows).sort(
    (a, b) => b.end.getTime() - a.end.getTime(),
  );
  return { principal, form, limit: rateLimitResult(refused, null, now) };
}

interface CountRow extends Record<string, unknown> {
  key_id: string;
  key_form: FormName;
  account_id: string;
  plan: Plan;
  daily_limit: number | string | null;
  early_access: boolean;
  form: FormName;
  counts: string | null;
}

async function countTheSlowWay(
  db: Queryable,
  token: string,
  opts: { form?: FormName; rules: Record<FormName, readonly RateLimitRule[]>; now: Date },
): Promise<CountedRequest | null> {
  const principal = await authenticateApiKey(db, token);
  if (!principal) return null;
  const form = opts.form ?? principal.key.form;
  const windows = opts.rules[form].map((rule) => rule.window(principal, opts.now));
  return { principal, form, limit: await consumeRateLimits(db, windows, opts.now) };
}
