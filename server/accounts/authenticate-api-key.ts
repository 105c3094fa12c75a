import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { preparedPerDatabase } from '../db/prepared';
import type { FormName, Plan } from '../domain';
import { AppError } from '../errors';
import { consumeRateLimits, rateLimitHeaders, type RateLimitResult } from '../rate-limit/consume-rate-limit';
import type { RateLimitRule } from '../rate-limit/plan-limits';
import { accounts, apiKeys } from '../db/schema';
import { type Account, type ApiKey, usableKey } from './accounts';

export interface ApiPrincipal {
  key: Pick<ApiKey, 'id' | 'form' | 'accountId' | 'expiresAt'>;
  account: Pick<Account, 'id' | 'plan' | 'dailyLimit' | 'earlyAccess'>;
}

/**
 * The principal behind a key's hash, usable at `now` (unrevoked and unexpired), or null for an
 * unknown, revoked or expired key (docs/rules.md#authentication). A read, and a prepared
 * statement where the connection keeps one (PostgreSQL without a transaction-mode pooler): it runs
 * for every key in use a few times a second on every instance, and parsing and planning it each
 * time cost the database about four times as much as running it (docs/performance.md, "A read
 * that writes nothing"). The request is counted by RequestCounter (./request-counter.ts), which
 * calls this and trusts what it read for a moment (./key-trust.ts).
 */
export async function lookUpApiKey(db: Queryable, keyHash: string, now: Date): Promise<ApiPrincipal | null> {
  const [row] = await preparedLookup(db).execute({ keyHash, now: now.toISOString() });
  return row ? principalOf(row) : null;
}

