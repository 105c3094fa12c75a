import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { getEndpointOrThrow } from './endpoints';

/** Attempt counts over a window. `successRate` is null when there was no attempt. */
export interface AttemptTally {
  attempts: number;
  succeeded: number;
  successRate: number | null;
}

export interface LastError {
  deliveryId: string;
  statusCode: number | null;
  error: string | null;
  at: Date;
}

export interface EndpointHealth {
  day: AttemptTally;
  week: AttemptTally;
  lastError: LastError | null;
}

export interface HealthBucket {
  /** Start of the bucket (hours for the day chart, days for the week chart). */
  start: Date;
  succeeded: number;
  failed: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const tally = (attempts: unknown, succeeded: unknown): AttemptTally => {
  const a = Number(attempts ?? 0);
  const s = Number(succeeded ?? 0);
  return { attempts: a, succeeded: s, successRate: a === 0 ? null : s / a };
};

/**
 * Every endpoint of the account with its attempt counts over 24 hours and 7
 * days and its latest failed attempt: two queries for the whole list.
 */
export async function healthOfEndpoints(
  db: Queryable,
  accountId: string,
  now = new Date(),
  onlyEndpointId?: string,
): Promise<Map<string, EndpointHealth>> {
  const only = onlyEndpointId ? sql` and e.id = ${onlyEndpointId}` : sql``;
  const dayAgo = new Date(now.getTime() - DAY).toISOString();
  const weekAgo = new Date(now.getTime() - 7 * DAY).toISOString();
  const counts = await queryRows(
    db,
    sql`select a.endpoint_id,
               count(*) filter (where a.created_at > ${dayAgo}) as day_attempts,
               count(*) filter (where a.created_at > ${dayAgo} and a.success) as day_succeeded,
               count(*) as week_attempts,
               count(*) filter (where a.success) as week_succeeded
        from delivery_attempts a join webhook_endpoints e on e.id = a.endpoint_id
        where e.account_id = ${accountId}${only} and a.created_at > ${weekAgo}
        group by a.endpoint_id`,
  );
  const errors = await queryRows(
    db,
    sql`select distinct on (a.endpoint_id) a.endpoint_id, a.delivery_id, a.status_code, a.error, a.created_at
        from delivery_attempts a join webhook_endpoints e on e.id = a.endpoint_id
        where e.account_id = ${accountId}${only} and not a.success
        order by a.endpoint_id, a.created_at desc, a.id desc`,
  );
  const health = new Map<string, EndpointHealth>();
  const entry = (id: string) => {
    let h = health.get(id);
    if (!h) {
      h = { day: tally(0, 0), week: tally(0, 0), lastError: null };
      health.set(id, h);
    }
    return h;
  };
  for (const c of counts) {
    const h = entry(c.endpoint_id as string);
    h.day = tally(c.day_attempts, c.day_succeeded);
    h.week = tally(c.week_attempts, c.week_succeeded);
  }
  for (const e of errors) {
    entry(e.endpoint_id as string).lastError = {
      deliveryId: e.delivery_id as string,
      statusCode: e.status_code === null ? null : Number(e.status_code),
      error: (e.error as string | null) ?? null,
      at: new Date(e.created_at as string),
    };
  }
  return health;
}

export const EMPTY_HEALTH: EndpointHealth = { day: tally(0, 0), week: tally(0, 0), lastError: null };

/**
 * One endpoint's health and its chart: attempts per hour over the last 24 hours and per day over
 * the last 7, succeeded and failed, oldest bucket first, empty buckets included. Buckets end at
 * `now`, so the chart needs no time zone.
 */
export async function endpointHealth(
  db: Queryable,
  accountId: string,
  endpointId: string,
  now = new Date(),
): Promise<EndpointHealth & { hourly: HealthBucket[]; daily: HealthBucket[] }> {
  await getEndpointOrThrow(db, accountId, endpointId);
  const weekAgo = new Date(now.getTime() - 7 * DAY);
  const rows = await queryRows(
    db,
    sql`select floor(extract(epoch from (${now.toISOString()}::timestamptz - created_at)) * 1000 / ${HOUR})::int as hours_ago,
               count(*) filter (where success) as succeeded,
               count(*) filter (where not success) as failed
        from delivery_attempts
        where endpoint_id = ${endpointId} and created_at > ${weekAgo.toISOString()} and created_at <= ${now.toISOString()}
        group by 1`,
  );
  const hourly = Array.from({ length: 24 }, (_, i) => ({
    start: new Date(now.getTime() - (24 - i) * HOUR),
    succeeded: 0,
    failed: 0,
  }));
  const daily = Array.from({ length: 7 }, (_, i) => ({
    start: new Date(now.getTime() - (7 - i) * DAY),
    succeeded: 0,
    failed: 0,
  }));
  for (const r of rows) {
    const hoursAgo = Math.min(Math.max(Number(r.hours_ago), 0), 7 * 24 - 1);
    const ok = Number(r.succeeded);
    const bad = Number(r.failed);
    const hour = hourly[23 - hoursAgo];
    if (hour) {
      hour.succeeded += ok;
      hour.failed += bad;
    }
    const day = daily[6 - Math.floor(hoursAgo / 24)];
    if (day) {
      day.succeeded += ok;
      day.failed += bad;
    }
  }
  const health = (await healthOfEndpoints(db, accountId, now, endpointId)).get(endpointId) ?? EMPTY_HEALTH;
  return { ...health, hourly, daily };
}
