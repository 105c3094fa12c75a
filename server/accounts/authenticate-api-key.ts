import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import type { FormName, Plan } from '../domain';
import { AppError } from '../errors';
import {
  consumeRateLimits,
  rateLimitHeaders,
  rateLimitResult,
  type RateLimitResult,
} from '../rate-limit/consume-rate-limit';
import type { RateLimitRule } from '../rate-limit/plan-limits';
import { type Account, type ApiKey, usableKey } from './accounts';
import { hashApiKey, looksLikeApiKey } from './api-key-crypto';

export interface ApiPrincipal {
  key: Pick<ApiKey, 'id' | 'form' | 'accountId'>;
  account: Pick<Account, 'id' | 'plan' | 'dailyLimit' | 'earlyAccess'>;
}

/** last_used_at is written at most once a minute per key, so busy keys do not write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The principal behind a bearer token, or null for a missing, unknown, revoked or expired key
 * (docs/rules.md#authentication). One statement: the lookup, the request counted in the key's
 * usage and the once-a-minute last_used_at write. The recorder API authenticates this way; /v1 uses
 * authenticateAndCount, which also counts the rate-limit windows.
 */
export async function authenticateApiKey(
  db: Queryable,
  token: string | null,
  now: Date = new Date(),
): Promise<ApiPrincipal | null> {
  if (!token || !looksLikeApiKey(token)) return null;
  const [row] = await queryRows<PrincipalRow>(
    db,
    sql`with principal as (${principalSql(token, now)}),
          ${keyUsageSql(now)}
          select p.key_id, p.key_form, p.account_id, p.plan, p.daily_limit, p.early_access from principal p`,
  );
  return row ? principalOf(row) : null;
}

/** The key behind a token, usable at `now` (unrevoked and unexpired), with its account. */
function principalSql(token: string, now: Date, form?: FormName) {
  return sql`select api_keys.id as key_id, api_keys.form as key_form, a.id as account_id, a.plan,
                    a.daily_limit, a.early_access, coalesce(${form ?? null}::text, api_keys.form) as form
             from api_keys join accounts a on a.id = api_keys.account_id
             where api_keys.key_hash = ${hashApiKey(token)} and ${usableKey(now)}`;
}

/** How many days of per-key usage are kept: the settings app charts the last 7. */
export const KEY_USAGE_RETENTION_DAYS = 31;

/**
 * CTEs over `principal` that count the request in its key's usage (requests
 * per UTC day and in the latest clock minute, whether or not a rate limit then refuses it),
 * prune the key's days past retention as it starts a new one, and write last_used_at at most
 * once a minute.
 */
function keyUsageSql(now: Date) {
  const day = now.toISOString().slice(0, 10);
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString();
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
  return sql`used as (
            insert into api_key_usage as u (key_id, day, requests, minute_start, minute_requests)
            select p.key_id, ${day}::date, 1, ${minute}::timestamptz, 1 from principal p
            on conflict (key_id, day) do update set
              requests = u.requests + 1,
              minute_requests = case when u.minute_start = excluded.minute_start then u.minute_requests + 1
                                     when u.minute_start < excluded.minute_start then 1
                                     else u.minute_requests end,
              minute_start = greatest(u.minute_start, excluded.minute_start)
            returning u.key_id, u.day, u.requests
          ),
          usage_pruned as (
            delete from api_key_usage o using used n
            where n.requests = 1 and o.key_id = n.key_id and o.day < n.day - ${KEY_USAGE_RETENTION_DAYS}::int
          ),
          touched as (
            update api_keys k set last_used_at = ${now.toISOString()}::timestamptz
            from principal p
            where k.id = p.key_id and (k.last_used_at is null or k.last_used_at < ${staleBefore}::timestamptz)
          )`;
}

interface PrincipalRow extends Record<string, unknown> {
  key_id: string;
  key_form: FormName;
  account_id: string;
  plan: Plan;
  daily_limit: number | string | null;
  early_access: boolean;
}

function principalOf(row: PrincipalRow): ApiPrincipal {
  return {
    key: { id: row.key_id, form: row.key_form, accountId: row.account_id },
    account: {
      id: row.account_id,
      plan: row.plan,
      dailyLimit: row.daily_limit === null ? null : Number(row.daily_limit),
      earlyAccess: row.early_access,
    },
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
  /** The request's form: the X-API-Form override when one was given, else the key's. */
  form: FormName;
  limit: RateLimitResult;
}

/** The answer to a missing, unknown, revoked or expired key. */
export const invalidApiKey = () =>
  new AppError('invalid_api_key', 'Missing, invalid, revoked or expired API key');

/**
 * Why a counted request goes no further: a full window (429, docs/rules.md#rate-limits) or an
 * account without early access (403); null when it may. The window's X-RateLimit-* headers (and
 * Retry-After when full) are set on `headers` either way.
 */
export function refusalOf({ principal, limit }: CountedRequest, headers: Headers): AppError | null {
  for (const [k, v] of Object.entries(rateLimitHeaders(limit))) headers.set(k, v);
  if (!limit.allowed) {
    const which = limit.window.description ? ` (${limit.window.description})` : '';
    return new AppError('rate_limited', `Rate limit exceeded${which}; retry after the time in Retry-After`);
  }
  if (!principal.account.earlyAccess)
    return new AppError('forbidden', 'API access is limited to early-access accounts');
  return null;
}

// Raised by the statement below when one window counted the request and another refused it:
// the error undoes the count, and the request is counted again the slow way.
const PARTIAL_COUNT = 'rate limit: one window refused after another counted';

/**
 * Authenticates a /v1 request and counts it against its form's rate-limit windows in one SQL
 * statement: the key lookup, the counts (docs/rules.md#rate-limits), the once-a-minute
 * last_used_at write and the key's usage are one round trip. Null for a
 * missing, unknown, revoked or expired key, which counts nothing.
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
  let rows: CountRow[];
  try {
    rows = await queryRows<CountRow>(
      db,
      sql`with principal as (${principalSql(token, now, opts.form)}),
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
          ${keyUsageSql(now)}
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
  const principal = principalOf(row);
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
  // by all of them. Of several, the one that frees up last is described.
  const full = windows.filter((w, i) => (counts[i]?.[0] ?? 0) >= w.limit);
  const [refused = first] = (full.length > 0 ? full : windows).sort(
    (a, b) => b.end.getTime() - a.end.getTime(),
  );
  return { principal, form, limit: rateLimitResult(refused, null, now) };
}

interface CountRow extends PrincipalRow {
  form: FormName;
  counts: string | null;
}

async function countTheSlowWay(
  db: Queryable,
  token: string,
  opts: { form?: FormName; rules: Record<FormName, readonly RateLimitRule[]>; now: Date },
): Promise<CountedRequest | null> {
  const principal = await authenticateApiKey(db, token, opts.now);
  if (!principal) return null;
  const form = opts.form ?? principal.key.form;
  const windows = opts.rules[form].map((rule) => rule.window(principal, opts.now));
  return { principal, form, limit: await consumeRateLimits(db, windows, opts.now) };
}