const preparedLookup = preparedPerDatabase((db) =>
  db
    .select({
      key_id: apiKeys.id,
      key_form: apiKeys.form,
      expires_at: apiKeys.expiresAt,
      account_id: accounts.id,
      plan: accounts.plan,
      daily_limit: accounts.dailyLimit,
      early_access: accounts.earlyAccess,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(
      and(
        eq(apiKeys.keyHash, sql.placeholder('keyHash')),
        usableKey(sql`${sql.placeholder('now')}::timestamptz`),
      ),
    )
    .prepare('look_up_api_key'),
);

/** The key behind a hash, usable at `now`, with its account and the request's form. */
function principalSql(keyHash: string, now: Date, form?: FormName) {
  return sql`select api_keys.id as key_id, api_keys.form as key_form, api_keys.expires_at,
                    a.id as account_id, a.plan,
                    a.daily_limit, a.early_access, coalesce(${form ?? null}::text, api_keys.form) as form
             from api_keys join accounts a on a.id = api_keys.account_id
             where api_keys.key_hash = ${keyHash} and ${usableKey(now)}`;
}

interface PrincipalRow extends Record<string, unknown> {
  key_id: string;
  key_form: FormName;
  /** A Date from a prepared select; the text of a timestamptz from raw SQL. */
  expires_at: Date | string | null;
  account_id: string;
  plan: Plan;
  daily_limit: number | string | null;
  early_access: boolean;
}

function principalOf(row: PrincipalRow): ApiPrincipal {
  return {
    key: {
      id: row.key_id,
      form: row.key_form,
      accountId: row.account_id,
      expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    },
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
export function refusalOf(
  { principal, limit }: CountedRequest,
  headers: Record<string, string>,
): AppError | null {
  Object.assign(headers, rateLimitHeaders(limit));
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

/** What countInDatabase learns: the principal, the request's form, and each window's count. */
export interface DatabaseCount {
  principal: ApiPrincipal;
  form: FormName;
  /**
   * Per window of the form, in the rules' order: its count in the statement's snapshot, and its
   * count after this request, or null when it did not count it (a refusal, or a window the caller
   * had already counted and asked to skip).
   */
  counts: { seen: number; counted: number | null }[];
}

/**
 * Looks up a key and counts the request against its form's rate-limit windows in one SQL
 * statement (one round trip); windows the caller counted already (from a block of quota it
 * holds, see quota-leases.ts) are skipped: `skip` names their positions in that form's rules.
 * Null for an unknown, revoked or expired key, which counts nothing.
 *
 * The same guarantees as consumeRateLimits: each window's upsert admits only while its count is
 * below its limit, whatever runs concurrently, and a request is counted in all of its windows or
 * in none. A window already full in the statement's snapshot refuses before anything is counted;
 * should a window fill between the snapshot and the upserts while another has counted the
 * request, the statement fails (undoing both counts) and the request is counted by
 * consumeRateLimits instead. Rows are locked in bucket order, as there.
 */
export async function countInDatabase(
  db: Queryable,
  keyHash: string,
  opts: {
    form?: FormName;
    rules: Record<FormName, readonly RateLimitRule[]>;
    now: Date;
    skip?: { form: FormName; positions: readonly number[] };
  },
): Promise<DatabaseCount | null> {
  const { now, rules, skip } = opts;
  const columns = {
    keyId: sql`p.key_id`,
    accountId: sql`p.account_id`,
    plan: sql`p.plan`,
    dailyLimit: sql`p.daily_limit`,
  };
  const windowRows = (Object.keys(rules) as FormName[]).flatMap((form) =>
    rules[form].map((rule, position) => {
      const w = rule.windowSql(columns, now);
      const counts = !(skip?.form === form && skip.positions.includes(position));
      return sql`(${form}::text, ${position}::int, (${w.bucket})::text, ${w.start.toISOString()}::timestamptz, (${w.limit})::int, ${counts}::boolean)`;
    }),
  );
  let rows: CountRow[];
  try {
    rows = await queryRows<CountRow>(
      db,
      sql`with principal as (${principalSql(keyHash, now, opts.form)}),
          windows as (
            select w.position, w.bucket, w.window_start, w.lim
            from principal p
            cross join lateral (values ${sql.join(windowRows, sql`, `)}) as w(form, position, bucket, window_start, lim, counts)
            where w.form = p.form and w.counts
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
          )
          select p.key_id, p.key_form, p.expires_at, p.account_id, p.plan, p.daily_limit, p.early_access, p.form,
                 (select json_agg(json_build_array(w.position, s.count, n.count))::text
                  from windows w
                  join seen s using (position)
                  left join counted n on n.bucket = w.bucket and n.window_start = w.window_start) as counts,
                 case when (select count(*) from counted) between 1 and (select count(*) - 1 from windows)
                      then (${PARTIAL_COUNT}::text || (select count(*) from counted))::int end as partial
          from principal p`,
    );
  } catch (err) {
    if (!String((err as Error)?.message).includes(PARTIAL_COUNT)) throw err;
    return countTheSlowWay(db, keyHash, opts);
  }
  const [row] = rows;
  if (!row) return null;
  const form = row.form;
  const counts = rules[form].map(() => ({ seen: 0, counted: null as number | null }));
  for (const [position, seen, counted] of JSON.parse(row.counts ?? '[]') as [
    number,
    number,
    number | null,
  ][]) {
    const at = counts[position];
    if (!at) throw new Error('rate-limit windows out of step');
    Object.assign(at, { seen: Number(seen), counted: counted === null ? null : Number(counted) });
  }
  return { principal: principalOf(row), form, counts };
}

interface CountRow extends PrincipalRow {
  form: FormName;
  counts: string | null;
}

/** Counts the windows not skipped in a transaction of their own (consumeRateLimits). */
async function countTheSlowWay(
  db: Queryable,
  keyHash: string,
  opts: Parameters<typeof countInDatabase>[2],
): Promise<DatabaseCount | null> {
  const principal = await lookUpApiKey(db, keyHash, opts.now);
  if (!principal) return null;
  const form = opts.form ?? principal.key.form;
  const skipped = (i: number) => opts.skip?.form === form && opts.skip.positions.includes(i);
  const windows = opts.rules[form].map((rule) => rule.window(principal, opts.now));
  const counting = windows.filter((_, i) => !skipped(i));
  const result = counting.length > 0 ? await consumeRateLimits(db, counting, opts.now) : null;
  // consumeRateLimits tells the first window's count when it admits (the others' as 0: not
  // known) and, when it refuses, which window did; a refusal counts nothing.
  const counts = windows.map((w, i) => {
    if (skipped(i) || !result) return { seen: 0, counted: null };
    if (!result.allowed) return { seen: w === result.window ? w.limit : 0, counted: null };
    return { seen: 0, counted: w === counting[0] ? w.limit - result.remaining : 0 };
  });
  return { principal, form, counts };
}
