import { sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';

/** How many days of per-key usage are kept: the settings app charts the last 7. */
export const KEY_USAGE_RETENTION_DAYS = 31;

/** last_used_at is written at most once a minute per key, so busy keys do not write it on every flush. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface KeyDay {
  keyId: string;
  day: string;
  requests: number;
  /** The latest clock minute seen, and its requests. */
  minuteMs: number;
  minuteRequests: number;
  lastUsedMs: number;
}

/**
 * The requests made with each key, added up in memory and written in one statement per flush
 * (docs/rules.md#rate-limits, "How requests are counted"): per UTC day, in the latest clock
 * minute, and the key's last_used_at. Memory holds one entry per key and day used since the last
 * flush. A crash loses what was not yet flushed (at most one flush interval of usage figures);
 * rate limits are counted elsewhere and lose nothing.
 */
export class UsageBuffer {
  private pending = new Map<string, KeyDay>();

  get size(): number {
    return this.pending.size;
  }

  record(keyId: string, now: Date): void {
    const ms = now.getTime();
    const minuteMs = Math.floor(ms / 60_000) * 60_000;
    // Keyed by the UTC day's number; its date is written out only when the entry is made.
    const id = `${keyId} ${Math.floor(ms / 86_400_000)}`;
    const entry = this.pending.get(id);
    if (!entry) {
      this.pending.set(id, {
        keyId,
        day: now.toISOString().slice(0, 10),
        requests: 1,
        minuteMs,
        minuteRequests: 1,
        lastUsedMs: ms,
      });
      return;
    }
    entry.requests++;
    if (minuteMs === entry.minuteMs) entry.minuteRequests++;
    else if (minuteMs > entry.minuteMs) {
      entry.minuteMs = minuteMs;
      entry.minuteRequests = 1;
    }
    if (ms > entry.lastUsedMs) entry.lastUsedMs = ms;
  }

  /**
   * Writes what was recorded since the last flush: adds each key's requests to its day, keeps its
   * latest minute, prunes its days past retention and moves last_used_at forward. Keys deleted
   * meanwhile are skipped. Should the write fail, the figures stay to be written next time.
   */
  async flush(db: Queryable): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows = [...batch.values()].map((e) => ({
      key_id: e.keyId,
      day: e.day,
      requests: e.requests,
      minute_start: new Date(e.minuteMs).toISOString(),
      minute_requests: e.minuteRequests,
      last_used_at: new Date(e.lastUsedMs).toISOString(),
    }));
    try {
      await db.execute(
        sql`with v as (
              select v.* from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                as v(key_id uuid, day date, requests int, minute_start timestamptz, minute_requests int, last_used_at timestamptz)
              join api_keys k on k.id = v.key_id
            ),
            used as (
              insert into api_key_usage as u (key_id, day, requests, minute_start, minute_requests)
              select key_id, day, requests, minute_start, minute_requests from v
              order by key_id, day
              on conflict (key_id, day) do update set
                requests = u.requests + excluded.requests,
                minute_requests = case when u.minute_start = excluded.minute_start then u.minute_requests + excluded.minute_requests
                                       when u.minute_start < excluded.minute_start then excluded.minute_requests
                                       else u.minute_requests end,
                minute_start = greatest(u.minute_start, excluded.minute_start)
            ),
            pruned as (
              delete from api_key_usage o using v
              where o.key_id = v.key_id and o.day < v.day - ${KEY_USAGE_RETENTION_DAYS}::int
            )
            update api_keys k set last_used_at = l.at
            from (select key_id, max(last_used_at) as at from v group by key_id) l
            where k.id = l.key_id
              and (k.last_used_at is null or k.last_used_at < l.at - ${`${LAST_USED_RESOLUTION_MS} milliseconds`}::interval)`,
      );
    } catch (err) {
      for (const [id, e] of batch) {
        const later = this.pending.get(id);
        if (!later) this.pending.set(id, e);
        else {
          later.requests += e.requests;
          if (later.minuteMs === e.minuteMs) later.minuteRequests += e.minuteRequests;
          else if (e.minuteMs > later.minuteMs)
            Object.assign(later, { minuteMs: e.minuteMs, minuteRequests: e.minuteRequests });
          later.lastUsedMs = Math.max(later.lastUsedMs, e.lastUsedMs);
        }
      }
      throw err;
    }
  }
}
